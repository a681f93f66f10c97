import type { CalculateBody } from '../../api/quotes/schemas';

/** A believable two-window request on the D1 catalogue. */
export function twoWindows(overrides: Partial<CalculateBody> = {}): Record<string, unknown> {
  return {
    laborTierCode: 'STANDARD',
    lineItems: [
      { reference: 'Living room', widthInches: 72.5, dropInches: 60, quantity: 2, fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', motorSkuCode: 'MTR-BATTERY', trimSkuCode: 'TRIM-CASSETTE' },
      { reference: 'Bedroom', widthInches: 35.25, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD' },
    ],
    ...overrides,
  };
}
