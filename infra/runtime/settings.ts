import { isIP } from 'node:net';
import { z } from 'zod';
import { fileSettingOf, resolveSecretFiles, type SecretSetting } from './secret-files';

/**
 * D8: every setting the processes read, validated once at start-up. The README lists each one
 * with its default; test/tooling/docker-compose.test.ts checks that docker-compose.yml passes each
 * one to the API and the worker. Empty strings count as unset (a blank line in .env). Every
 * secret may come from a file instead (`<NAME>_FILE`, infra/runtime/secret-files.ts).
 */
const blankAsUndefined = (value: unknown) => (value === '' ? undefined : value);
const optionalSecret = z.preprocess(blankAsUndefined, z.string().min(1).optional());
const flag = (fallback: boolean) =>
  z.preprocess(blankAsUndefined, z.enum(['true', 'false', '1', '0']).optional()).transform((v) => (v === undefined ? fallback : v === 'true' || v === '1'));

/** Stand-ins for local runs only; refused in production (databasePassword below). */
const LOCAL_PASSWORDS = { api: 'shade_app_local_only', worker: 'shade_worker_local_only' } as const;
const PASSWORD_SETTING = { api: 'DATABASE_APP_PASSWORD', worker: 'DATABASE_WORKER_PASSWORD' } as const;

export /** `scheme://host[:port]` exactly as a browser sends it in `Origin`: no path, query, wildcard or trailing slash. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

const settingsSchema = z.object({
  NODE_ENV: z.preprocess(blankAsUndefined, z.enum(['development', 'test', 'production']).default('development')),
  PORT: z.preprocess(blankAsUndefined, z.coerce.number().int().min(0).max(65535).default(3000)),
  // The address the API listens on. Unset: 127.0.0.1 outside production (a development stack
  // answers only this machine: its sandbox passwords are in the README), every interface in
  // production. The image and docker-compose set 0.0.0.0, where their proxy reaches the API.
  API_HOST: z.preprocess(
    blankAsUndefined,
    z.string().refine((v) => isIP(v) !== 0 || /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i.test(v), 'an IP address (127.0.0.1, 0.0.0.0, ::) or a host name').optional(),
  ),
  LOG_LEVEL: z.preprocess(blankAsUndefined, z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
  DATABASE_URL: z.preprocess(blankAsUndefined, z.string().url()),
  // Each process's own database role (db/migrations: shade_app for the API, shade_worker for the
  // worker); each process is given only its own password.
  DATABASE_APP_PASSWORD: z.preprocess(blankAsUndefined, z.string().min(8).default(LOCAL_PASSWORDS.api)),
  DATABASE_WORKER_PASSWORD: z.preprocess(blankAsUndefined, z.string().min(8).default(LOCAL_PASSWORDS.worker)),
  DATABASE_POOL_MAX: z.preprocess(blankAsUndefined, z.coerce.number().int().min(1).max(200).default(10)),
  // How long a process waits on PostgreSQL (db/database-timeouts.ts, docs/operations.md): for a
  // pooled connection (a free slot or a new one), and for a statement. The API's bound a request
  // (past them it answers 503 with Retry-After; a frozen server no longer holds it); the worker's
  // are longer: up to 100 activities share its pool, and Temporal retries one that fails.
  DATABASE_CONNECT_TIMEOUT_MS: z.preprocess(blankAsUndefined, z.coerce.number().int().min(100).max(600_000).default(5_000)),
  DATABASE_STATEMENT_TIMEOUT_MS: z.preprocess(blankAsUndefined, z.coerce.number().int().min(100).max(3_600_000).default(10_000)),
  WORKER_DATABASE_CONNECT_TIMEOUT_MS: z.preprocess(blankAsUndefined, z.coerce.number().int().min(100).max(600_000).default(30_000)),
  WORKER_DATABASE_STATEMENT_TIMEOUT_MS: z.preprocess(blankAsUndefined, z.coerce.number().int().min(100).max(3_600_000).default(60_000)),
  TEMPORAL_ADDRESS: z.preprocess(blankAsUndefined, z.string().min(1).default('127.0.0.1:7233')),
  TEMPORAL_NAMESPACE: z.preprocess(blankAsUndefined, z.string().min(1).default('default')),
  TEMPORAL_TASK_QUEUE: z.preprocess(blankAsUndefined, z.string().min(1).default('shade-office')),
  // D18: how often each tenant's provider sync runs (a Temporal duration: 30s, 15m, 1h).
  PROVIDER_SYNC_INTERVAL: z.preprocess(blankAsUndefined, z.string().regex(/^[1-9][0-9]{0,5}(s|m|h)$/, 'a duration such as 30s, 15m or 1h').default('15m')),
  AUTH_TOKEN_SECRET: z.preprocess(blankAsUndefined, z.string().min(32, 'must be at least 32 characters')),
  // Proxies of this deployment in front of the API (docker-compose: its one reverse proxy). With
  // none, X-Forwarded-For is ignored: any client could write it.
  TRUST_PROXY_HOPS: z.preprocess(blankAsUndefined, z.coerce.number().int().min(0).max(10).default(0)),
  PAYMENTS_SECRET_KEY: optionalSecret,
  PAYMENTS_WEBHOOK_SECRET: optionalSecret,
  PAYMENTS_API_BASE_URL: z.preprocess(blankAsUndefined, z.string().url().optional()),
  ACCOUNTING_CLIENT_ID: optionalSecret,
  ACCOUNTING_CLIENT_SECRET: optionalSecret,
  CRM_CLIENT_ID: optionalSecret,
  CRM_CLIENT_SECRET: optionalSecret,
  // Any 32+ characters (e.g. `openssl rand -base64 32`); the AES key is derived from it
  // (db/security/credential-cipher.ts). The previous key only decrypts, during a rotation.
  CREDENTIAL_ENCRYPTION_KEY: z.preprocess(blankAsUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  CREDENTIAL_ENCRYPTION_KEY_PREVIOUS: z.preprocess(blankAsUndefined, z.string().min(32, 'must be at least 32 characters').optional()),
  // Where browsers reach this API: OAuth redirect URIs are built on it. Unset: http://localhost:<PORT>.
  PUBLIC_BASE_URL: z.preprocess(blankAsUndefined, z.string().url().optional()),
  ACCOUNTING_ENVIRONMENT: z.preprocess(blankAsUndefined, z.enum(['sandbox', 'production']).default('sandbox')),
  // Points every accounting endpoint (OAuth and API) at one origin: a local fake.
  ACCOUNTING_API_BASE_URL: z.preprocess(blankAsUndefined, z.string().url().optional()),
  CRM_LOGIN_URL: z.preprocess(blankAsUndefined, z.string().url().default('https://login.salesforce.com')),
  // The CRM does not say when its access tokens lapse; this is the org session timeout assumed.
  CRM_SESSION_TIMEOUT_SECONDS: z.preprocess(blankAsUndefined, z.coerce.number().int().min(1).max(86_400).default(7200)),
  CHECKOUT_RETURN_ORIGINS: z
    .preprocess(blankAsUndefined, z.string().optional())
    .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean)),
  // Browser clients on other origins (an office app, a dispatch board): the exact origins allowed
  // to call the API from a page (`https://office.example.com,http://localhost:5173`); empty: none.
  CORS_ORIGINS: z
    .preprocess(blankAsUndefined, z.string().optional())
    .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.string().refine((origin) => isOrigin(origin), 'each entry must be an origin: scheme://host[:port], no path and no wildcard'))),
  OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: flag(false),
  // The narrow development allowance: loopback receivers (127.0.0.0/8, ::1, localhost) over http
  // or https, every other non-public address still refused. `npm start` turns it on in
  // development for `npm run webhooks:listen`; refused in production, like the setting above.
  OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: flag(false),
  // Which providers are npm start's local sandboxes (scripts/sandboxes), set by the launcher
  // itself so that /api/connectors can say so. Informative only; refused in production.
  PROVIDER_SANDBOXES: z
    .preprocess(blankAsUndefined, z.string().optional())
    .transform((v) => (v ?? '').split(',').map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.enum(['payments', 'accounting', 'crm']))),
  // D13: mail (the notice that a webhook endpoint was disabled) goes through this SMTP server,
  // e.g. smtp://user:pass@mail.example:587 or smtps://...:465. Unset: no mail is sent (a warning
  // is logged); `npm start` points it at its local mail catcher.
  SMTP_URL: z.preprocess(blankAsUndefined, z.string().url().refine((v) => /^smtps?:\/\//.test(v), 'must be an smtp:// or smtps:// URL').optional()),
  MAIL_FROM: z.preprocess(blankAsUndefined, z.string().min(3).default('Shade Office <no-reply@shade-office.invalid>')),
  SEED_SANDBOX: flag(true),
  // Prometheus `/metrics` of the API and of the worker, each on a port of its own (0:
  // any free one), on METRICS_HOST: loopback unless the deployment's Prometheus must reach it
  // (docker-compose: 0.0.0.0 inside the stack's network, never published).
  METRICS_PORT: z.preprocess(blankAsUndefined, z.coerce.number().int().min(0).max(65535).default(9464)),
  WORKER_METRICS_PORT: z.preprocess(blankAsUndefined, z.coerce.number().int().min(0).max(65535).default(9465)),
  METRICS_HOST: z.preprocess(blankAsUndefined, z.string().min(1).default('127.0.0.1')),
  // Traces go to this OpenTelemetry collector (OTLP over HTTP, `<endpoint>/v1/traces`);
  // unset, nothing is traced. Read by infra/runtime/instrument.ts before the process starts.
  OTEL_EXPORTER_OTLP_ENDPOINT: z.preprocess(blankAsUndefined, z.string().url().optional()),
  // D23: travel times from an OSRM server's table service when set; great-circle otherwise.
  // D23: route plans run on a task queue of their own.
  TEMPORAL_ROUTING_TASK_QUEUE: z.preprocess(blankAsUndefined, z.string().min(1).default('routing')),
  ROUTING_OSRM_URL: z.preprocess(blankAsUndefined, z.string().url().optional()),
  ROUTING_OSRM_TIMEOUT_MS: z.preprocess(blankAsUndefined, z.coerce.number().int().min(100).max(120_000).default(10_000)),
  // D23: plans solved by a VROOM server (vroom-express) when set; the built-in solver otherwise.
  ROUTING_VROOM_URL: z.preprocess(blankAsUndefined, z.string().url().optional()),
  // How long a plan waits for VROOM's whole answer before it fails as a 502 (docs/routes.md). At
  // most 100 s: the solve step must end inside the routing activities' 2-minute start-to-close
  // timeout (workflows/activity-profiles.ts), or the plan would end as a timeout instead.
  ROUTING_VROOM_TIMEOUT_MS: z.preprocess(blankAsUndefined, z.coerce.number().int().min(100).max(100_000).default(30_000)),
  BUILD_COMMIT: optionalSecret,
  BUILD_REF: optionalSecret,
  BUILD_ENVIRONMENT: optionalSecret,
});

export type Settings = z.infer<typeof settingsSchema>;
export const SETTING_NAMES = Object.keys(settingsSchema.shape) as (keyof Settings)[];

export class SettingsError extends Error {}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const secrets = resolveSecretFiles(env);
  if (secrets.problems.length > 0) throw new SettingsError(`invalid settings: ${secrets.problems.join('; ')}`);
  const parsed = settingsSchema.safeParse(secrets.env);
  if (!parsed.success) {
    // Name the settings, never echo their values: some are secrets.
    const describe = (name: string) => (secrets.fromFiles.has(name) ? `${name} (read from ${fileSettingOf(name as SecretSetting)})` : name);
    const problems = parsed.error.issues.map((issue) => `${describe(issue.path.join('.'))}: ${issue.message}`).join('; ');
    throw new SettingsError(`invalid settings: ${problems}`);
  }
  const settings = parsed.data;
  if (settings.NODE_ENV === 'production') {
    // D6's guard is never weakened in production, whatever a copied .env says.
    if (settings.OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS) throw new SettingsError('invalid settings: OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS is for development and tests only');
    if (settings.OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK) throw new SettingsError('invalid settings: OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK is for development and tests only');
    if (settings.PROVIDER_SANDBOXES.length > 0) throw new SettingsError('invalid settings: PROVIDER_SANDBOXES: production never runs the local provider sandboxes');
  }
  if (settings.API_HOST === undefined && settings.NODE_ENV !== 'production') settings.API_HOST = '127.0.0.1';
  // In development a checkout without return_url comes back to this deployment's own origin, so
  // trying checkout needs no setting; elsewhere the allowlist is the operator's to give.
  if (settings.NODE_ENV === 'development' && settings.CHECKOUT_RETURN_ORIGINS.length === 0) {
    settings.CHECKOUT_RETURN_ORIGINS = [new URL(settings.PUBLIC_BASE_URL ?? `http://localhost:${settings.PORT}`).origin];
  }
  return settings;
}

/**
 * The password of one process's database role. A process is given only its own, so the check
 * that it was really set (not the local stand-in) happens here, for the role asked for.
 */
export function databasePassword(settings: Settings, role: 'api' | 'worker'): string {
  const name = PASSWORD_SETTING[role];
  const password = settings[name];
  if (settings.NODE_ENV === 'production' && password === LOCAL_PASSWORDS[role]) throw new SettingsError(`invalid settings: ${name} must be set in production`);
  return password;
}

/** The bounds of one process's database pools (db/database-timeouts.ts): the API's or the worker's. */
export function databaseTimeouts(settings: Settings, role: 'api' | 'worker'): { connectMs: number; statementMs: number } {
  return role === 'api'
    ? { connectMs: settings.DATABASE_CONNECT_TIMEOUT_MS, statementMs: settings.DATABASE_STATEMENT_TIMEOUT_MS }
    : { connectMs: settings.WORKER_DATABASE_CONNECT_TIMEOUT_MS, statementMs: settings.WORKER_DATABASE_STATEMENT_TIMEOUT_MS };
}
