import { MikroORM } from '@mikro-orm/postgresql';
import type pg from 'pg';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';
import { migrations } from './migrations';
import { releaseDroppedConnections } from './dropped-connections';
import { boundedPoolOptions, cutUnansweredStatements, type DatabaseTimeouts } from './database-timeouts';

export interface OrmOptions {
  url: string;
  poolMax?: number;
  debug?: boolean;
  /** The migrations the migrator knows: the committed ones unless a test adds its own. */
  migrations?: typeof migrations;
  /**
   * How long to wait for a connection and a statement (db/database-timeouts.ts): the API's and the
   * worker's pools have bounds; the migrations, the seed and the operator's commands wait as
   * long as their work takes.
   */
  timeouts?: DatabaseTimeouts;
}

export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: options.migrations ?? migrations, snapshot: false, transactional: true, allOrNothing: true, silent: true },
    pool: { min: 0, max: options.poolMax ?? 10 },
    // A transaction's connection dropped by the server frees its slot (db/dropped-connections.ts);
    // with timeouts, a server that does not answer has its connection dropped.
    driverOptions: {
      ...(options.timeouts ? boundedPoolOptions(options.timeouts) : {}),
      onPoolCreated: (pool: pg.Pool) => {
        releaseDroppedConnections(pool);
        if (options.timeouts) cutUnansweredStatements(pool, options.timeouts);
      },
    },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    // Timestamps are stored as timestamptz and read back as UTC instants.
    forceUtcTimezone: true,
  });
}
