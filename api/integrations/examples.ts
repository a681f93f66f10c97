import type { z } from 'zod';
import type { ConnectResult, DisconnectResult, IntegrationList, SyncRecord, SyncRecordList, SyncRunList } from './schemas';
import { renderCallbackPage } from './callback-page';
import { EXAMPLE_QUOTE_ID } from '../quotes/examples';

/** Examples for the OpenAPI document: payments live, accounting connected, CRM awaiting consent. */
export const INTEGRATION_LIST_EXAMPLE: z.input<typeof IntegrationList> = {
  data: [
    {
      provider: 'PAYMENTS',
      slug: 'payments',
      display_name: 'Payments',
      configured: true,
      configuration: { missing_environment: [], awaiting_tenant_consent: false, summary: "Configured; payments run through the platform's own account." },
      connection: null,
    },
    {
      provider: 'ACCOUNTING',
      slug: 'accounting',
      display_name: 'Accounting',
      configured: true,
      configuration: { missing_environment: [], awaiting_tenant_consent: false, summary: 'Connected: approved quotes sync to this workspace’s account.' },
      connection: {
        status: 'CONNECTED',
        external_account_id: '9341452879364510',
        instance_url: 'https://sandbox-quickbooks.api.intuit.com',
        scopes: ['com.intuit.quickbooks.accounting'],
        connected_at: '2026-11-18T14:02:11.000Z',
        last_sync_at: '2026-11-21T16:45:09.000Z',
        last_error: null,
        access_token_expires_at: '2026-11-23T10:15:00.000Z',
        refresh_token_expires_at: '2027-02-26T14:02:11.000Z',
      },
    },
    {
      provider: 'CRM',
      slug: 'crm',
      display_name: 'CRM',
      configured: true,
      configuration: { missing_environment: [], awaiting_tenant_consent: true, summary: 'Configured on the platform; each workspace connects its own account.' },
      connection: null,
    },
  ],
};

export const SYNC_RECORD_EXAMPLE: z.input<typeof SyncRecord> = {
  id: 'e1c3a5b7-9d2f-4e6a-8b0c-2d4f6a8c0e3b',
  provider: 'PAYMENTS',
  entity_type: 'invoice',
  local_id: EXAMPLE_QUOTE_ID,
  external_id: 'in_1QdXk2Lz8vTn4pRa9sEyWbHc',
  status: 'SUCCEEDED',
  attempts: 1,
  amount_cents: 375_058,
  last_error: null,
  synced_at: '2026-11-21T16:45:05.000Z',
};

export const SYNC_RECORD_LIST_EXAMPLE: z.input<typeof SyncRecordList> = {
  data: [
    SYNC_RECORD_EXAMPLE,
    { ...SYNC_RECORD_EXAMPLE, id: 'f2d4b6c8-0e3a-4f7b-9c1d-3e5a7b9d1f4c', provider: 'ACCOUNTING', external_id: '148', synced_at: '2026-11-21T16:45:07.000Z' },
    { ...SYNC_RECORD_EXAMPLE, id: 'a3e5c7d9-1f4b-4a8c-8d2e-4f6b8c0e2a5d', provider: 'CRM', entity_type: 'opportunity', external_id: null, status: 'SKIPPED', attempts: 0, amount_cents: null, last_error: 'CRM provider not connected', synced_at: null },
  ],
};

export const SYNC_RUN_LIST_EXAMPLE: z.input<typeof SyncRunList> = {
  data: [
    {
      id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
      provider: 'ACCOUNTING',
      workflow_id: 'provider-sync-8a0e4b9c-2f6d-4e1a-9b3c-5d7e9f1a3b5c-accounting-2026-11-21T16:45:00Z',
      started_at: '2026-11-21T16:45:00.120Z',
      finished_at: '2026-11-21T16:45:01.480Z',
      seen: 3,
      applied: 1,
      watermark_before: '2026-11-21T16:29:58.000Z',
      watermark_after: '2026-11-21T16:44:12.000Z',
      error: null,
    },
    {
      id: 'd2e3f4a5-b6c7-4d8e-9f0a-1b2c3d4e5f6a',
      provider: 'PAYMENTS',
      workflow_id: 'provider-sync-8a0e4b9c-2f6d-4e1a-9b3c-5d7e9f1a3b5c-payments-2026-11-21T16:45:00Z',
      started_at: '2026-11-21T16:45:00.090Z',
      finished_at: '2026-11-21T16:45:09.310Z',
      seen: 0,
      applied: 0,
      watermark_before: 'evt_1QabcDEFghiJKLmn',
      watermark_after: 'evt_1QabcDEFghiJKLmn',
      error: 'payments provider unavailable: 503 api_error: injected outage',
    },
  ],
};

export const CONNECT_RESULT_EXAMPLE: z.input<typeof ConnectResult> = {
  provider: 'ACCOUNTING',
  authorize_url: `https://appcenter.intuit.com/connect/oauth2?client_id=ABc1dEf2GhI3jKl4MnO5pQr6StU7vWx8YzA9bCd0&response_type=code&scope=com.intuit.quickbooks.accounting&redirect_uri=${encodeURIComponent('https://shades.example.test/api/v1/integrations/accounting/callback')}&state=eyJhbGciOiJIUzI1NiJ9.c3RhdGU.c2ln`,
  expires_in_seconds: 600,
};

export const DISCONNECT_RESULT_EXAMPLE: z.input<typeof DisconnectResult> = { provider: 'ACCOUNTING', status: 'DISCONNECTED' };

/** The callback's pages, as it renders them. */
export const CALLBACK_PAGE_EXAMPLES = {
  connected: renderCallbackPage({ kind: 'connected', providerName: 'Accounting', accountId: '9341452879364510' }).html,
  badRequest: renderCallbackPage({ kind: 'bad_request', reason: 'This consent link has expired.' }).html,
  failed: renderCallbackPage({ kind: 'failed', requestId: '4f8c2d1e-7b3a-4c5d-9e6f-0a1b2c3d4e5f' }).html,
  providerRefused: renderCallbackPage({ kind: 'provider_refused', providerName: 'Accounting', reason: 'The provider did not accept the authorisation code.' }).html,
  rateLimited: renderCallbackPage({ kind: 'rate_limited', retryAfterSeconds: 42 }).html,
};
