import { ActivityFailure, ApplicationFailure, continueAsNew, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ProviderSyncWorkflow } from '../infra/temporal/contracts';
import { databaseProfile, providerSyncProfile } from './activity-profiles';

const DEFAULT_PAGES_PER_RUN = 200;

/**
 * D18: one scheduled run of a tenant's provider sync. It pages through what changed at the
 * provider since the watermark; each page is applied with its watermark in one transaction, so a
 * run that fails (or a worker that dies) leaves the watermark at the last page applied and the
 * next attempt or run goes on from there. Every run is recorded; it continues as new before its
 * history grows large, keeping its row (by workflow id) and its counts.
 */
export const providerSync: ProviderSyncWorkflow = async function providerSync(input) {
  const timing = input.timing ?? {};
  const db = proxyActivities<Activities>(databaseProfile(timing));
  const provider = proxyActivities<Activities>(providerSyncProfile(timing));
  const ref = { organizationId: input.organizationId, provider: input.provider, workflowId: workflowInfo().workflowId };
  const totals = { seen: input.continued?.seen ?? 0, applied: input.continued?.applied ?? 0 };

  if (!input.continued) {
    const start = await db.beginProviderSync(ref);
    if (!start.usable) {
      await db.finishProviderSync({ ...ref, error: start.reason });
      return { ...totals, error: start.reason };
    }
  }
  let more = false;
  try {
    for (let pages = 1; ; pages++) {
      const page = await provider.syncProviderPage(ref);
      totals.seen += page.seen;
      totals.applied += page.applied;
      more = page.more;
      if (!more || pages >= (input.pagesPerRun ?? DEFAULT_PAGES_PER_RUN) || workflowInfo().continueAsNewSuggested) break;
    }
  } catch (error) {
    const message = failureMessage(error);
    await db.finishProviderSync({ ...ref, error: message });
    return { ...totals, error: message };
  }
  if (more) return continueAsNew<ProviderSyncWorkflow>({ ...input, continued: totals });
  await db.finishProviderSync({ ...ref, error: null });
  return { ...totals, error: null };
};

function failureMessage(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) return error.cause.message;
  if (error instanceof ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
