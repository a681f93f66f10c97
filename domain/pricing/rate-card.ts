/**
 * D2: the rate card the pricing engine consumes: one revision of one tenant's settings, active SKUs
 * and labour tiers, already read from the database. Every exact decimal stays a string here so that
 * nothing passes through a binary float before the engine parses it with decimal.js.
 */
export type SkuComponent = 'fabric' | 'hardware' | 'motor' | 'trim';
export type SkuUnit = 'sq_ft' | 'each' | 'linear_ft';

export interface RateCardSku {
  code: string;
  component: SkuComponent;
  description: string;
  unit: SkuUnit;
  /** Exact decimal; may carry fractions of a cent (D2). */
  unitCostCents: string;
}

export interface RateCardLabourTier {
  code: string;
  name: string;
  /** Integer cents per hour. */
  hourlyRateCents: number;
  /** Decimal applied to the labour hours (not to the rate); see docs/pricing.md. */
  multiplier: string;
}

export interface RateCardSnapshot {
  /** ISO-8601 timestamp of the revision (D2); persisted quotes record it as their pricebookRevision. */
  revision: string;
  marginFloor: string;
  fabricWasteFactor: string;
  labourBaseHoursPerUnit: string;
  labourHoursPerSquareFoot: string;
  labourMotorisationHours: string;
  tubeDeductionInches: string;
  hembarDeductionInches: string;
  fabricWidthDeductionInches: string;
  fabricDropAllowanceInches: string;
  /** Active SKUs only, by code: an inactive SKU is an unknown SKU to the engine. */
  skus: ReadonlyMap<string, RateCardSku>;
  /** By code. */
  labourTiers: ReadonlyMap<string, RateCardLabourTier>;
}

/** The scalar settings of a rate card revision (everything but the revision stamp and the lists). */
export type RateCardSettings = Omit<RateCardSnapshot, 'revision' | 'skus' | 'labourTiers'>;

/**
 * Builds a snapshot from rows. A duplicate code is a bug in whoever produced the rows (the database
 * keeps codes unique per tenant), so it throws rather than letting one row silently win.
 */
export function buildRateCardSnapshot(input: {
  revision: string;
  settings: RateCardSettings;
  skus: Iterable<RateCardSku>;
  labourTiers: Iterable<RateCardLabourTier>;
}): RateCardSnapshot {
  const skus = new Map<string, RateCardSku>();
  for (const sku of input.skus) {
    if (skus.has(sku.code)) throw new Error(`rate card revision ${input.revision} lists SKU ${sku.code} twice`);
    skus.set(sku.code, sku);
  }
  const labourTiers = new Map<string, RateCardLabourTier>();
  for (const tier of input.labourTiers) {
    if (labourTiers.has(tier.code)) throw new Error(`rate card revision ${input.revision} lists labour tier ${tier.code} twice`);
    labourTiers.set(tier.code, tier);
  }
  return { ...input.settings, revision: input.revision, skus, labourTiers };
}
