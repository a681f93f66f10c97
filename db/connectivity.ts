/**
 * Whether an error means the database cannot be reached right now (refused or dropped
 * connections, a server shutting down or starting up, a pool that cannot connect), or did not
 * answer within the process's bounds (no connection in time, a statement past its timeout, a
 * connection cut because its server answered nothing: db/database-timeouts.ts), as opposed to
 * a query that the database refused. Such a failure is temporary by nature: the API answers 503
 * with Retry-After and the pool reconnects by itself once the server is back.
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN',
  // SQLSTATE class 08 (connection exception) and 57P0x (the server shutting down, or not yet accepting connections).
  '08000', '08001', '08003', '08004', '08006', '57P01', '57P02', '57P03',
  // 57014: a statement cancelled by the process's statement timeout (db/database-timeouts.ts).
  '57014',
]);

const UNREACHABLE_MESSAGES = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection ended unexpectedly|the database system is (starting up|shutting down)/i;

export function isDatabaseUnreachable(error: unknown, depth = 0): boolean {
  if (depth > 5 || !error || typeof error !== 'object') return false;
  const candidate = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown; name?: unknown };
  if (typeof candidate.code === 'string' && UNREACHABLE_CODES.has(candidate.code)) return true;
  if (candidate.name === 'ConnectionException') return true;
  if (typeof candidate.message === 'string' && UNREACHABLE_MESSAGES.test(candidate.message)) return true;
  if (Array.isArray(candidate.errors) && candidate.errors.some((inner) => isDatabaseUnreachable(inner, depth + 1))) return true;
  return isDatabaseUnreachable(candidate.cause, depth + 1);
}
