import type { temporal } from '@temporalio/proto';
import { startApi } from './api-harness';
import { createTenant, ownerPool } from './owner-db';
import { startTemporalHarness } from './temporal-harness';
import { RoutePlans } from '../../infra/temporal/route-plans';
import { routePlanWorkflowId } from '../../infra/temporal/contracts';

type History = temporal.api.history.v1.IHistory;

/**
 * Runs D23's route plan through its applying path (load, solve, apply) for a tenant with a depot,
 * one crew and two located jobs, and returns its history for test/unit/workflow-replay.test.ts.
 */
export async function recordRouteHistories(): Promise<Record<string, History>> {
  const owner = ownerPool();
  const harness = await startTemporalHarness();
  await harness.startWorker();
  const api = await startApi({ routePlans: new RoutePlans(harness.client, { taskQueue: harness.taskQueue, routingTaskQueue: harness.routingTaskQueue, subdomains: harness.subdomains }) });
  try {
    const tenant = await createTenant(owner, { admin: 'ADMIN', tech: 'TECHNICIAN' });
    await owner.query('update organizations set depot_lat = 43.6532, depot_lon = -79.3832 where id = $1', [tenant.id]);
    const token = await api.tokenFor(tenant.users.admin!);
    const call = async (method: string, path: string, json: unknown) => {
      const res = await api.request(path, { method, token, json });
      if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as Record<string, unknown>;
    };
    const date = '2026-12-03';
    for (const [i, place] of [{ lat: 43.6677, lon: -79.3948 }, { lat: 43.7001, lon: -79.4163 }].entries()) {
      const order = await call('POST', '/api/v1/work-orders', { assignedTechnicianId: tenant.users.tech!.id, scheduledDate: date, siteAddress: `${i + 1} History Ave` });
      const job = await (await api.request(`/v1/fsm/jobs/${order.id as string}`, { token })).json() as { site: { site_id: string } };
      await call('PATCH', `/v1/fsm/sites/${job.site.site_id}`, place);
    }
    await call('POST', `/v1/fsm/routes/${date}/plan`, { mode: 'optimize' });
    return { 'route-plan-applied': await harness.client.workflow.getHandle(routePlanWorkflowId(tenant.id, date)).fetchHistory() };
  } finally {
    await api.close();
    await harness.close();
    await owner.end();
  }
}
