import pg from 'pg';

/**
 * How long a process waits on PostgreSQL before it gives up (docs/operations.md, "When
 * PostgreSQL is unreachable or frozen"). A stopped server refuses connections at once; a frozen
 * one (a stalled disk, a network partition, SIGSTOP) accepts TCP and then answers nothing, and
 * without these bounds every request would wait for as long as it lasts.
 */
export interface DatabaseTimeouts {
  /** The longest wait for a pooled connection: for a free slot, and for opening one. */
  connectMs: number;
  /**
   * The longest a statement runs. The server cancels it (`statement_timeout`, SQLSTATE 57014;
   * waiting on a lock counts); a server that answers nothing at all has its connection cut by the
   * client `STATEMENT_CUT_MARGIN_MS` later (the pool then opens another).
   */
  statementMs: number;
}

/** After the statement timeout, how long the client still waits for the server's own cancel. */
export const STATEMENT_CUT_MARGIN_MS = 1_000;

/** The node-postgres options of a pool with these bounds. */
export function boundedPoolOptions(timeouts: DatabaseTimeouts): Pick<pg.PoolConfig, 'connectionTimeoutMillis' | 'statement_timeout' | 'keepAlive'> {
  return { connectionTimeoutMillis: timeouts.connectMs, statement_timeout: timeouts.statementMs, keepAlive: true };
}

interface CuttableClient {
  query: (...args: unknown[]) => unknown;
  connection?: { stream?: { destroy(error?: Error): void } };
}

/**
 * Cuts the connection of a statement that has had no answer `statementMs` + the margin after it
 * was sent: a server that cannot cancel it (frozen, unreachable) would keep it, and its request,
 * waiting forever. The statement then fails with "Connection terminated unexpectedly" (answered
 * 503, db/connectivity.ts), and the pool discards the connection (db/dropped-connections.ts for a
 * transaction's; pg-pool itself for `pool.query`'s).
 */
export function cutUnansweredStatements(pool: pg.Pool, timeouts: DatabaseTimeouts): void {
  const deadline = timeouts.statementMs + STATEMENT_CUT_MARGIN_MS;
  pool.on('connect', (connected) => {
    const client = connected as unknown as CuttableClient;
    const query = client.query;
    client.query = function (this: unknown, ...args: unknown[]): unknown {
      const timer = setTimeout(() => client.connection?.stream?.destroy(), deadline);
      timer.unref();
      const done = () => clearTimeout(timer);
      const last = args.length - 1;
      // The callback form (pg-pool's own pool.query): the timer ends with the callback.
      if (typeof args[last] === 'function') {
        const callback = args[last] as (...results: unknown[]) => unknown;
        args[last] = (...results: unknown[]) => {
          done();
          return callback(...results);
        };
      }
      const result = query.apply(this, args);
      if (result && typeof (result as Promise<unknown>).then === 'function') (result as Promise<unknown>).then(done, done);
      // A submittable (a cursor): it reads at its own pace, so it has no deadline here.
      else if (typeof args[last] !== 'function') done();
      return result;
    };
  });
}

/**
 * A plain node-postgres pool with the same bounds (the rate limiter's): every wait for a
 * connection and every statement bounded, a connection cut when its server does not answer.
 */
export function boundedPool(connectionString: string, max: number, timeouts: DatabaseTimeouts | undefined): pg.Pool {
  const pool = new pg.Pool({ connectionString, max, ...(timeouts ? boundedPoolOptions(timeouts) : {}) });
  if (timeouts) cutUnansweredStatements(pool, timeouts);
  return pool;
}
