import { SANDBOX_ROUTE_DATE } from '../../db/routing-sandbox';
import { storeRouteDay } from '../../db/fsm/routes';
import type pg from 'pg';
import { startApi } from '../../scripts/harness/api-harness';
import { sandboxUser } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { SyncRecords } from '../../activities/sync-records';
import { consent, startIntegrationFakes } from '../../scripts/harness/integration-fakes';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { deliverWebhookBatch } from '../../activities/webhooks/delivery-batch';
import { inTenant } from '../../db/tenant-scope';
import { addToSyncRun, beginSyncRun, finishSyncRun, writeWatermark } from '../../db/provider-sync/provider-sync';
import { workerOrm } from './worker-db';
import { startMailCatcher } from '../../scripts/infra/mail-catcher';
import { smtpMailer } from '../../infra/email/mailer';
import { sendEndpointDisabledNotice } from '../../activities/webhooks/disabled-notice';
import { solidPng } from './png';

/**
 * Writes at least one row into every tenant table for the given sandbox tenant, through the API
 * as its users would. The isolation test needs rows of both tenants everywhere; when a new
 * tenant table arrives, add what fills it here.
 */
export async function populateSandboxTenant(owner: pg.Pool, subdomain: 'sandbox' | 'sandbox-alt'): Promise<void> {
  // Integrations: a provider fake to connect to.
  const fakes = await startIntegrationFakes();
  const receiver = await new WebhookReceiver().start();
  const api = await startApi({ env: { ...fakes.env, OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true' } });
  // What the worker would write, written by the worker's code as the worker's role.
  const worker = await workerOrm();
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
    const created = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { quoteId, assignedTechnicianId: tech.id, scheduledDate: '2026-12-01', siteAddress: `1 Isolation Rd, ${subdomain}` } });
    if (created.status !== 201) throw new Error(`populating ${subdomain}: work order answered ${created.status} ${await created.text()}`);
    const workOrderId = ((await created.json()) as { id: string }).id;
    // A webhook endpoint (D6) subscribed to the event the transition below emits.
    const subscribed = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['*'] } });
    if (subscribed.status !== 201) throw new Error(`populating ${subdomain}: webhook endpoint answered ${subscribed.status} ${await subscribed.text()}`);
    const endpointId = ((await subscribed.json()) as { id: string }).id;
    // D20: an invitation (its single-use token) and, with it, an audit event (D22).
    const invited = await api.request('/api/v1/users/invitations', { method: 'POST', token: admin, json: { email: `isolation-invitee-${subdomain}@isolation.test`, full_name: 'Isolation Invitee', role: 'SALES' } });
    if (invited.status !== 201) throw new Error(`populating ${subdomain}: invitation answered ${invited.status} ${await invited.text()}`);
    // A real transition: history and an outbox event.
    const moved = await api.request(`/api/v1/work-orders/${workOrderId}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' } });
    if (moved.status !== 200) throw new Error(`populating ${subdomain}: dispatch answered ${moved.status} ${await moved.text()}`);
    // D14/D15: a customer and a quote through /v1/ with an Idempotency-Key: a revision, a kept key, the tenant's bucket.
    const customer = await api.request('/v1/customers', { method: 'POST', token: sales, json: { name: `V1 ${subdomain}` } });
    if (customer.status !== 201) throw new Error(`populating ${subdomain}: v1 customer answered ${customer.status} ${await customer.text()}`);
    const customerId = ((await customer.json()) as { id: string }).id;
    const v1 = await api.request('/v1/quotes', {
      method: 'POST', token: sales, headers: { 'Idempotency-Key': `populate-${subdomain}` },
      json: { customerId, currency: 'CAD', taxRegion: 'CA-ON', pricebookId: tech.organizationId, lines: [{ sku: 'ROLLER-SCREEN', quantity: 1, configuration: { finishedWidthIn: 48, finishedHeightIn: 60, controlSide: 'left', motorised: false } }] },
    });
    if (v1.status !== 201) throw new Error(`populating ${subdomain}: v1 quote answered ${v1.status} ${await v1.text()}`);
    // Approval (without a worker here) and the sync row its fan-out writes for an unconnected provider.
    const approved = await api.request(`/api/v1/quotes/${quoteId}/approve`, { method: 'POST', token: sales });
    if (approved.status !== 200) throw new Error(`populating ${subdomain}: approve answered ${approved.status} ${await approved.text()}`);
    // The job's time, material and a change order (crews, sites, the sync clock and job history come with the work order).
    const field = async (path: string, json: unknown, expected: number) => {
      const answer = await api.request(path, { method: 'POST', token: admin, json });
      if (answer.status !== expected) throw new Error(`populating ${subdomain}: ${path} answered ${answer.status} ${await answer.text()}`);
      return (await answer.json()) as { change_order_id?: string };
    };
    await field(`/v1/fsm/jobs/${workOrderId}/time-entries`, { technician_id: tech.id, started_at: '2026-12-01T14:00:00Z', ended_at: '2026-12-01T16:00:00Z' }, 201);
    await field(`/v1/fsm/jobs/${workOrderId}/material-draws`, { sku: 'HW-ROLLER-STD', quantity: '1' }, 201);
    const raised = await field(`/v1/fsm/jobs/${workOrderId}/change-orders`, { reason: 'Isolation check change order', labour_hours: 1 }, 201);
    await field(`/v1/fsm/change-orders/${raised.change_order_id}/reject`, { reason: 'Isolation check' }, 200);
    await new SyncRecords(worker.em).skipped({ organizationId: tech.organizationId, quoteId, provider: 'CRM', reason: 'CRM provider not connected' });
    // Without a worker here: the delivery row the fan-out writes, and one real batch (the activity's code) with its attempt's log row.
    const sendDue = (id: string) =>
      deliverWebhookBatch(
        { em: worker.em, cipher: new CredentialCipher(fakes.env.CREDENTIAL_ENCRYPTION_KEY!), allowPrivateNetworks: true },
        { organizationId: tech.organizationId, endpointId: id, token: `populate-${id}`, claim: 10, concurrency: 1, stopAfterFailures: 10, decisions: [] },
      );
    await inTenant(worker.em, tech.organizationId, (tx) =>
      tx.execute(
        `insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, status)
         select app_current_organization(), ?, id, event, 'pending' from outbox_events where envelope->'data'->>'work_order_id' = ?`,
        [endpointId, workOrderId],
      ),
    );
    await sendDue(endpointId);
    // D13: a second endpoint, failing for 72 hours, disabled by a batch's attempt; the one notice of it,
    // sent by the activity through a real SMTP server (the mail catcher).
    const failing = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: receiver.url, events: ['work_order.dispatched'], description: 'failing' } });
    if (failing.status !== 201) throw new Error(`populating ${subdomain}: failing endpoint answered ${failing.status} ${await failing.text()}`);
    const failingId = ((await failing.json()) as { id: string }).id;
    await owner.query(`update webhook_endpoints set failing_since = now() - interval '73 hours' where id = $1`, [failingId]);
    await inTenant(worker.em, tech.organizationId, (tx) =>
      tx.execute(
        `insert into webhook_deliveries (organization_id, endpoint_id, event_id, event, status)
         select app_current_organization(), ?, id, event, 'pending' from outbox_events where envelope->'data'->>'work_order_id' = ?`,
        [failingId, workOrderId],
      ),
    );
    receiver.script({ status: 500 });
    const report = await sendDue(failingId);
    if (!report.disabled) throw new Error(`populating ${subdomain}: the failing endpoint was not disabled (${JSON.stringify(report)})`);
    const catcher = await startMailCatcher();
    const mailer = smtpMailer(catcher.smtpUrl, 'Shade Office <no-reply@shade-office.invalid>');
    try {
      const notice = await sendEndpointDisabledNotice({ em: worker.em, mailer, baseUrl: 'http://127.0.0.1:3000' }, { organizationId: tech.organizationId, ...report.disabled });
      if (notice.status !== 'sent') throw new Error(`populating ${subdomain}: the notice was ${notice.status}`);
    } finally {
      mailer.close();
      await catcher.stop();
    }
    // D18: a provider sync run and its watermark, written by the sync's own queries as the worker's role.
    await inTenant(worker.em, tech.organizationId, async (tx) => {
      await beginSyncRun(tx, { provider: 'CRM', workflowId: `provider-sync-${tech.organizationId}-crm-populate` });
      await writeWatermark(tx, 'CRM', '2026-11-21T16:45:00.000Z');
      await addToSyncRun(tx, { workflowId: `provider-sync-${tech.organizationId}-crm-populate`, seen: 1, applied: 0, watermark: '2026-11-21T16:45:00.000Z' });
      await finishSyncRun(tx, { workflowId: `provider-sync-${tech.organizationId}-crm-populate`, error: null });
    });
    // Completing the job reconciles its draws: its completion invoice row (the workflow that bills it needs no worker here).
    for (const status of ['in_progress', 'complete']) {
      const moved = await api.request(`/v1/fsm/jobs/${workOrderId}`, { method: 'PATCH', token: admin, json: { status } });
      if (moved.status !== 200) throw new Error(`populating ${subdomain}: job ${status} answered ${moved.status} ${await moved.text()}`);
    }
    // D24: a quote sent to its customer, so its page link's row exists (no mail server here: the link is answered either way).
    const toSend = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: sales, json: twoWindows({ persist: true, customer: { name: `Page check ${subdomain}` } }) });
    const sendId = ((await toSend.json()) as { quote_id: string }).quote_id;
    const sent = await api.request(`/api/v1/quotes/${sendId}/send`, { method: 'POST', token: sales });
    if (sent.status !== 200) throw new Error(`populating ${subdomain}: send answered ${sent.status} ${await sent.text()}`);
    // D21: a published price-book revision, with the products it lists.
    const book = (await (await api.request(`/v1/pricebooks/${tech.organizationId}`, { token: admin })).json()) as { revision: number };
    const published = await api.request(`/v1/pricebooks/${tech.organizationId}/revisions`, { method: 'POST', token: admin, json: { base_revision: book.revision, changes: [{ op: 'adjust_costs', component: 'fabric', percent: '1' }] } });
    if (published.status !== 201) throw new Error(`populating ${subdomain}: publishing answered ${published.status} ${await published.text()}`);
    // D24: the contractor's logo, which the customer's page and PDF show.
    const logo = await api.request('/api/v1/organization/logo', { method: 'PUT', token: admin, headers: { 'content-type': 'image/png' }, body: solidPng(120, 40, [0x11, 0x63, 0x29]) });
    if (logo.status !== 200) throw new Error(`populating ${subdomain}: the logo answered ${logo.status} ${await logo.text()}`);
    // D23: a route of the seeded busy day set by hand, and the day's record as a plan stores it (no worker here to run a plan).
    const [routed] = (await owner.query<{ id: string; crew_id: string }>(
      `select id, crew_id from work_orders where organization_id = $1 and scheduled_date = $2 and crew_id is not null and job_status not in ('complete', 'cancelled') order by id limit 1`,
      [tech.organizationId, SANDBOX_ROUTE_DATE],
    )).rows;
    if (!routed) throw new Error(`populating ${subdomain}: the seeded route day has no job with a crew`);
    const sequenced = await api.request(`/v1/fsm/routes/${SANDBOX_ROUTE_DATE}/${routed.crew_id}`, { method: 'PUT', token: admin, json: { stops: [routed.id] } });
    if (sequenced.status !== 200) throw new Error(`populating ${subdomain}: hand sequence answered ${sequenced.status} ${await sequenced.text()}`);
    await inTenant(worker.em, tech.organizationId, (tx) => storeRouteDay(tx, SANDBOX_ROUTE_DATE, { unassigned: [], exclusions: [], travelTimeSource: 'great_circle' }));
    // A consent completed at the accounting fake: the nonce of its state and the connection.
    const connected = await consent(api, admin, 'accounting');
    if (connected.status !== 200) throw new Error(`populating ${subdomain}: accounting consent answered ${connected.status} ${await connected.text()}`);
  } finally {
    await worker.close(true);
    await api.close();
    await fakes.close();
    await receiver.close();
  }
}
