import { randomBytes } from 'node:crypto';
import { withDatabaseName } from '../../db/database-urls';
import { dropDatabase, migrate } from '../../db/migrate';
import { seedSandbox } from '../../db/seed';

/**
 * A database of one test file's own, migrated and seeded as the suite's, for a file that runs the
 * worker's outbox relay. A relay leases every tenant's undispatched events (production's workers
 * are all alike, so any of them may): on the suite's shared database it would start another
 * file's workflows on this file's task queue, where this file's worker, fakes and keys serve them,
 * or nobody once this file has ended. And the other file's own relay would take this file's.
 *
 * `create()` first in the file's beforeAll: it points process.env.DATABASE_URL, which every
 * harness reads, at the new database (Jest gives each file a copy of process.env of its own).
 * `drop()` last in its afterAll, once its pools are closed.
 */
export class OwnDatabase {
  readonly url: string;
  private readonly shared: string;

  constructor(name: string) {
    this.shared = process.env.DATABASE_URL!;
    this.url = withDatabaseName(this.shared, `shade_${name}_${randomBytes(4).toString('hex')}`);
  }

  async create(): Promise<void> {
    await migrate(this.url, { api: process.env.DATABASE_APP_PASSWORD!, worker: process.env.DATABASE_WORKER_PASSWORD! });
    await seedSandbox(this.url);
    process.env.DATABASE_URL = this.url;
  }

  async drop(): Promise<void> {
    process.env.DATABASE_URL = this.shared;
    await dropDatabase(this.url);
  }
}
