import { join, relative } from 'node:path';
import { startEmbeddedPostgres } from './embedded-postgres';
import { freePort } from './free-port';
import { dataDir, projectRoot } from './paths';
import { withDatabaseName } from '../../db/database-urls';

export interface Database {
  /** Owner URL of the database to use. */
  url: string;
  embedded: boolean;
  /** Which server this is, for the set-up line. */
  description: string;
  stop(): Promise<void>;
}

/**
 * DATABASE_URL when it is set; otherwise an embedded PostgreSQL. For `npm start` it keeps its
 * data in .data/postgres, so the next start finds it; for tests it lives for one run only.
 */
export async function provideDatabase(options: { purpose: 'start' | 'test'; databaseName: string }): Promise<Database> {
  const configured = process.env.DATABASE_URL;
  if (configured) {
    const url = options.purpose === 'test' ? withDatabaseName(configured, options.databaseName) : configured;
    return { url, embedded: false, description: `the server of DATABASE_URL${options.purpose === 'test' ? `, test database ${options.databaseName}` : ''}`, stop: async () => undefined };
  }
  const persistent = options.purpose === 'start';
  const port = persistent ? Number(process.env.EMBEDDED_POSTGRES_PORT ?? 54329) : await freePort();
  const folder = persistent ? join(dataDir, 'postgres') : join(dataDir, `test-postgres-${process.pid}`);
  const pg = await startEmbeddedPostgres({ dataDir: folder, port, persistent });
  const description = `embedded on 127.0.0.1:${port}${persistent ? `, data in ${relative(projectRoot, folder).startsWith('..') ? folder : relative(projectRoot, folder)}` : ''}`;
  return { url: withDatabaseName(pg.url, options.databaseName), embedded: true, description, stop: () => pg.stop() };
}
