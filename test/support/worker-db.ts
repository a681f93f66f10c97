import type { MikroORM } from '@mikro-orm/postgresql';
import { createOrm } from '../../db/orm';
import { workerDatabaseUrl } from '../../db/database-urls';

/** The test database as the worker's role, for fixtures that run the worker's code (activities) without a worker. */
export function workerOrm(poolMax = 2): Promise<MikroORM> {
  return createOrm({ url: workerDatabaseUrl(process.env.DATABASE_URL!, process.env.DATABASE_WORKER_PASSWORD!), poolMax });
}
