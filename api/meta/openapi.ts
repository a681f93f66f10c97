import { CURRENT_VERSION } from '../../domain/versions/versions';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from POST /api/v1/auth/login, valid 900 seconds.',
  });
  return registry;
}

/** The tags operations use, in the order a reader meets them; each operation's tags must be here. */
export const TAGS = [
  { name: 'infrastructure', description: 'Health, the route table, connector readiness and this document. No token.' },
  { name: 'auth', description: 'Log in for a 900-second bearer token; read who you are; accept an invitation, reset or change your password.' },
  { name: 'team', description: "The workspace's users, invitations, roles and deactivation (ADMIN)." },
  { name: 'quotes', description: "Server-side pricing from the tenant's rate card, persisted quotes and their lifecycle (ADMIN, SALES)." },
  { name: 'payments', description: 'Invoices and checkout pages at the payments provider, and its inbound webhook.' },
  { name: 'customer page', description: "The quote's page for the customer (HTML, no login: the emailed link is the key), its PDF, and its accept and decline forms." },
  { name: 'work orders', description: 'Dispatch, the work order status table and each work order’s history.' },
  { name: 'integrations', description: 'Accounting and CRM connections (OAuth consent) and the sync log (ADMIN).' },
  { name: 'webhooks', description: 'Subscriptions to the outbound events, their delivery log and replays (ADMIN).' },
  { name: 'v1 quotes', description: 'The alternate `/v1/quotes` (problem details, Idempotency-Key, plan limits) and the catalogue, customers and price book a quote names (ADMIN, SALES).' },
  { name: 'v1 pricebooks', description: 'The price book as immutable revisions: the current one, every revision and their comparison (ADMIN, SALES); change sets, CSV import and export (publishing ADMIN).' },
  { name: 'organization', description: 'The workspace and its technical contact, emailed when a webhook endpoint is disabled (ADMIN).' },
  { name: 'audit', description: 'The append-only log of every administrative change, field by field, with who made it (ADMIN).' },
  { name: 'Field sync', description: 'Jobs for dispatch boards and devices, their incremental feed, crews, time, materials and change orders. Errors are RFC 9457 problems.' },
  { name: 'Routes', description: 'Daily crew routes: the data routing needs (skills, hours, sites, job schedules), plans that name why a crew cannot take a job, and hand sequences with their violations (docs/routes.md).' },
  { name: 'graphql', description: 'GraphQL over quotes, jobs, work orders, crews and customers, each operation costed in points drawn from the plan bucket (docs/graphql.md); its SDL; GraphiQL outside production.' },
] as const;

export interface DocumentOptions {
  /** Where clients reach this API: PUBLIC_BASE_URL, or `/` (the origin serving the document). */
  serverUrl: string;
}

/** Section 9.3: OpenAPI 3.1.0, generated from the same zod schemas that validate requests. */
export function buildDocument(registry: OpenAPIRegistry, options: DocumentOptions): ReturnType<OpenApiGeneratorV31['generateDocument']> {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Shade Office API',
      version: '1.0.0',
      description:
        'Quoting, dispatch and integrations for window-shade contractors. Amounts are integer cents (CAD) under `/api/` and a JSON number of dollars (at most two decimals) under `/v1/`; exact decimals are strings. ' +
        'Errors: under `/api/` one envelope (`error.code`, `error.message`, `error.details`, `error.request_id`); under `/v1/` RFC 9457 problem details ' +
        '(`application/problem+json`: `type`, `title`, `status`, `detail`, `request_id`, and `errors` by dotted field path for a refused input); GraphQL errors carry `extensions.code`. ' +
        'Paging: `/api/` lists answer a `Link: <...>; rel="next"` header (RFC 8288) to follow until it is absent; `/v1/` lists answer `next_cursor` in the body, passed back as `cursor`, null on the last page; GraphQL lists are connections (`pageInfo.endCursor`). ' +
        'Every cursor is opaque. Limits: `/api/` answers 429 with `Retry-After` per client address; `/v1/` draws from the workspace\'s plan and says so in `X-RateLimit-*` headers. ' +
        `This document describes dated version ${CURRENT_VERSION} (send \`Service-Version\` to pin another; \`GET /api/versions\` lists every version and its changes).`,
      // Not published under an open-source licence: the service and its API are the operator's.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      // D16: the dated version whose shapes this document describes (GET /api/versions lists the others).
      'x-service-version': CURRENT_VERSION,
    },
    servers: [{ url: options.serverUrl, description: options.serverUrl === '/' ? 'The origin that serves this document' : 'This deployment' }],
    tags: TAGS.map((tag) => ({ ...tag })),
  });
}
