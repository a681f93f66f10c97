import type { EntityManager } from '@mikro-orm/postgresql';

/** One round trip to the database, for the health check. */
export async function pingDatabase(em: EntityManager): Promise<void> {
  await em.execute('select 1');
}
