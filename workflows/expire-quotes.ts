import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { ExpireQuotesWorkflow } from '../infra/temporal/contracts';
import { databaseProfile } from './activity-profiles';

/** D3's scheduled job (schedule `quote-expiry`, hourly; see worker/schedules.ts). */
export const expireQuotes: ExpireQuotesWorkflow = async function expireQuotes() {
  const db = proxyActivities<Activities>(databaseProfile({}));
  return db.expireStaleQuotes({});
};
