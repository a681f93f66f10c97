import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Migration } from '@mikro-orm/migrations';
import { ContractMigrationRefused, dropDatabase, migrate } from '../../db/migrate';
import { migrations } from '../../db/migrations';
import { createOrm } from '../../db/orm';
import { appDatabaseUrl, withDatabaseName } from '../../db/database-urls';
import { SCHEMA_VERSION } from '../../db/running-releases';
import { ReleaseHeartbeat } from '../../infra/runtime/release-heartbeat';

/**
 * Rolling deploys: migrations are expand-then-contract, and `migrate` refuses a contract step
 * while a process of an older release is recorded as running, applying nothing of the run.
 */
const database = withDatabaseName(process.env.DATABASE_URL!, `shade_rolling_${randomBytes(4).toString('hex')}`);
const passwords = { api: process.env.DATABASE_APP_PASSWORD!, worker: process.env.DATABASE_WORKER_PASSWORD! };
let owner: pg.Pool;

class Migration29990101000000ExpandProbe extends Migration {
  override async up(): Promise<void> {
    this.addSql('create table expand_probe (id int)');
  }
}
class Migration29990101000100ContractProbe extends Migration {
  /** Safe once every running process was built for today's schema. */
  static readonly contractAfter = SCHEMA_VERSION;
  override async up(): Promise<void> {
    this.addSql('create table contract_probe (id int)');
  }
}
const withProbes = [
  ...migrations,
  { name: 'Migration29990101000000ExpandProbe', class: Migration29990101000000ExpandProbe },
  { name: 'Migration29990101000100ContractProbe', class: Migration29990101000100ContractProbe },
];

const tableExists = async (name: string) => (await owner.query<{ present: boolean }>('select to_regclass($1) is not null as present', [name])).rows[0]!.present;

beforeAll(async () => {
  await migrate(database, passwords);
  owner = new pg.Pool({ connectionString: database, max: 2 });
}, 120_000);
afterAll(async () => {
  await owner.end();
  await dropDatabase(database);
});

describe('rolling deploys', () => {
  it('a running process records the schema it was built for, refreshes it, and removes it when it stops', async () => {
    const orm = await createOrm({ url: appDatabaseUrl(database, passwords.api), poolMax: 1 });
    try {
      const heartbeat = new ReleaseHeartbeat(orm.em, 'api', { warn: () => undefined });
      await heartbeat.start();
      const { rows } = await owner.query('select role, schema_version from running_releases where process_id = $1', [heartbeat.processId]);
      expect(rows).toEqual([{ role: 'api', schema_version: SCHEMA_VERSION }]);
      await heartbeat.stop();
      expect((await owner.query('select 1 from running_releases where process_id = $1', [heartbeat.processId])).rowCount).toBe(0);
    } finally {
      await orm.close(true);
    }
  });

  it('refuses a contract migration while an older release runs, applying nothing; runs it once that release is gone', async () => {
    const older = '3f0c9a53-6f7e-4a55-9f0e-1b2c3d4e5f60';
    const current = '7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
    await owner.query(`insert into running_releases (process_id, role, schema_version) values ($1, 'worker', 'Migration20261126120000OperationsMetricsEveryTenant'), ($2, 'api', $3)`, [older, current, SCHEMA_VERSION]);

    const refused = migrate(database, passwords, { migrations: withProbes });
    await expect(refused).rejects.toBeInstanceOf(ContractMigrationRefused);
    await expect(refused).rejects.toThrow(new RegExp(`Migration29990101000100ContractProbe .*worker ${older} \\(schema Migration20261126120000OperationsMetricsEveryTenant\\)`));
    expect(String(await refused.catch((error: Error) => error.message))).not.toContain(current);
    expect({ expand: await tableExists('expand_probe'), contract: await tableExists('contract_probe') }).toEqual({ expand: false, contract: false });

    // A process that stopped refreshing its row (it died without saying so) no longer counts.
    await owner.query(`update running_releases set last_seen_at = now() - interval '5 minutes' where process_id = $1`, [older]);
    await migrate(database, passwords, { migrations: withProbes });
    expect({ expand: await tableExists('expand_probe'), contract: await tableExists('contract_probe') }).toEqual({ expand: true, contract: true });
  }, 120_000);
});
