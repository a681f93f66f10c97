import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { ownerPool } from '../../scripts/harness/owner-db';
import { LoginService } from '../../api/auth/login-service';
import { startTimedClient, type TimedClient } from '../../scripts/harness/timed-client';

/**
 * D20: a password reset request answers "the same answer and timing for every case" (section
 * 4.2's rule for login). Four cases, timed through HTTP, interleaved in random order over 240
 * rounds, and the medians of their per-round differences from the existing active account
 * compared, as login-timing.test.ts does for login: an existing active account (a link is issued
 * and mailed), an unknown email, a deactivated account, and an email of another workspace. A
 * fifth, control case costs exactly 1 ms more (spent by the server ahead of the app) to show that
 * the comparison would see that.
 */
const SAMPLES = 240;
const WARM_UP = 20;
const CONTROL_EXTRA_MS = 1;
/** Median gaps below this are indistinguishable; the control's must be above it. */
const THRESHOLD_MS = 0.5;
const CONTROL_HEADER = 'x-timing-control';
/** The pause after each request, outside the timing (see `attempt`). */
const SETTLE_MS = 40;

const spin = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

let owner: pg.Pool;
let api: ApiHarness;
let client: TimedClient;
let subdomain: string;
let otherSubdomain: string;

beforeAll(async () => {
  owner = ownerPool();
  // No SMTP_URL: the active account's link is issued and audited, and its email is skipped (logged).
  api = await startApi();
  // The control's cost, spent synchronously before the app sees the request.
  api.server.prependListener('request', (req: IncomingMessage) => {
    if (req.headers[CONTROL_HEADER]) spin(CONTROL_EXTRA_MS);
  });
  // The requests are timed from a thread of their own: the work behind an active account's answer
  // runs after the 202 in this process, and an in-process client would be timed waiting for it.
  client = startTimedClient(api.url);
  subdomain = `reset-timing-${randomBytes(4).toString('hex')}`;
  otherSubdomain = `reset-other-${randomBytes(4).toString('hex')}`;
  const { rows } = await owner.query<{ id: string }>('insert into organizations (name, subdomain) values ($1, $2), ($3, $4) returning id', ['Timing', subdomain, 'Other', otherSubdomain]);
  await owner.query(
    `insert into users (organization_id, email, full_name, role, password_hash, active) values
       ($1, 'person@reset-timing.test', 'Person', 'SALES', 'stand-in-hash', true),
       ($1, 'disabled@reset-timing.test', 'Disabled', 'SALES', 'stand-in-hash', false),
       ($1, 'control@reset-timing.test', 'Control', 'SALES', 'stand-in-hash', true),
       ($2, 'elsewhere@reset-timing.test', 'Elsewhere', 'SALES', 'stand-in-hash', true)`,
    [rows[0]!.id, rows[1]!.id],
  );
});
afterAll(async () => {
  await client.close();
  await api.close();
  await owner.end();
});

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

describe('password reset requests take the same time whatever exists (D20)', () => {
  it('an active account, an unknown email, a deactivated account and another workspace\'s email are within 0.5 ms (median of per-round gaps), while a 1 ms difference is seen', async () => {
    const cases: Record<string, (n: number) => { body: { subdomain: string; email: string }; control?: boolean }> = {
      active: () => ({ body: { subdomain, email: 'person@reset-timing.test' } }),
      unknownEmail: (n) => ({ body: { subdomain, email: `nobody-${n}@reset-timing.test` } }),
      deactivated: () => ({ body: { subdomain, email: 'disabled@reset-timing.test' } }),
      otherWorkspace: () => ({ body: { subdomain, email: 'elsewhere@reset-timing.test' } }),
      // An active account of its own, so that every case's limit counter is a new one each round.
      control: () => ({ body: { subdomain, email: 'control@reset-timing.test' }, control: true }),
    };
    // The repeated identities' counters (limited like login, ten per fifteen minutes) are deleted
    // after each round, outside the timing, so that none reaches its limit.
    const counters = ['person', 'disabled', 'elsewhere', 'control'].map((who) => `password-reset:${LoginService.identityKey({ subdomain, email: `${who}@reset-timing.test`, password: '' })}`);
    const resetCounters = () => owner.query('delete from rate_limits where key = any($1)', [counters]);
    const names = Object.keys(cases);
    const times: Record<string, number[]> = Object.fromEntries(names.map((name) => [name, []]));
    let sent = 0;
    const block = randomBytes(2).toString('hex');
    const attempt = async (name: string, n: number) => {
      const { body, control } = cases[name]!(n);
      // Each from its own client address (an IPv6 /64 each), so the broad limit stays out of it.
      const headers: Record<string, string> = { 'x-forwarded-for': `2001:db8:${block}:${(sent++).toString(16)}::1`, ...(control ? { [CONTROL_HEADER]: '1' } : {}) };
      const { status, text: answer, elapsed } = await client.time('/api/v1/auth/password-resets', { method: 'POST', headers, json: body });
      // The same answer in every case.
      expect({ name, status, answer }).toEqual({ name, status: 202, answer: '{"accepted":true}' });
      // The work behind an answer (an active account's link issued and audited) runs after it, in
      // the same process: it is let finish before the next request, so that it is not measured on
      // whichever case comes next (a caller times their own request, not their neighbour's).
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      return elapsed;
    };
    for (let n = 1; n <= WARM_UP; n++) {
      for (const name of names) await attempt(name, SAMPLES + n);
      await resetCounters();
    }
    for (let n = 1; n <= SAMPLES; n++) {
      const order = [...names].sort(() => Math.random() - 0.5);
      for (const name of order) times[name]!.push(await attempt(name, n));
      await resetCounters();
    }
    const gaps = Object.fromEntries(names.map((name) => [name, median(times[name]!.map((t, i) => t - times.active![i]!))]));
    const report = Object.fromEntries(names.map((name) => [name, `median ${median(times[name]!).toFixed(3)} ms, gap ${gaps[name]!.toFixed(3)} ms`]));
    expect({ report, controlSeen: gaps.control! > THRESHOLD_MS }).toEqual({ report, controlSeen: true });
    for (const name of ['unknownEmail', 'deactivated', 'otherWorkspace']) {
      expect({ report, name, indistinguishable: Math.abs(gaps[name]!) < THRESHOLD_MS }).toEqual({ report, name, indistinguishable: true });
    }
    // The work behind the answers did happen: the active account got links, no one else did.
    const { rows } = await owner.query<{ email: string; links: number }>(
      `select u.email, count(t.*)::int as links from users u left join user_tokens t on t.user_id = u.id and t.purpose = 'password_reset'
        where u.email in ('person@reset-timing.test', 'disabled@reset-timing.test', 'elsewhere@reset-timing.test') group by u.email order by u.email`,
    );
    expect(rows.find((r) => r.email === 'person@reset-timing.test')!.links).toBeGreaterThan(0);
    expect(rows.filter((r) => r.email !== 'person@reset-timing.test').map((r) => r.links)).toEqual([0, 0]);
  }, 420_000);
});
