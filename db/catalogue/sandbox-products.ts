import type { ProductContent } from './products';

/**
 * D1 and D14: the products the sandbox tenants sell (both tenants' rate cards carry these SKU
 * codes, db/rate-cards/sandbox-rate-cards.ts). The seed adds any that are missing.
 */
export const SANDBOX_PRODUCTS: readonly ProductContent[] = [
  { sku: 'ROLLER-SCREEN', name: 'Solar screen roller shade', fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD' },
  { sku: 'ROLLER-SCREEN-CASSETTE', name: 'Solar screen roller shade in a cassette', fabricSkuCode: 'FAB-SCREEN-3', hardwareSkuCode: 'HW-ROLLER-STD', trimSkuCode: 'TRIM-CASSETTE' },
  { sku: 'ROLLER-BLACKOUT', name: 'Blackout roller shade', fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-STD' },
  { sku: 'ROLLER-BLACKOUT-HD-FASCIA', name: 'Blackout roller shade, heavy duty, with fascia', fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-HD', trimSkuCode: 'TRIM-FASCIA' },
];
