import { MikroORM } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import { entities } from './entities';
import { migrations } from './migrations';
import { releaseDroppedConnections } from './dropped-connections';

export interface OrmOptions {
  url: string;
  poolMax?: number;
  debug?: boolean;
  /** The migrations the migrator knows: the committed ones unless a test adds its own. */
  migrations?: typeof migrations;
}

export async function createOrm(options: OrmOptions): Promise<MikroORM> {
  return MikroORM.init({
    clientUrl: options.url,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList: options.migrations ?? migrations, snapshot: false, transactional: true, allOrNothing: true, silent: true },
    pool: { min: 0, max: options.poolMax ?? 10 },
    // A transaction's connection dropped by the server frees its slot (db/dropped-connections.ts).
    driverOptions: { onPoolCreated: releaseDroppedConnections },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    // Timestamps are stored as timestamptz and read back as UTC instants.
    forceUtcTimezone: true,
  });
}
