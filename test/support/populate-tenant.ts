import type pg from 'pg';
import { startApi } from './api-harness';
import { sandboxUser } from './owner-db';
import { twoWindows } from './quote-requests';
import { SyncRecords } from '../../activities/sync-records';

/**
 * Writes at least one row into every tenant table for the given sandbox tenant, through the API
 * as its users would. The isolation test needs rows of both tenants everywhere; when a new
 * tenant table arrives, add what fills it here.
 */
export async function populateSandboxTenant(owner: pg.Pool, subdomain: 'sandbox' | 'sandbox-alt'): Promise<void> {
  const api = await startApi();
  try {
    const sales = await api.tokenFor(await sandboxUser(owner, subdomain, 'sales@sandbox.test'));
    const res = await api.request('/api/v1/quotes/calculate', {
      method: 'POST',
      token: sales,
      json: twoWindows({ persist: true, customer: { name: `Isolation check ${subdomain}`, email: `isolation@${subdomain}.test` } }),
    });
    if (res.status !== 200) throw new Error(`populating ${subdomain}: calculate answered ${res.status} ${await res.text()}`);
    const quoteId = ((await res.json()) as { quote_id: string }).quote_id;
    const admin = await api.tokenFor(await sandboxUser(owner, subdomain, 'admin@sandbox.test'));
    const tech = await sandboxUser(owner, subdomain, 'tech@sandbox.test');
    const created = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { quoteId, assignedTechnicianId: tech.id, scheduledDate: '2026-12-01' } });
    if (created.status !== 201) throw new Error(`populating ${subdomain}: work order answered ${created.status} ${await created.text()}`);
    const workOrderId = ((await created.json()) as { id: string }).id;
    // A real transition: history and an outbox event.
    const moved = await api.request(`/api/v1/work-orders/${workOrderId}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' } });
    if (moved.status !== 200) throw new Error(`populating ${subdomain}: dispatch answered ${moved.status} ${await moved.text()}`);
    // Approval (without a worker here) and the sync row its fan-out writes for an unconnected provider.
    const approved = await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: sales });
    if (approved.status !== 200) throw new Error(`populating ${subdomain}: approve answered ${approved.status} ${await approved.text()}`);
    await new SyncRecords(api.orm.em).skipped({ organizationId: tech.organizationId, quoteId, provider: 'CRM', reason: 'CRM provider not connected' });
  } finally {
    await api.close();
  }
}
