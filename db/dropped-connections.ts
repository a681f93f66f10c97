import type pg from 'pg';

/**
 * Gives a pool its slot back when a connection checked out of it is dropped (the server shut
 * down or restarted, the network cut). Kysely, under MikroORM, releases a transaction's
 * connection only after its COMMIT or ROLLBACK succeeds; on a dropped connection both fail, the
 * connection is never released, and after `max` of them every later request waits for a slot
 * that never frees: the API would not recover from a database outage by itself. Here a
 * connection that ends while checked out is released with an error (so the pool discards it and
 * may open a new one), and the holder's own release, if it still comes, does nothing.
 */
export function releaseDroppedConnections(pool: pg.Pool): void {
  const watchers = new WeakMap<pg.PoolClient, () => void>();
  pool.on('acquire', (client) => {
    const ended = () => {
      watchers.delete(client);
      const release = client.release;
      client.release = () => undefined;
      release(new Error('the database connection ended while checked out'));
    };
    watchers.set(client, ended);
    client.once('end', ended);
  });
  pool.on('release', (_error, client) => {
    const ended = watchers.get(client);
    if (!ended) return;
    watchers.delete(client);
    client.removeListener('end', ended);
  });
}
