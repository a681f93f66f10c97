import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { databaseProfile } from './activity-profiles';

/** D3's scheduled job (schedule `quote-expiry`, hourly; see worker/schedules.ts). */
export async function expireQuotes(_input: Record<string, never> = {}): Promise<{ expired: number }> {
  const db = proxyActivities<Activities>(databaseProfile({}));
  return db.expireStaleQuotes({});
}
