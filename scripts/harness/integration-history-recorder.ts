import type { temporal } from '@temporalio/proto';
import OAuthClient from 'intuit-oauth';
import { startApi } from './api-harness';
import { createTenant, ownerPool } from './owner-db';
import { startTemporalHarness } from './temporal-harness';
import { consent, startIntegrationFakes, storedTokens, workerIntegrations } from './integration-fakes';
import { faults } from '../sandboxes/faults';
import { DEFAULT_QBO_CLIENT } from '../sandboxes/quickbooks-fake';
import { IntegrationWorkflows } from '../../infra/temporal/integration-workflows';
import { integrationRefreshWorkflowId } from '../../infra/temporal/contracts';
import { waitUntil } from './wait-until';

type History = temporal.api.history.v1.IHistory;


/**
 * Runs the token refresh workflow through each of its paths against the provider fakes and
 * returns the histories that test/unit/workflow-replay.test.ts replays: refreshing until it
 * continues as new, ending EXPIRED after a revocation, ending on a disconnect, and marking
 * ERROR through an outage then ending on a disconnect while it waits to try again.
 * scripts/record-histories.ts writes them to test/histories like the approval ones.
 */
export async function recordIntegrationHistories(): Promise<Record<string, History>> {
  const owner = ownerPool();
  const fakes = await startIntegrationFakes({ qbo: { accessTokenTtlSeconds: 2 } });
  const harness = await startTemporalHarness();
  const api = await startApi({ env: fakes.env, integrationWorkflows: new IntegrationWorkflows(harness.client, { taskQueue: harness.taskQueue, subdomains: harness.subdomains, timing: { retryScale: 0.005 }, roundsPerRun: 2 }) });
  await harness.startWorker({ integrations: workerIntegrations(api) });
  try {
    const tenant = await createTenant(owner, { admin: 'ADMIN' });
    const token = await api.tokenFor(tenant.users.admin!);
    const status = async (provider: string) =>
      (await owner.query<{ status: string }>('select status from integration_connections where organization_id = $1 and provider = $2', [tenant.id, provider])).rows[0]?.status;
    const handle = (provider: 'ACCOUNTING' | 'CRM') => harness.client.workflow.getHandle(integrationRefreshWorkflowId({ organizationId: tenant.id, provider }));

    // Accounting: refreshes every 1.5 s; the first run continues as new after two rounds.
    if ((await consent(api, token, 'accounting')).status !== 200) throw new Error('accounting consent failed');
    const firstRun = (await handle('ACCOUNTING').describe()).runId;
    await waitUntil('continue-as-new', async () => (await harness.client.workflow.getHandle(handle('ACCOUNTING').workflowId, firstRun).describe()).status.name === 'CONTINUED_AS_NEW');
    const continued = await harness.client.workflow.getHandle(handle('ACCOUNTING').workflowId, firstRun).fetchHistory();
    // Then the grant is revoked at the provider: EXPIRED, and the run ends.
    const stored = await storedTokens(owner, fakes.env, tenant.id, 'ACCOUNTING');
    await new OAuthClient({ environment: 'sandbox', clientId: DEFAULT_QBO_CLIENT.clientId, clientSecret: DEFAULT_QBO_CLIENT.clientSecret, redirectUri: 'x' }).revoke({ refresh_token: stored!.refreshToken });
    await handle('ACCOUNTING').result();
    const expired = await handle('ACCOUNTING').fetchHistory();

    // CRM: connected, then disconnected while the workflow waits for the next refresh.
    if ((await consent(api, token, 'crm')).status !== 200) throw new Error('crm consent failed');
    await api.request('/api/v1/integrations/crm', { method: 'DELETE', token });
    await handle('CRM').result();
    const disconnected = await handle('CRM').fetchHistory();

    // Accounting again, through an outage: ERROR, then a disconnect during the wait to retry.
    if ((await consent(api, token, 'accounting')).status !== 200) throw new Error('accounting consent failed');
    const outage = fakes.qbo.faults.inject({ method: 'POST', path: '/oauth2/v1/tokens/bearer', times: 10_000, action: faults.unavailable() });
    await waitUntil('ERROR', async () => (await status('ACCOUNTING')) === 'ERROR');
    await api.request('/api/v1/integrations/accounting', { method: 'DELETE', token });
    await handle('ACCOUNTING').result();
    outage.cancel();
    const errored = await handle('ACCOUNTING').fetchHistory();

    return {
      'integration-token-refresh-continued': continued,
      'integration-token-refresh-expired': expired,
      'integration-token-refresh-disconnected': disconnected,
      'integration-token-refresh-error-then-disconnected': errored,
    };
  } finally {
    await api.close();
    await harness.close();
    await fakes.close();
    await owner.end();
  }
}
