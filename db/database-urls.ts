import { APP_ROLE } from './migrations/rls';

/**
 * Two connections to one database: the owner (DATABASE_URL, runs migrations and the seed) and
 * the application role that every request and activity uses, which cannot bypass row-level
 * security. The application URL is the owner URL with the application role's credentials.
 */
export function appDatabaseUrl(ownerUrl: string, appPassword: string): string {
  const url = new URL(ownerUrl);
  url.username = APP_ROLE;
  url.password = appPassword;
  return url.toString();
}

export function withDatabaseName(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
