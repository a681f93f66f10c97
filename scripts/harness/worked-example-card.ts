import type { RateCardLabourTier, RateCardSettings, RateCardSku } from '../../domain/pricing/rate-card';

/**
 * The rate card of the worked example in docs/pricing.md section 9, written out here on purpose
 * rather than taken from the sandbox: the sandbox data may be re-priced later, the documented
 * example must not move. The pricing tests of both engines price it.
 */
export const EXAMPLE_SETTINGS: RateCardSettings = {
  marginFloor: '0.35',
  fabricWasteFactor: '0.10',
  labourBaseHoursPerUnit: '0.75',
  labourHoursPerSquareFoot: '0.02',
  labourMotorisationHours: '0.5',
  tubeDeductionInches: '1.125',
  hembarDeductionInches: '1.375',
  fabricWidthDeductionInches: '1.5',
  fabricDropAllowanceInches: '12',
};
export const EXAMPLE_SKUS: RateCardSku[] = [
  { code: 'FAB-SCREEN-3', component: 'fabric', description: 'Solar screen fabric, 3% openness', unit: 'sq_ft', unitCostCents: '437.5' },
  { code: 'FAB-BLACKOUT', component: 'fabric', description: 'Blackout fabric, vinyl-backed', unit: 'sq_ft', unitCostCents: '396.75' },
  { code: 'HW-ROLLER-STD', component: 'hardware', description: 'Roller hardware, 1.5 in tube with brackets and clutch', unit: 'linear_ft', unitCostCents: '725' },
  { code: 'HW-ROLLER-HD', component: 'hardware', description: 'Heavy-duty roller hardware, 2 in tube with brackets and clutch', unit: 'linear_ft', unitCostCents: '1087.5' },
  { code: 'MTR-BATTERY', component: 'motor', description: 'Rechargeable battery motor with remote', unit: 'each', unitCostCents: '23900' },
  { code: 'MTR-WIRED', component: 'motor', description: 'Hard-wired 120 V AC motor', unit: 'each', unitCostCents: '19850' },
  { code: 'TRIM-CASSETTE', component: 'trim', description: 'Aluminium cassette valance', unit: 'linear_ft', unitCostCents: '1475' },
  { code: 'TRIM-FASCIA', component: 'trim', description: 'Fascia cover, fabric-wrapped', unit: 'linear_ft', unitCostCents: '862.5' },
];
export const EXAMPLE_TIERS: RateCardLabourTier[] = [
  { code: 'STANDARD', name: 'Standard installation', hourlyRateCents: 8500, multiplier: '1' },
  { code: 'PREMIUM', name: 'Premium installation', hourlyRateCents: 11500, multiplier: '1.25' },
];
