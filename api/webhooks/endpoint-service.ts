import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { badRequest, conflict, notFound, providerUnavailable, validationFailed } from '../../domain/errors/errors';
import { FORMAT_CATALOGUES, type OutboxEventName } from '../../domain/events/catalogue';
import { EVENT_DATA_EXAMPLES } from '../events/examples';
import { WEBHOOK_ENDPOINTS_PER_TENANT, WEBHOOK_ENDPOINT_LIMIT_CONSTRAINT } from '../../db/limits';
import type { Caller } from '../http/request-context';
import type { CredentialCipher } from '../../db/security/credential-cipher';
import type { WebhookDeliveries } from '../../infra/webhooks/deliveries';
import { checkUrlForRegistration, type Resolver } from '../../infra/webhooks/address-policy';
import { generateEndpointSecret } from '../../infra/webhooks/signature';
import { secretContext } from '../../db/webhooks/endpoint-secrets';
import { deleteEndpoint, ENDPOINT_KEYSET, endpointExists, insertEndpoint, listEndpoints, lockEndpoint, rotateEndpointSecret, updateEndpoint, type EndpointRow } from '../../db/webhooks/endpoints';
import { catalogueComplaint, type CreateEndpointBody, type DeliveriesQuery, type RecoverBody, type DeliveryAttempt, type DeliveryListQuery, type EndpointListQuery, type TestEventBody, type UpdateEndpointBody, type WebhookDelivery, type WebhookEndpoint } from './schemas';
import { cursorPosition } from '../http/pagination';
import { pageOf } from '../../db/cursor';
import { ATTEMPT_KEYSET, attemptOutcomesOfLastDay, attemptPage, type AttemptRow } from '../../db/webhooks/attempts';
import { DELIVERY_KEYSET, deliveryPage, type DeliveryListRow } from '../../db/webhooks/deliveries';
import { recordAuditEvent } from '../../db/audit/audit-events';
import { fieldChanges, type AuditActor } from '../../domain/audit/audit-entry';


/** D6: the rotated-out secret keeps signing beside the new one for this long. */
export const ROTATION_OVERLAP_HOURS = 24;

/** What the audit log keeps of an endpoint (D22): its settings, never its secret. */
const audited = (row: EndpointRow) => ({ url: row.url, events: row.events, description: row.description, status: row.status, format: row.format });

export interface AuditContext {
  actor: AuditActor;
  requestId: string;
}

/** Without `outcomes`, an endpoint just made or changed: its figures of the last day are read by the list. */
const toEndpoint = (row: EndpointRow, outcomes?: { attempts: number; delivered: number }): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  status: row.status,
  format: row.format,
  api_version: row.api_version,
  disabled_at: row.disabled_at ? new Date(row.disabled_at).toISOString() : null,
  disabled_reason: row.disabled_reason,
  created_at: new Date(row.created_at).toISOString(),
  attempts_24h: outcomes?.attempts ?? 0,
  // Four decimals: a rate to show, not to compute with.
  success_rate_24h: outcomes && outcomes.attempts > 0 ? Math.round((outcomes.delivered / outcomes.attempts) * 10_000) / 10_000 : null,
});

/** D13: the attempt as the deliveries page shows it, request and response apart. */
const toAttempt = ({ cursor_attempted_at: _position, request_headers, request_body, response_headers, ...row }: AttemptRow & { cursor_attempted_at: string }): DeliveryAttempt => ({
  ...row,
  request: request_headers ? { headers: request_headers, body: request_body ?? '' } : null,
  response: row.response_status === null ? null : { status: row.response_status, headers: response_headers ?? {}, body_excerpt: row.response_excerpt ?? '', duration_ms: row.duration_ms },
  attempted_at: new Date(row.attempted_at).toISOString(),
});

const toDelivery = ({ cursor_created_at: _position, is_test, next_attempt_at, ...row }: DeliveryListRow): WebhookDelivery => ({
  ...row,
  next_attempt_at: next_attempt_at ? new Date(next_attempt_at).toISOString() : null,
  test: is_test,
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
  delivered_at: row.delivered_at ? new Date(row.delivered_at).toISOString() : null,
});

export interface EndpointServiceDeps {
  em: EntityManager;
  cipher: CredentialCipher | undefined;
  allowPrivateNetworks: boolean;
  /** OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK (development): loopback receivers only. */
  allowLoopback?: boolean | undefined;
  resolve?: Resolver | undefined;
  deliveries?: WebhookDeliveries | undefined;
}

/** D6's subscription API, ADMIN only and tenant-scoped (the routes check the role). */
export class WebhookEndpointService {
  constructor(private readonly deps: EndpointServiceDeps) {}

  private requireCipher(): CredentialCipher {
    if (!this.deps.cipher) throw badRequest('Webhook signing secrets cannot be stored: credential encryption is not configured on this deployment.');
    return this.deps.cipher;
  }

  private async checkUrl(url: string): Promise<void> {
    const verdict = await checkUrlForRegistration(url, { allowPrivateNetworks: this.deps.allowPrivateNetworks, allowLoopback: this.deps.allowLoopback ?? false, ...(this.deps.resolve ? { resolve: this.deps.resolve } : {}) });
    if (!verdict.ok) throw badRequest(verdict.reason);
  }

  async create(caller: Caller, body: CreateEndpointBody, apiVersion: string, audit: AuditContext): Promise<WebhookEndpoint & { secret: string }> {
    const cipher = this.requireCipher();
    await this.checkUrl(body.url);
    const id = randomUUID();
    const secret = generateEndpointSecret();
    const sealed = cipher.encrypt(secret, secretContext(id));
    const row = await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const inserted = await insertEndpoint(tx, {
        id,
        url: body.url,
        events: body.events,
        description: body.description ?? null,
        format: body.format,
        // D16: every endpoint pins the version of its registration (an events endpoint's apiVersion).
        apiVersion,
        sealed,
      });
      await recordAuditEvent(tx, caller.organizationId, { ...audit, action: 'webhook_endpoint.created', entityType: 'webhook_endpoint', entityId: id, changes: fieldChanges({}, audited(inserted!)) });
      return inserted;
    }).catch((error: unknown) => {
      // The database counts (db/limits.ts), so that concurrent registrations cannot pass it together.
      if ((error as { constraint?: string }).constraint === WEBHOOK_ENDPOINT_LIMIT_CONSTRAINT) {
        throw validationFailed({ url: `A workspace may have at most ${WEBHOOK_ENDPOINTS_PER_TENANT} webhook endpoints; delete one first.` });
      }
      throw error;
    });
    return { ...toEndpoint(row!), secret };
  }

  /** Oldest first, keyset-paged like every /api/ list (`next_cursor`, and the Link header the route adds); with each endpoint's last day. */
  list(caller: Caller, query: EndpointListQuery): Promise<{ data: WebhookEndpoint[]; next_cursor: string | null }> {
    const after = query.cursor ? cursorPosition(ENDPOINT_KEYSET, query.cursor) : undefined;
    return inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const { rows, next } = pageOf(await listEndpoints(tx, { after, limit: query.limit }), query.limit, ENDPOINT_KEYSET);
      // Only the page's endpoints: a workspace's other endpoints' attempts are not read.
      const outcomes = await attemptOutcomesOfLastDay(tx, rows.map((row) => row.id));
      return { data: rows.map((row) => toEndpoint(row, outcomes.get(row.id))), next_cursor: next };
    });
  }

  async update(caller: Caller, id: string, body: UpdateEndpointBody, audit: AuditContext): Promise<WebhookEndpoint> {
    if (body.url) await this.checkUrl(body.url);
    const { row, reenabled } = await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const before = await lockEndpoint(tx, id);
      if (!before) throw notFound('No such webhook endpoint in this workspace.');
      // D13: new events come from the catalogue of the format fixed at registration.
      const complaint = body.events ? catalogueComplaint(before.format, body.events) : undefined;
      if (complaint) throw validationFailed({ [`events.${complaint.index}`]: complaint.message });
      const after = await updateEndpoint(tx, id, body);
      const changes = fieldChanges(audited(before), audited(after!));
      if (changes.length > 0) await recordAuditEvent(tx, caller.organizationId, { ...audit, action: 'webhook_endpoint.updated', entityType: 'webhook_endpoint', entityId: id, changes });
      return { row: after!, reenabled: before.status === 'disabled' && after!.status === 'enabled' };
    });
    // D6: what the endpoint missed while disabled is delivered now.
    if (reenabled) {
      if (!this.deps.deliveries) throw providerUnavailable('The workflow service is not available to replay missed events.');
      await this.deps.deliveries.replayMissed(caller.organizationId, id);
    }
    return toEndpoint(row);
  }

  async rotateSecret(caller: Caller, id: string, audit: AuditContext): Promise<WebhookEndpoint & { secret: string }> {
    const cipher = this.requireCipher();
    const secret = generateEndpointSecret();
    const sealed = cipher.encrypt(secret, secretContext(id));
    const row = await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const rotated = await rotateEndpointSecret(tx, id, sealed, ROTATION_OVERLAP_HOURS);
      // D22: that the secret rotated, never the secret.
      if (rotated) await recordAuditEvent(tx, caller.organizationId, { ...audit, action: 'webhook_endpoint.secret_rotated', entityType: 'webhook_endpoint', entityId: id, changes: [] });
      return rotated;
    });
    if (!row) throw notFound('No such webhook endpoint in this workspace.');
    return { ...toEndpoint(row), secret };
  }

  async remove(caller: Caller, id: string, audit: AuditContext): Promise<void> {
    const deleted = await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const before = await lockEndpoint(tx, id);
      if (!before) return false;
      await deleteEndpoint(tx, id);
      await recordAuditEvent(tx, caller.organizationId, { ...audit, action: 'webhook_endpoint.deleted', entityType: 'webhook_endpoint', entityId: id, changes: fieldChanges(audited(before), {}) });
      return true;
    });
    if (!deleted) throw notFound('No such webhook endpoint in this workspace.');
  }

  /**
   * A test event to one endpoint (the deliveries page's "Send test event"): the example data of an
   * event of its format and subscription, delivered to it alone, signed and retried like any other.
   */
  async sendTestEvent(caller: Caller, id: string, body: TestEventBody): Promise<{ delivery_id: string; event_id: string; event: string; status: 'pending' }> {
    if (!this.deps.deliveries) throw providerUnavailable('The workflow service is not available to deliver a test event.');
    let chosen = '';
    const delivery = await this.deps.deliveries.sendTest(caller.organizationId, id, (endpoint) => {
      if (endpoint.status !== 'enabled') throw conflict('The endpoint is disabled: enable it first.');
      const catalogue = FORMAT_CATALOGUES[endpoint.format];
      const subscribed = catalogue.filter((name) => endpoint.events.includes('*') || endpoint.events.includes(name));
      const event = body.event ?? subscribed[0];
      if (!event || !subscribed.includes(event)) throw validationFailed({ event: `Must be an event this endpoint receives: ${subscribed.join(', ') || 'none'}.` });
      chosen = event;
      return { event: event as OutboxEventName, data: EVENT_DATA_EXAMPLES[event as OutboxEventName] };
    });
    if (!delivery) throw notFound('No such webhook endpoint in this workspace.');
    return { delivery_id: delivery.id, event_id: delivery.event_id, event: chosen, status: 'pending' };
  }

  /** The endpoint's attempt log, newest first, keyset-paged on (attempted_at, id). */
  async attempts(caller: Caller, id: string, query: DeliveriesQuery) {
    const after = query.cursor ? cursorPosition(ATTEMPT_KEYSET, query.cursor) : undefined;
    return inTenant(this.deps.em, caller.organizationId, async (tx) => {
      if (!(await endpointExists(tx, id))) throw notFound('No such webhook endpoint in this workspace.');
      const rows = await attemptPage(tx, id, after, query.limit, { deliveryId: query.delivery_id });
      const { rows: page, next } = pageOf(rows, query.limit, ATTEMPT_KEYSET);
      return { data: page.map(toAttempt), next };
    });
  }

  /** D13: the workspace's deliveries, newest first, keyset-paged on (created_at, id). */
  async deliveries(caller: Caller, query: DeliveryListQuery): Promise<{ data: WebhookDelivery[]; next: string | null }> {
    const after = query.cursor ? cursorPosition(DELIVERY_KEYSET, query.cursor) : undefined;
    return inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const rows = await deliveryPage(tx, { endpointId: query.endpoint_id, status: query.status, event: query.event }, after, query.limit);
      const { rows: page, next } = pageOf(rows, query.limit, DELIVERY_KEYSET);
      return { data: page.map(toDelivery), next };
    });
  }

  /** Svix-style recovery of what the endpoint failed since `since` (docs/webhooks.md), audited. */
  async recover(caller: Caller, id: string, body: RecoverBody, audit: AuditContext): Promise<{ endpoint_id: string; since: string; recovered: number; status: 'pending' }> {
    if (Date.parse(body.since) > Date.now()) throw validationFailed({ since: 'Must not be in the future.' });
    if (!this.deps.deliveries) throw providerUnavailable('The workflow service is not available to re-send failed events.');
    const since = new Date(body.since).toISOString();
    const recovered = await this.deps.deliveries.recover(caller.organizationId, id, since, {
      check: (endpoint) => {
        if (endpoint.status !== 'enabled') throw conflict('The endpoint is disabled: enable it, which delivers what it missed, then recover.');
      },
      // D22: who asked, since when, and how many were re-sent.
      record: (tx, rows) =>
        recordAuditEvent(tx, caller.organizationId, {
          ...audit,
          action: 'webhook_endpoint.recovered',
          entityType: 'webhook_endpoint',
          entityId: id,
          changes: [
            { field: 'since', before: null, after: since },
            { field: 'recovered', before: null, after: rows.length },
          ],
        }),
    });
    if (!recovered) throw notFound('No such webhook endpoint in this workspace.');
    return { endpoint_id: id, since, recovered: recovered.length, status: 'pending' };
  }

  async replay(caller: Caller, deliveryId: string) {
    if (!this.deps.deliveries) throw providerUnavailable('The workflow service is not available.');
    const next = await this.deps.deliveries.replay(caller.organizationId, deliveryId);
    if (!next) throw notFound('No such delivery in this workspace.');
    return { delivery_id: next.id, event_id: next.event_id, endpoint_id: next.endpoint_id, status: 'pending' as const };
  }
}
