import { z } from 'zod';
import { route, type RouteHost } from '../http/route';
import type { Settings } from '../../infra/runtime/settings';
import { CONNECTORS, PROVIDER_SLUGS, readinessOf } from '../../infra/integrations/connectors';

export const ConnectorStatus = z
  .strictObject({
    count: z.number().int().min(0),
    connectors: z.array(
      z.strictObject({
        slug: z.enum(PROVIDER_SLUGS),
        display_name: z.string(),
        platform_ready: z.boolean(),
        readiness: z.enum(['operator_credentials_missing', 'awaiting_tenant_consent', 'platform_account_live']),
        summary: z.string(),
      }),
    ),
  })
  .meta({ id: 'ConnectorStatus' });

const CONNECTOR_STATUS_EXAMPLE: z.input<typeof ConnectorStatus> = {
  count: 3,
  connectors: [
    { slug: 'payments', display_name: 'Payments', platform_ready: true, readiness: 'platform_account_live', summary: "Configured; payments run through the platform's own account." },
    { slug: 'accounting', display_name: 'Accounting', platform_ready: true, readiness: 'awaiting_tenant_consent', summary: 'Configured on the platform; each workspace connects its own account.' },
    { slug: 'crm', display_name: 'CRM', platform_ready: false, readiness: 'operator_credentials_missing', summary: 'The platform operator has not configured this provider yet; no workspace can use it.' },
  ],
};

export function connectorRoutes(host: RouteHost, deps: { settings: Settings }): void {
  route(host, {
    method: 'get',
    path: '/api/connectors',
    operationId: 'listConnectors',
    summary: 'Platform readiness of each provider, in registry order',
    description: 'Whether this deployment can use each provider at all. Reports no tenant rows and names no settings.',
    tags: ['infrastructure'],
    auth: 'none',
    responses: { 200: { description: 'Connector readiness', schema: ConnectorStatus, example: CONNECTOR_STATUS_EXAMPLE } },
    handler: ({ res }) => {
      const connectors = CONNECTORS.map((connector) => {
        const { readiness, summary } = readinessOf(connector, deps.settings);
        return { slug: connector.slug, display_name: connector.display_name, platform_ready: readiness !== 'operator_credentials_missing', readiness, summary };
      });
      res.json({ count: connectors.length, connectors });
    },
  });
}
