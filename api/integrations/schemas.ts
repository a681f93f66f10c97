import { z } from 'zod';
import { Timestamp } from '../http/common-schemas';
import { CursorParam } from '../http/pagination';
import { PROVIDER_SLUGS } from '../../infra/integrations/connectors';
import { CONNECTION_STATUSES } from '../../db/integrations/connections';

const ProviderName = z.enum(['PAYMENTS', 'ACCOUNTING', 'CRM']);
const Slug = z.enum(PROVIDER_SLUGS);

export const ProviderParams = z.strictObject({ provider: Slug.meta({ description: 'payments, accounting or crm' }) });

/** Section 2.3: the Integration entry, exactly. */
export const IntegrationEntry = z
  .strictObject({
    provider: ProviderName,
    slug: Slug,
    display_name: z.string(),
    configured: z.boolean().meta({ description: "The platform holds the provider's client credentials (and, for accounting and CRM, the credential-encryption key)" }),
    configuration: z.strictObject({
      missing_environment: z.array(z.string()),
      awaiting_tenant_consent: z.boolean(),
      summary: z.string(),
    }),
    connection: z
      .strictObject({
        status: z.enum(CONNECTION_STATUSES),
        external_account_id: z.string().nullable(),
        instance_url: z.string().nullable(),
        scopes: z.array(z.string()),
        connected_at: Timestamp.nullable(),
        last_sync_at: Timestamp.nullable(),
        last_error: z.string().nullable(),
        access_token_expires_at: Timestamp.nullable(),
        refresh_token_expires_at: Timestamp.nullable(),
      })
      .nullable()
      .meta({ description: "The caller's tenant's connection; null when it never connected (always null for payments, the platform's own account)" }),
  })
  .meta({ id: 'Integration' });
export type IntegrationEntry = z.infer<typeof IntegrationEntry>;

export const IntegrationList = z.strictObject({ data: z.array(IntegrationEntry) }).meta({ id: 'IntegrationList' });

export const SyncListQuery = z.strictObject({
  provider: Slug.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: CursorParam,
});
export type SyncListQuery = z.output<typeof SyncListQuery>;

/** Section 2.3: SyncRecord. */
export const SyncRecord = z
  .strictObject({
    id: z.uuid(),
    provider: ProviderName,
    entity_type: z.string(),
    local_id: z.string(),
    external_id: z.string().nullable(),
    status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED', 'SKIPPED']),
    attempts: z.number().int().min(0),
    amount_cents: z.number().int().nullable(),
    last_error: z.string().nullable(),
    synced_at: Timestamp.nullable(),
  })
  .meta({ id: 'SyncRecord' });
export type SyncRecord = z.infer<typeof SyncRecord>;

export const SyncRecordList = z.strictObject({ data: z.array(SyncRecord) }).meta({ id: 'SyncRecordList' });

export const SyncRunListQuery = z.strictObject({
  provider: Slug.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: CursorParam,
});
export type SyncRunListQuery = z.output<typeof SyncRunListQuery>;

/** D18: one scheduled provider sync run. */
export const SyncRun = z
  .strictObject({
    id: z.uuid(),
    provider: ProviderName,
    workflow_id: z.string().meta({ description: 'The Temporal workflow of the run (`provider-sync-<organization>-<provider>-<scheduled time>`)' }),
    started_at: Timestamp,
    finished_at: Timestamp.nullable().meta({ description: 'Null while the run goes on' }),
    seen: z.number().int().min(0).meta({ description: 'Changes read at the provider' }),
    applied: z.number().int().min(0).meta({ description: 'Changes that changed something here (a quote paid or rejected)' }),
    watermark_before: z.string().nullable(),
    watermark_after: z.string().nullable().meta({ description: 'Never past what the run applied' }),
    error: z.string().nullable(),
  })
  .meta({ id: 'SyncRun' });
export type SyncRun = z.infer<typeof SyncRun>;

export const SyncRunList = z.strictObject({ data: z.array(SyncRun) }).meta({ id: 'SyncRunList' });

export const ConnectResult = z
  .strictObject({
    provider: ProviderName,
    authorize_url: z.url(),
    expires_in_seconds: z.number().int().positive().meta({ description: 'How long the state in the URL stays valid (600)' }),
  })
  .meta({ id: 'IntegrationConnect' });

/** Where the person who asks for consent came from: the callback page links back to it. */
export const ConnectQuery = z.strictObject({
  return_url: z
    .url({ protocol: /^https?$/, message: 'Must be an http(s) URL on this deployment or on an origin of CORS_ORIGINS' })
    .max(2000)
    .optional()
    .meta({ description: 'The page the consent began on (on this deployment or an origin of CORS_ORIGINS): the callback page links back to it' }),
});

export const DisconnectResult = z.strictObject({ provider: ProviderName, status: z.literal('DISCONNECTED') }).meta({ id: 'IntegrationDisconnect' });

/**
 * Section 8's callback limits. Not strict: the provider decides what else it appends (Salesforce
 * may add sfdc_community_url), and a consent must not fail over a parameter we do not read.
 */
export const CallbackQuery = z.object({
  code: z.string().min(1).max(2000).optional(),
  state: z.string().min(1).max(2000).optional(),
  realmId: z.string().min(1).max(64).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(500).optional(),
});
export type CallbackQuery = z.output<typeof CallbackQuery>;
