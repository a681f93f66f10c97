import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type Stripe from 'stripe';
import { inTenant } from '../../db/tenant-scope';
import type { SyncProvider } from '../../db/sync-records';
import { addToSyncRun, beginSyncRun, finishSyncRun, readWatermark, writeWatermark } from '../../db/provider-sync/provider-sync';
import { IntegrationConnections } from '../../infra/integrations/connection-store';
import { ProviderCredentials, type IntegrationDependencies } from '../integrations';
import { classifyQuickBooksError, classifySalesforceError, classifyStripeError } from '../providers/failure';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';
import type { ProviderSyncSchedules } from '../../infra/temporal/provider-sync-schedules';
import { accountingPage, crmPage, paymentsPage, SYNC_PAGE_SIZE, type Page } from './sources';

/** What the sync activities need beyond the approval's: the schedules (to pause one) and the lookback. */
export interface ProviderSyncDependencies {
  schedules?: ProviderSyncSchedules | undefined;
  /** How far back a first run (no watermark yet) looks, in days; default 30 (what Stripe keeps). */
  lookbackDays?: number;
  /** Changes per provider page; default SYNC_PAGE_SIZE. */
  pageSize?: number;
}

export interface SyncRunRef {
  organizationId: string;
  provider: SyncProvider;
  workflowId: string;
}

export type SyncStart = { usable: true; watermarkBefore: string | null } | { usable: false; reason: string };
export interface SyncPageResult {
  seen: number;
  applied: number;
  watermark: string | null;
  more: boolean;
}

/**
 * D18's activities (workflows/provider-sync.ts): a run begins (is the provider usable? the run's
 * row, once per workflow id), pages (one provider page fetched, then applied with its watermark
 * and the run's counters in one tenant transaction), and finishes (its error, if any).
 */
export function createProviderSyncActivities(deps: {
  em: EntityManager;
  logger: Logger;
  payments: Stripe | undefined;
  integrations: IntegrationDependencies;
  providerSync?: ProviderSyncDependencies | undefined;
}) {
  const connections = new IntegrationConnections(deps.em, deps.integrations.cipher);
  const credentials = new ProviderCredentials(connections, deps.integrations.providers);
  const lookbackDays = deps.providerSync?.lookbackDays ?? 30;
  const pageSize = deps.providerSync?.pageSize ?? SYNC_PAGE_SIZE;

  async function unusable(ref: SyncRunRef): Promise<string | undefined> {
    if (ref.provider === 'PAYMENTS') return deps.payments ? undefined : 'payments provider not configured on the platform';
    if (!deps.integrations.providers[ref.provider]) return `${ref.provider.toLowerCase()} provider not configured on the platform`;
    const status = (await connections.schedule({ organizationId: ref.organizationId, provider: ref.provider })).status;
    return status === 'CONNECTED' || status === 'ERROR' ? undefined : `${ref.provider.toLowerCase()} connection is ${status ?? 'missing'}`;
  }

  async function fetchPage(ref: SyncRunRef, watermark: string | null): Promise<Page> {
    const now = Date.now();
    switch (ref.provider) {
      case 'PAYMENTS':
        try {
          return await paymentsPage(deps.payments!, { organizationId: ref.organizationId, watermark, lookbackDays, now, pageSize });
        } catch (error) {
          throw classifyStripeError(error);
        }
      case 'ACCOUNTING': {
        const provider = deps.integrations.providers.ACCOUNTING!;
        try {
          return await credentials.withFreshToken({ organizationId: ref.organizationId, provider: 'ACCOUNTING' }, (session) =>
            accountingPage(provider.client({ accessToken: session.accessToken, realmId: session.externalAccountId }), {
              realmId: session.externalAccountId,
              baseUrl: session.instanceUrl ?? provider.apiBaseUrl,
              watermark,
              now,
            }),
          );
        } catch (error) {
          throw classifyQuickBooksError(error);
        }
      }
      case 'CRM': {
        const provider = deps.integrations.providers.CRM!;
        try {
          return await credentials.withFreshToken({ organizationId: ref.organizationId, provider: 'CRM' }, (session) =>
            crmPage(provider.connection({ accessToken: session.accessToken, instanceUrl: session.instanceUrl! }), { watermark, now, lookbackDays, pageSize }),
          );
        } catch (error) {
          throw classifySalesforceError(error);
        }
      }
    }
  }

  return {
    async beginProviderSync(ref: SyncRunRef): Promise<SyncStart> {
      const reason = await unusable(ref);
      const run = await inTenant(deps.em, ref.organizationId, (tx) => beginSyncRun(tx, ref));
      if (!reason) return { usable: true, watermarkBefore: run.watermark_before };
      // D18: a connection that stopped being usable pauses its schedule; reconnecting resumes it.
      await deps.providerSync?.schedules?.pause({ organizationId: ref.organizationId, provider: ref.provider }, reason);
      return { usable: false, reason };
    },

    async syncProviderPage(ref: SyncRunRef): Promise<SyncPageResult> {
      const log = deps.logger.child({ activity: 'syncProviderPage', organization_id: ref.organizationId, provider: ref.provider, attempt: Context.current().info.attempt });
      const watermark = await inTenant(deps.em, ref.organizationId, (tx) => readWatermark(tx, ref.provider));
      const page = await fetchPage(ref, watermark);
      return inTenant(deps.em, ref.organizationId, async (tx) => {
        // One sync per tenant and provider at a time: a watermark moved meanwhile means this page is stale.
        const current = await readWatermark(tx, ref.provider, { lock: true });
        if (current !== watermark) throw ApplicationFailure.create({ message: 'the watermark moved while the page was read; reading again', type: FAILURE_TYPES.providerUnavailable });
        let applied = 0;
        for (const change of page.changes) if (await change.apply(tx)) applied++;
        await writeWatermark(tx, ref.provider, page.watermark);
        await addToSyncRun(tx, { workflowId: ref.workflowId, seen: page.seen, applied, watermark: page.watermark });
        log.info({ seen: page.seen, applied, watermark: page.watermark }, 'provider sync page applied');
        return { seen: page.seen, applied, watermark: page.watermark, more: page.more };
      });
    },

    finishProviderSync: (input: SyncRunRef & { error: string | null }) => inTenant(deps.em, input.organizationId, (tx) => finishSyncRun(tx, input)),
  };
}
