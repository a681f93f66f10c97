import { z } from 'zod';
import { route, type RouteHost } from '../http/route';
import type { Settings } from '../../activities/runtime/settings';
import { CONNECTORS, PROVIDER_SLUGS, readinessOf } from '../../activities/integrations/connectors';

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

export function connectorRoutes(host: RouteHost, deps: { settings: Settings }): void {
  route(host, {
    method: 'get',
    path: '/api/connectors',
    summary: 'Platform readiness of each provider (D9), in registry order',
    tags: ['infrastructure'],
    auth: 'none',
    responses: { 200: { description: 'Connector readiness', schema: ConnectorStatus } },
    handler: ({ res }) => {
      const connectors = CONNECTORS.map((connector) => {
        const { readiness, summary } = readinessOf(connector, deps.settings);
        return { slug: connector.slug, display_name: connector.display_name, platform_ready: readiness !== 'operator_credentials_missing', readiness, summary };
      });
      res.json({ count: connectors.length, connectors });
    },
  });
}
