import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomUUID } from 'node:crypto';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { ensureSchedules } from '../../worker/schedules';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';

let owner: pg.Pool;
let api: ApiHarness;
let temporal: TemporalHarness;

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  temporal = await startTemporalHarness();
  await temporal.startWorker();
}, 120_000);
afterAll(async () => {
  await temporal.close();
  await api.close();
  await owner.end();
});

async function quoteAged(token: string, days: number, status: string): Promise<string> {
  const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token, json: twoWindows({ persist: true }) });
  const id = ((await res.json()) as { quote_id: string }).quote_id;
  await owner.query(`update quotes set status = $1, created_at = now() - make_interval(days => $2) where id = $3`, [status, days, id]);
  return id;
}

describe('D3: quote expiry as a Temporal schedule', () => {
  it("expires DRAFT and SENT quotes older than each tenant's validity period, and nothing else", async () => {
    const monthly = await createTenant(owner, { sales: 'SALES' });
    const weekly = await createTenant(owner, { sales: 'SALES' });
    await owner.query('update organizations set quote_validity_days = 10 where id = $1', [weekly.id]);
    for (const t of [monthly, weekly]) await giveRateCard(t.id, SANDBOX_RATE_CARD);
    const m = await api.tokenFor(monthly.users.sales!);
    const w = await api.tokenFor(weekly.users.sales!);
    const expected: Record<string, string> = {
      [await quoteAged(m, 31, 'DRAFT')]: 'EXPIRED',
      [await quoteAged(m, 31, 'SENT')]: 'EXPIRED',
      [await quoteAged(m, 29, 'DRAFT')]: 'DRAFT',
      [await quoteAged(m, 40, 'APPROVED')]: 'APPROVED',
      [await quoteAged(m, 40, 'REJECTED')]: 'REJECTED',
      [await quoteAged(w, 11, 'SENT')]: 'EXPIRED',
      [await quoteAged(w, 9, 'SENT')]: 'SENT',
    };

    const scheduleId = `quote-expiry-test-${randomUUID()}`;
    await ensureSchedules(temporal.client, temporal.taskQueue, scheduleId);
    await ensureSchedules(temporal.client, temporal.taskQueue, scheduleId); // a second start finds it and changes nothing
    const handle = temporal.client.schedule.getHandle(scheduleId);
    const description = await handle.describe();
    expect(description.action).toMatchObject({ type: 'startWorkflow', workflowType: 'expireQuotes', taskQueue: temporal.taskQueue });
    await handle.trigger();

    const ids = Object.keys(expected);
    let rows: { id: string; status: string; expired_at: Date | null }[] = [];
    for (let i = 0; i < 100; i++) {
      rows = (await owner.query('select id, status, expired_at from quotes where id = any($1)', [ids])).rows;
      if (rows.filter((r) => r.status === 'EXPIRED').length === 3) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual(expected);
    for (const r of rows) expect(r.expired_at !== null).toBe(r.status === 'EXPIRED');
    await handle.delete();
  }, 60_000);
});
