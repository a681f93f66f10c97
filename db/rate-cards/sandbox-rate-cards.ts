/**
 * D1: the sandbox tenants' rate cards, as plain data the seed inserts (every SKU active) and the
 * tests read. Same catalogue codes in both tenants, prices a little apart so that a quote priced on
 * the wrong tenant's card shows. Costs are believable Canadian dealer costs in CAD cents; some carry
 * fractions of a cent on purpose (D2 allows it, and the engine must handle it).
 *
 * The floors must agree with SANDBOX_TENANTS in db/sandbox.ts (a unit test checks).
 */
import { DEFAULT_RATE_CARD_SETTINGS } from '../../domain/organizations/templates';
import type { RateCardLabourTier, RateCardSettings, RateCardSku } from '../../domain/pricing/rate-card';

export interface SandboxRateCard {
  subdomain: 'sandbox' | 'sandbox-alt';
  settings: RateCardSettings;
  skus: readonly RateCardSku[];
  labourTiers: readonly RateCardLabourTier[];
}

export const SANDBOX_RATE_CARD: SandboxRateCard = {
  subdomain: 'sandbox',
  // D1's standard constants, the same a workspace made with `--template empty` starts from.
  settings: { ...DEFAULT_RATE_CARD_SETTINGS },
  skus: [
    { code: 'FAB-SCREEN-3', component: 'fabric', description: 'Solar screen fabric, 3% openness', unit: 'sq_ft', unitCostCents: '437.5' },
    { code: 'FAB-BLACKOUT', component: 'fabric', description: 'Blackout fabric, vinyl-backed', unit: 'sq_ft', unitCostCents: '396.75' },
    { code: 'HW-ROLLER-STD', component: 'hardware', description: 'Roller hardware, 1.5 in tube with brackets and clutch', unit: 'linear_ft', unitCostCents: '725' },
    { code: 'HW-ROLLER-HD', component: 'hardware', description: 'Heavy-duty roller hardware, 2 in tube with brackets and clutch', unit: 'linear_ft', unitCostCents: '1087.5' },
    { code: 'MTR-BATTERY', component: 'motor', description: 'Rechargeable battery motor with remote', unit: 'each', unitCostCents: '23900' },
    { code: 'MTR-WIRED', component: 'motor', description: 'Hard-wired 120 V AC motor', unit: 'each', unitCostCents: '19850' },
    { code: 'TRIM-CASSETTE', component: 'trim', description: 'Aluminium cassette valance', unit: 'linear_ft', unitCostCents: '1475' },
    { code: 'TRIM-FASCIA', component: 'trim', description: 'Fascia cover, fabric-wrapped', unit: 'linear_ft', unitCostCents: '862.5' },
  ],
  labourTiers: [
    { code: 'STANDARD', name: 'Standard installation', hourlyRateCents: 8500, multiplier: '1' },
    { code: 'PREMIUM', name: 'Premium installation', hourlyRateCents: 11500, multiplier: '1.25' },
  ],
};

export const SANDBOX_ALT_RATE_CARD: SandboxRateCard = {
  subdomain: 'sandbox-alt',
  settings: {
    marginFloor: '0.30',
    fabricWasteFactor: '0.12',
    labourBaseHoursPerUnit: '0.8',
    labourHoursPerSquareFoot: '0.0225',
    labourMotorisationHours: '0.6',
    tubeDeductionInches: '1.25',
    hembarDeductionInches: '1.5',
    fabricWidthDeductionInches: '1.625',
    fabricDropAllowanceInches: '10',
  },
  skus: [
    { code: 'FAB-SCREEN-3', component: 'fabric', description: 'Solar screen fabric, 3% openness', unit: 'sq_ft', unitCostCents: '449' },
    { code: 'FAB-BLACKOUT', component: 'fabric', description: 'Blackout fabric, triple-weave', unit: 'sq_ft', unitCostCents: '402.35' },
    { code: 'HW-ROLLER-STD', component: 'hardware', description: 'Roller hardware, 1.5 in tube with brackets and clutch', unit: 'linear_ft', unitCostCents: '740' },
    { code: 'HW-ROLLER-HD', component: 'hardware', description: 'Heavy-duty roller hardware, 2 in tube with brackets and clutch', unit: 'linear_ft', unitCostCents: '1099.75' },
    { code: 'MTR-BATTERY', component: 'motor', description: 'Rechargeable battery motor with remote', unit: 'each', unitCostCents: '24500' },
    { code: 'MTR-WIRED', component: 'motor', description: 'Hard-wired 120 V AC motor', unit: 'each', unitCostCents: '20100' },
    { code: 'TRIM-CASSETTE', component: 'trim', description: 'Aluminium cassette valance', unit: 'linear_ft', unitCostCents: '1499.5' },
    { code: 'TRIM-FASCIA', component: 'trim', description: 'Fascia cover, aluminium', unit: 'linear_ft', unitCostCents: '875' },
  ],
  labourTiers: [
    { code: 'STANDARD', name: 'Standard installation', hourlyRateCents: 8900, multiplier: '1' },
    { code: 'PREMIUM', name: 'Premium installation', hourlyRateCents: 12000, multiplier: '1.2' },
  ],
};

export const SANDBOX_RATE_CARDS: readonly SandboxRateCard[] = [SANDBOX_RATE_CARD, SANDBOX_ALT_RATE_CARD];
