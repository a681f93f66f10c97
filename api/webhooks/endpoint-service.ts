import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { badRequest, notFound, providerError, validationFailed } from '../http/errors';
import { WEBHOOK_ENDPOINTS_PER_TENANT, WEBHOOK_ENDPOINT_LIMIT_CONSTRAINT } from '../../db/limits';
import type { Caller } from '../http/request-context';
import type { CredentialCipher } from '../security/credential-cipher';
import type { WebhookDeliveries } from '../temporal/webhook-deliveries';
import { checkUrlForRegistration, type Resolver } from '../../activities/webhooks/address-policy';
import { generateEndpointSecret } from '../../activities/webhooks/signature';
import { secretContext } from './endpoint-secrets';
import type { CreateEndpointBody, UpdateEndpointBody, WebhookEndpoint } from './schemas';

/** D6: the rotated-out secret keeps signing beside the new one for this long. */
export const ROTATION_OVERLAP_HOURS = 24;

interface EndpointRow {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  created_at: Date;
}

const COLUMNS = 'id, url, events, description, status, created_at';
const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  id: row.id,
  url: row.url,
  events: row.events,
  description: row.description,
  status: row.status,
  created_at: new Date(row.created_at).toISOString(),
});

export interface EndpointServiceDeps {
  em: EntityManager;
  cipher: CredentialCipher | undefined;
  allowPrivateNetworks: boolean;
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
    const verdict = await checkUrlForRegistration(url, { allowPrivateNetworks: this.deps.allowPrivateNetworks, ...(this.deps.resolve ? { resolve: this.deps.resolve } : {}) });
    if (!verdict.ok) throw badRequest(verdict.reason);
  }

  async create(caller: Caller, body: CreateEndpointBody): Promise<WebhookEndpoint & { secret: string }> {
    const cipher = this.requireCipher();
    await this.checkUrl(body.url);
    const id = randomUUID();
    const secret = generateEndpointSecret();
    const sealed = cipher.encrypt(secret, secretContext(id));
    const [row] = await inTenant(this.deps.em, caller.organizationId, (tx) =>
      tx.execute<EndpointRow[]>(
        `insert into webhook_endpoints (id, organization_id, url, events, description, status, secret_ciphertext, secret_key_id)
         values (?, app_current_organization(), ?, array(select jsonb_array_elements_text(?::jsonb)), ?, 'enabled', ?, ?) returning ${COLUMNS}`,
        // Lists travel as JSON: the query builder would spread a JS array into separate values.
        [id, body.url, JSON.stringify(body.events), body.description ?? null, sealed.ciphertext, sealed.keyId],
      ),
    ).catch((error: unknown) => {
      // The database counts (db/limits.ts), so that concurrent registrations cannot pass it together.
      if ((error as { constraint?: string }).constraint === WEBHOOK_ENDPOINT_LIMIT_CONSTRAINT) {
        throw validationFailed({ url: `A workspace may have at most ${WEBHOOK_ENDPOINTS_PER_TENANT} webhook endpoints; delete one first.` });
      }
      throw error;
    });
    return { ...toEndpoint(row!), secret };
  }

  list(caller: Caller): Promise<{ data: WebhookEndpoint[] }> {
    return inTenant(this.deps.em, caller.organizationId, async (tx) => ({
      data: (await tx.execute<EndpointRow[]>(`select ${COLUMNS} from webhook_endpoints order by created_at, id`)).map(toEndpoint),
    }));
  }

  async update(caller: Caller, id: string, body: UpdateEndpointBody): Promise<WebhookEndpoint> {
    if (body.url) await this.checkUrl(body.url);
    const { row, reenabled } = await inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const [before] = await tx.execute<EndpointRow[]>(`select ${COLUMNS} from webhook_endpoints where id = ? for update`, [id]);
      if (!before) throw notFound('No such webhook endpoint in this workspace.');
      const [after] = await tx.execute<EndpointRow[]>(
        `update webhook_endpoints set url = coalesce(?, url),
                events = case when ?::jsonb is null then events else array(select jsonb_array_elements_text(?::jsonb)) end,
                description = case when ? then ? else description end,
                status = coalesce(?, status),
                disabled_reason = case when ? = 'disabled' then 'disabled by an administrator' when ? = 'enabled' then null else disabled_reason end,
                failing_since = case when ? = 'enabled' then null else failing_since end,
                updated_at = now()
          where id = ? returning ${COLUMNS}`,
        [body.url ?? null, body.events ? JSON.stringify(body.events) : null, body.events ? JSON.stringify(body.events) : null, body.description !== undefined, body.description ?? null, body.status ?? null, body.status ?? null, body.status ?? null, body.status ?? null, id],
      );
      return { row: after!, reenabled: before.status === 'disabled' && after!.status === 'enabled' };
    });
    // D6: what the endpoint missed while disabled is delivered now.
    if (reenabled) {
      if (!this.deps.deliveries) throw providerError(503, 'The workflow service is not available to replay missed events.');
      await this.deps.deliveries.replayMissed(caller.organizationId, id);
    }
    return toEndpoint(row);
  }

  async rotateSecret(caller: Caller, id: string): Promise<WebhookEndpoint & { secret: string }> {
    const cipher = this.requireCipher();
    const secret = generateEndpointSecret();
    const sealed = cipher.encrypt(secret, secretContext(id));
    const [row] = await inTenant(this.deps.em, caller.organizationId, (tx) =>
      tx.execute<EndpointRow[]>(
        `update webhook_endpoints
            set previous_secret_ciphertext = secret_ciphertext, previous_secret_key_id = secret_key_id,
                previous_secret_expires_at = now() + make_interval(hours => ?),
                secret_ciphertext = ?, secret_key_id = ?, updated_at = now()
          where id = ? returning ${COLUMNS}`,
        [ROTATION_OVERLAP_HOURS, sealed.ciphertext, sealed.keyId, id],
      ),
    );
    if (!row) throw notFound('No such webhook endpoint in this workspace.');
    return { ...toEndpoint(row), secret };
  }

  async remove(caller: Caller, id: string): Promise<void> {
    const deleted = await inTenant(this.deps.em, caller.organizationId, (tx) => tx.execute<{ id: string }[]>('delete from webhook_endpoints where id = ? returning id', [id]));
    if (deleted.length === 0) throw notFound('No such webhook endpoint in this workspace.');
  }

  async attempts(caller: Caller, id: string, limit: number) {
    return inTenant(this.deps.em, caller.organizationId, async (tx) => {
      const [endpoint] = await tx.execute<{ id: string }[]>('select id from webhook_endpoints where id = ?', [id]);
      if (!endpoint) throw notFound('No such webhook endpoint in this workspace.');
      const rows = await tx.execute<
        { id: string; delivery_id: string; event_id: string; event: string; attempt: number; outcome: 'delivered' | 'retryable_failure' | 'permanent_failure'; response_status: number | null; error: string | null; duration_ms: number; response_excerpt: string | null; attempted_at: Date }[]
      >(
        `select id, delivery_id, event_id, event, attempt, outcome, response_status, error, duration_ms, response_excerpt, attempted_at
           from webhook_delivery_attempts where endpoint_id = ? order by attempted_at desc, id desc limit ?`,
        [id, limit],
      );
      return { data: rows.map((r) => ({ ...r, attempted_at: new Date(r.attempted_at).toISOString() })) };
    });
  }

  async replay(caller: Caller, deliveryId: string) {
    if (!this.deps.deliveries) throw providerError(503, 'The workflow service is not available.');
    const next = await this.deps.deliveries.replay(caller.organizationId, deliveryId);
    if (!next) throw notFound('No such delivery in this workspace.');
    return { delivery_id: next.id, event_id: next.event_id, endpoint_id: next.endpoint_id, status: 'pending' as const };
  }
}
