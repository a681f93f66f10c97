import { APP_ROLE, WORKER_ROLE } from './migrations/rls';

/**
 * Three ways into one database: the owner (DATABASE_URL, runs migrations and the seed), the
 * API's role and the worker's role, neither of which can bypass row-level security. Each role's
 * URL is the owner URL with that role's credentials.
 */
function roleUrl(ownerUrl: string, role: string, password: string): string {
  const url = new URL(ownerUrl);
  url.username = role;
  url.password = password;
  return url.toString();
}

export function appDatabaseUrl(ownerUrl: string, appPassword: string): string {
  return roleUrl(ownerUrl, APP_ROLE, appPassword);
}

export function workerDatabaseUrl(ownerUrl: string, workerPassword: string): string {
  return roleUrl(ownerUrl, WORKER_ROLE, workerPassword);
}

export function withDatabaseName(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
