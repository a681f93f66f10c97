import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { startEmbeddedPostgres, type RunningPostgres } from '../../scripts/infra/embedded-postgres';
import { freePort } from '../../scripts/infra/free-port';
import { dataDir } from '../../scripts/infra/paths';
import { withDatabaseName } from '../../db/database-urls';
import { migrate } from '../../db/migrate';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { Health } from '../../api/health/routes';

/**
 * Section 4.1: the health check follows the database. This test owns a PostgreSQL of its own so
 * that it can really stop it under a running API (the suite's database stays up).
 */
let pg: RunningPostgres;
let api: ApiHarness;
const folder = join(dataDir, `health-test-pg-${process.pid}`);
let port: number;

beforeAll(async () => {
  port = await freePort();
  pg = await startEmbeddedPostgres({ dataDir: folder, port, persistent: true });
  const url = withDatabaseName(pg.url, 'health_check');
  const appPassword = randomBytes(12).toString('hex');
  await migrate(url, { api: appPassword, worker: randomBytes(12).toString('hex') });
  api = await startApi({ env: { DATABASE_URL: url, DATABASE_APP_PASSWORD: appPassword } });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await pg?.stop();
  const { rmSync } = await import('node:fs');
  rmSync(folder, { recursive: true, force: true });
});

async function health() {
  const res = await api.request('/api/health');
  return { status: res.status, body: Health.parse(await res.json()) };
}

describe('GET /api/health', () => {
  it('answers 200 with latency, 503 without the database, and 200 again when it is back', async () => {
    const up = await health();
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ status: 'ok', database: 'reachable', build: { commit: null, ref: null } });
    expect(Number.isInteger(up.body.latency_ms)).toBe(true);

    await pg.stop();
    const down = await health();
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ status: 'degraded', database: 'unreachable' });
    expect('latency_ms' in down.body).toBe(false);
    expect('error' in down.body).toBe(false);

    pg = await startEmbeddedPostgres({ dataDir: folder, port, persistent: true });
    let back = await health();
    for (let i = 0; back.status !== 200 && i < 20; i++) {
      await new Promise((r) => setTimeout(r, 250));
      back = await health();
    }
    expect(back.status).toBe(200);
    expect(back.body.status).toBe('ok');
  }, 90_000);
});
