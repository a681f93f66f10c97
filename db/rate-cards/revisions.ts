import type { EntityManager } from '@mikro-orm/postgresql';
import type { RateCardLabourTier, RateCardSettings, RateCardSku } from '../../domain/pricing/rate-card';

export interface RateCardContent {
  settings: RateCardSettings;
  skus: readonly RateCardSku[];
  labourTiers: readonly RateCardLabourTier[];
}

/**
 * D2: a rate-card change is a new revision carrying the whole card (settings, SKUs, tiers), so
 * every revision a quote names stays complete and unchanged. Returns the revision id.
 */
export async function insertRateCardRevision(conn: EntityManager, organizationId: string, card: RateCardContent): Promise<string> {
  const s = card.settings;
  const [revision] = await conn.execute<{ id: string }[]>(
    `insert into rate_card_revisions (organization_id, margin_floor, fabric_waste_factor, labour_base_hours_per_unit,
       labour_hours_per_square_foot, labour_motorisation_hours, tube_deduction_inches, hembar_deduction_inches,
       fabric_width_deduction_inches, fabric_drop_allowance_inches)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
    [
      organizationId, s.marginFloor, s.fabricWasteFactor, s.labourBaseHoursPerUnit, s.labourHoursPerSquareFoot,
      s.labourMotorisationHours, s.tubeDeductionInches, s.hembarDeductionInches, s.fabricWidthDeductionInches, s.fabricDropAllowanceInches,
    ],
  );
  const revisionId = revision!.id;
  for (const sku of card.skus) {
    await conn.execute(
      `insert into rate_card_skus (organization_id, revision_id, code, component, description, unit, unit_cost_cents) values (?, ?, ?, ?, ?, ?, ?)`,
      [organizationId, revisionId, sku.code, sku.component, sku.description, sku.unit, sku.unitCostCents],
    );
  }
  for (const tier of card.labourTiers) {
    await conn.execute(
      `insert into rate_card_labour_tiers (organization_id, revision_id, code, name, hourly_rate_cents, multiplier) values (?, ?, ?, ?, ?, ?)`,
      [organizationId, revisionId, tier.code, tier.name, tier.hourlyRateCents, tier.multiplier],
    );
  }
  return revisionId;
}
