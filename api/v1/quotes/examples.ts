import { priceQuote } from '../../../domain/pricing/engine';
import { buildRateCardSnapshot } from '../../../domain/pricing/rate-card';
import { SANDBOX_RATE_CARD } from '../../../db/rate-cards/sandbox-rate-cards';
import { SANDBOX_PRODUCTS } from '../../../db/catalogue/sandbox-products';
import { SANDBOX_ADMIN_ID, SANDBOX_ORGANIZATION_ID } from '../../auth/examples';
import { presentV1Quote } from './v1-quote-service';
import type { QuoteBody } from './schemas';

/**
 * Examples for the OpenAPI document of `/v1/`, on the sandbox's rate card and catalogue (D1,
 * D14): the quote shown is what the engine and the tax table make of the request shown.
 */
export const V1_CUSTOMER_ID = '6f1e2d3c-4b5a-4978-8a6b-5c4d3e2f1a0b';
const REVISION = '2026-11-01T00:00:00.000Z';

export const V1_QUOTE_REQUEST_EXAMPLE = {
  customerId: V1_CUSTOMER_ID,
  currency: 'CAD',
  taxRegion: 'CA-ON',
  pricebookId: SANDBOX_ORGANIZATION_ID,
  lines: [
    { sku: 'ROLLER-SCREEN', quantity: 2, configuration: { finishedWidthIn: 72.5, finishedHeightIn: 60, controlSide: 'left', motorised: true, motorSku: 'MTR-BATTERY' } },
    { sku: 'ROLLER-BLACKOUT-HD-FASCIA', quantity: 1, configuration: { finishedWidthIn: 35.25, finishedHeightIn: 48, controlSide: 'right', motorised: false } },
  ],
} satisfies QuoteBody;

const card = buildRateCardSnapshot({ revision: REVISION, settings: SANDBOX_RATE_CARD.settings, skus: SANDBOX_RATE_CARD.skus, labourTiers: SANDBOX_RATE_CARD.labourTiers });
const product = (sku: string) => SANDBOX_PRODUCTS.find((p) => p.sku === sku)!;
const result = priceQuote({
  request: {
    laborTierCode: 'STANDARD',
    lineItems: V1_QUOTE_REQUEST_EXAMPLE.lines.map((line) => ({
      widthInches: line.configuration.finishedWidthIn,
      dropInches: line.configuration.finishedHeightIn,
      quantity: line.quantity,
      fabricSkuCode: product(line.sku).fabricSkuCode,
      hardwareSkuCode: product(line.sku).hardwareSkuCode,
      ...('motorSku' in line.configuration ? { motorSkuCode: line.configuration.motorSku } : {}),
      ...(product(line.sku).trimSkuCode ? { trimSkuCode: product(line.sku).trimSkuCode } : {}),
    })),
  },
  rateCard: card,
  overrideAuthorised: false,
});

export const V1_QUOTE_EXAMPLE = presentV1Quote({
  id: '3c9a7e51-2f4b-4d6a-8c1e-5b7d9f0a2c4e',
  quoteNumber: 1042,
  status: 'DRAFT',
  revision: 1,
  createdAt: new Date('2026-11-20T15:04:05.000Z'),
  caller: { userId: SANDBOX_ADMIN_ID, organizationId: SANDBOX_ORGANIZATION_ID, role: 'ADMIN', email: 'admin@sandbox.test' },
  body: V1_QUOTE_REQUEST_EXAMPLE,
  priced: { result, pricebookRevision: REVISION },
});

export const V1_PRODUCT_PAGE_EXAMPLE = {
  data: SANDBOX_PRODUCTS.slice(0, 2).map((p, index) => ({
    id: ['0d1c2b3a-4f5e-4a6b-9c8d-7e6f5a4b3c2d', '1e2d3c4b-5a6f-4b7c-8d9e-0f1a2b3c4d5e'][index]!,
    sku: p.sku,
    name: p.name,
    components: { fabricSku: p.fabricSkuCode, hardwareSku: p.hardwareSkuCode, trimSku: p.trimSkuCode ?? null },
  })),
  next_cursor: null,
  has_more: false,
};

export const V1_CUSTOMER_EXAMPLE = { id: V1_CUSTOMER_ID, name: 'Jordan Rivera', email: 'jordan@example.test', createdAt: '2026-11-20T15:00:00.000Z' };
export const V1_PRICEBOOKS_EXAMPLE = { data: [{ id: SANDBOX_ORGANIZATION_ID, revision: REVISION, currency: 'CAD' as const }] };
