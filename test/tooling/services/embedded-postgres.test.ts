import { afterAll, describe, expect, it } from '@jest/globals';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { userInfo } from 'node:os';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../../scripts/infra/embedded-postgres';
import { freePort } from '../../../scripts/infra/free-port';
import { dataDir, projectRoot } from '../../../scripts/infra/paths';

/** The default database of `npm start` when DATABASE_URL is unset: it keeps yesterday's data. */
const folder = join(dataDir, `embedded-test-pg-${process.pid}`);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('embedded PostgreSQL', () => {
  it('keeps its data in the data folder across a stop and a start, running as the postgres user when we are root', async () => {
    const port = await freePort();
    const first = await startEmbeddedPostgres({ dataDir: folder, port, persistent: true });
    const write = new pg.Client({ connectionString: first.url });
    await write.connect();
    await write.query('create table yesterday (note text)');
    await write.query(`insert into yesterday values ('still here')`);
    await write.end();
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir: folder, port, persistent: true });
    const read = new pg.Client({ connectionString: second.url });
    await read.connect();
    expect((await read.query('select note from yesterday')).rows).toEqual([{ note: 'still here' }]);
    await read.end();
    await second.stop();

    if (userInfo().uid === 0) {
      const postgresUid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      expect(statSync(folder).uid).toBe(postgresUid);
    } else {
      expect(statSync(folder).uid).toBe(userInfo().uid);
    }
  }, 60_000);
});

describe("embedded-postgres's exit hooks", () => {
  it("leave a script's own exit code standing when the event loop empties (a benchmark's missed target exits 1, not 0)", () => {
    const script = `await import(${JSON.stringify(join(projectRoot, 'scripts/infra/embedded-postgres.ts'))}); process.exitCode = 3;`;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 3, stderr: '' });
    const clean = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script.replace('= 3', '= 0')], { cwd: projectRoot, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    expect(clean.status).toBe(0);
  });
});
