import { CURRENT_VERSION } from '../../domain/versions/versions';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

export function createRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    // The OWASP ruleset's JWT rule asks the scheme to say it follows RFC8725's best practices.
    description:
      'Access token from POST /api/v1/auth/login, valid 900 seconds. A JWT handled as RFC8725 (JSON Web Token Best Current Practices) asks: ' +
      'signed with HS256 only (the algorithm is fixed when verifying, never read from the token; `none` is refused), with issuer, audience, subject, ' +
      'expiry, issue time and a unique id checked on every request, and explicitly typed (`typ: JWT`).',
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
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
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
  inlineRequestSchemas(document as unknown as JsonDocument);
  return document;
}

type Json = unknown;
interface JsonDocument {
  paths?: Record<string, Record<string, Json>>;
  components?: { schemas?: Record<string, Json> };
}

const REF_PREFIX = '#/components/schemas/';

/** Every component schema `node` names, and the ones they name in turn. */
function namedFrom(node: Json, schemas: Record<string, Json>, into = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) namedFrom(item, schemas, into);
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(REF_PREFIX)) {
        const name = value.slice(REF_PREFIX.length);
        if (!into.has(name)) {
          into.add(name);
          namedFrom(schemas[name], schemas, into);
        }
      } else namedFrom(value, schemas, into);
    }
  }
  return into;
}

/**
 * A schema that only requests use is written where the request is (inline under `requestBody`),
 * not as a shared component. What is sent and what is answered differ: a field with a `default`
 * may be left out of a request (the server fills it in), while an answer always carries it.
 * OpenAPI tools read a `default` that way only inside a request body; in a shared component they
 * read it as an answer's field, always present (openapi-typescript without options makes such a
 * field required). No component is shared by a request and an answer, so each request schema is
 * inlined at its one use and what an answer names stays a component.
 */
function inlineRequestSchemas(document: JsonDocument): void {
  const schemas = document.components?.schemas;
  if (!schemas) return;
  const requestBodies: { content: Record<string, { schema?: Json }> }[] = [];
  const elsewhere: Json[] = [];
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item)) {
      if (!operation || typeof operation !== 'object') continue;
      for (const [key, value] of Object.entries(operation)) {
        if (key === 'requestBody' && value && typeof value === 'object' && 'content' in value) requestBodies.push(value as (typeof requestBodies)[number]);
        else elsewhere.push(value);
      }
    }
  }
  const answered = namedFrom([elsewhere, (document as { webhooks?: Json }).webhooks], schemas);
  const requestOnly = new Set([...namedFrom(requestBodies, schemas)].filter((name) => !answered.has(name)));
  const inline = (node: Json, trail: readonly string[]): Json => {
    if (Array.isArray(node)) return node.map((item) => inline(item, trail));
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) {
      const name = ref.slice(REF_PREFIX.length);
      // A request schema that names itself stays a reference (none does today).
      if (requestOnly.has(name) && !trail.includes(name)) {
        const { $ref: _ref, ...siblings } = node as Record<string, Json>;
        // Its name stays as the schema's title, for readers and tools that show one.
        return { title: name, ...(inline(schemas[name], [...trail, name]) as object), ...siblings };
      }
      return node;
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value, trail)]));
  };
  for (const body of requestBodies) {
    for (const media of Object.values(body.content)) if (media.schema !== undefined) media.schema = inline(media.schema, []);
  }
  for (const name of requestOnly) if (!namedFrom([requestBodies, elsewhere], schemas).has(name)) delete schemas[name];
}
