import Decimal from 'decimal.js';
import { labourCostCents, priceFromCostAtMargin, type PricedQuote } from './reference-engine';
import { priceQuote } from './engine';
import { UnknownLabourTierError } from './errors';
import type { CalculationLineItem } from './request';
import type { RateCardSnapshot } from './rate-card';

/**
 * D12: a change order priced by the same engine as quotes, on the job's quote's frozen rate-card
 * revision, at the quote's applied margin raised to the tenant's floor where it is below it.
 * Pure: the worked example of docs/pricing.md is priced by a test through this function.
 */
export interface ChangeOrderPricingInput {
  lineItems: readonly CalculationLineItem[];
  /** Extra labour hours beyond the lines' own (negative for work no longer needed), exact decimal string. */
  extraLabourHours: string;
  rateCard: RateCardSnapshot;
  labourTierCode: string;
  /** The quote's applied margin and the tenant's floor now, decimal strings. */
  quoteMargin: string;
  tenantFloor: string;
}

export interface ChangeOrderPricing {
  labourHours: string;
  materialCostCents: number;
  directCostCents: number;
  sellCents: number;
  appliedMargin: string;
  floorEngaged: boolean;
  /** The engine's result for the lines (null without lines), kept with the change order. */
  lines: PricedQuote | null;
  extraLabour: { hours: string; cost_cents: number; price_cents: number };
}

export function priceChangeOrder(input: ChangeOrderPricingInput): ChangeOrderPricing {
  const quoteMargin = new Decimal(input.quoteMargin);
  const floor = new Decimal(input.tenantFloor);
  const floorEngaged = quoteMargin.lt(floor);
  const applied = floorEngaged ? floor : quoteMargin;
  const tier = input.rateCard.labourTiers.get(input.labourTierCode);
  if (!tier) throw new UnknownLabourTierError(input.labourTierCode);

  // The engine judges margins against the floor it is given: the tenant's, which `applied` meets.
  const lines =
    input.lineItems.length === 0
      ? null
      : priceQuote({
          request: { laborTierCode: input.labourTierCode, targetMargin: applied.toNumber(), lineItems: [...input.lineItems] },
          rateCard: { ...input.rateCard, marginFloor: floor.toFixed() },
          overrideAuthorised: false,
        });

  let materialCost = 0;
  let labourCost = 0;
  let lineHours = new Decimal(0);
  for (const line of lines?.line_items ?? []) {
    lineHours = lineHours.plus(line.labour_hours);
    for (const component of line.components) {
      if (component.component === 'labour') labourCost += component.extended_cost_cents;
      else materialCost += component.extended_cost_cents;
    }
  }
  const extraCost = labourCostCents(input.extraLabourHours, tier.hourlyRateCents);
  const extraPrice = priceFromCostAtMargin(extraCost, applied.toFixed());
  return {
    labourHours: lineHours.plus(input.extraLabourHours).toFixed(),
    materialCostCents: materialCost,
    directCostCents: materialCost + labourCost + extraCost,
    sellCents: (lines?.totals.amount_cents ?? 0) + extraPrice,
    appliedMargin: applied.toFixed(),
    floorEngaged,
    lines,
    extraLabour: { hours: new Decimal(input.extraLabourHours).toFixed(), cost_cents: extraCost, price_cents: extraPrice },
  };
}
