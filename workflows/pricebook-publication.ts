import { proxyActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { PricebookPublicationWorkflow } from '../infra/temporal/contracts';
import { databaseProfile } from './activity-profiles';

/**
 * D21: a revision published with a future `effective_from` is announced at that instant. The
 * durable timer only announces (`pricebook.published`); which revision prices a quote is decided
 * by effective_from in the database, so a late timer never lets a quote use the old prices.
 */
export const pricebookPublication: PricebookPublicationWorkflow = async function pricebookPublication(input) {
  const db = proxyActivities<Activities>(databaseProfile(input.timing ?? {}));
  const wait = Date.parse(input.effectiveFrom) - Date.now();
  if (wait > 0) await sleep(wait);
  return db.announcePricebookRevision({ organizationId: input.organizationId, revisionId: input.revisionId });
};
