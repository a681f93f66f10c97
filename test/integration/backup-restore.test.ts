import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDatabaseName } from '../../db/database-urls';
import { migrate } from '../../db/migrate';
import { seedSandbox } from '../../db/seed';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { secretContext } from '../../db/webhooks/endpoint-secrets';
import { startPostgres15Cluster, type Postgres15Cluster } from '../../scripts/infra/postgres15';
import { freePort, waitForPort } from '../../scripts/infra/free-port';
import { ServiceProcess } from '../../scripts/harness/service-process';
import { RetryingClient } from '../../scripts/harness/retrying-client';
import { sandboxTokens } from '../../scripts/harness/crash-campaign';
import { startIntegrationFakes, consent, storedTokens, type IntegrationFakes } from '../../scripts/harness/integration-fakes';
import { sandboxUser } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';

/**
 * docs/operations.md's backup and restore, run: a running stack's application database is
 * dumped with `pg_dumpall --roles-only` and `pg_dump -Fc`, restored into a fresh server with
 * `psql` and `pg_restore --clean --if-exists --no-owner`, migrated, and an API started on it
 * answers the same quotes, jobs, webhook endpoints and connections, whose secrets still decrypt
 * with the same CREDENTIAL_ENCRYPTION_KEY. The machine's client tools are PostgreSQL 15's, which
 * refuse the suite's PostgreSQL 18, so both servers here are throwaway PostgreSQL 15 clusters
 * (scripts/infra/postgres15.ts); the rest of the stack (Temporal) is the suite's.
 */
const passwords = { api: process.env.DATABASE_APP_PASSWORD!, worker: process.env.DATABASE_WORKER_PASSWORD! };
// The same superuser password on both servers, as one deployment's settings: the roles' dump carries it.
const superuserPassword = `pg-${randomBytes(8).toString('hex')}`;
let source: Postgres15Cluster;
let target: Postgres15Cluster;
let fakes: IntegrationFakes;
const work = mkdtempSync(join(tmpdir(), 'shade-backup-'));

beforeAll(async () => {
  [source, target] = await Promise.all([startPostgres15Cluster({ password: superuserPassword }), startPostgres15Cluster({ password: superuserPassword })]);
  fakes = await startIntegrationFakes();
}, 120_000);
afterAll(async () => {
  await Promise.all(services.map((s) => s.stop()));
  await fakes?.close();
  await Promise.all([source?.stop(), target?.stop()]);
  rmSync(work, { recursive: true, force: true });
});

/** Every API process started, stopped at the end whatever failed. */
const services: ServiceProcess[] = [];

function apiOn(databaseUrl: string, port: number): ServiceProcess {
  const api = new ServiceProcess({
    role: 'API',
    entry: 'scripts/harness/api-process.ts',
    env: { ...process.env, ...fakes.env, DATABASE_URL: databaseUrl, PORT: String(port), METRICS_PORT: '0', TRUST_PROXY_HOPS: '1', TEMPORAL_TASK_QUEUE: `backup-${port}`, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'warn' },
    ready: (timeoutMs) => waitForPort(port, '127.0.0.1', timeoutMs),
    // Beside the suite's other files on two cores, an API's start can take minutes.
    readyTimeoutMs: 240_000,
  });
  services.push(api);
  return api;
}

/** A client tool of the cluster's version, as the document runs it; throws with its output unless it exits 0. */
function tool(cluster: Postgres15Cluster, name: string, args: string[]): string {
  const result = spawnSync(join(cluster.bin, name), args, { env: cluster.clientEnv, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${name} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stderr;
}

interface Seen {
  quotes: unknown;
  quoteDetails: unknown[];
  workOrders: unknown;
  endpoints: unknown;
  integrations: unknown;
}

/** What the API answers about the data the test made. */
async function read(client: RetryingClient, tokens: { admin: string; sales: string }, quoteIds: string[]): Promise<Seen> {
  return {
    quotes: await client.json('/api/v1/quotes?limit=100', { token: tokens.sales }),
    quoteDetails: await Promise.all(quoteIds.map((id) => client.json(`/api/v1/quotes/${id}`, { token: tokens.sales }))),
    workOrders: await client.json('/api/v1/work-orders?limit=100', { token: tokens.admin }),
    endpoints: await client.json('/api/v1/webhook-endpoints', { token: tokens.admin }),
    integrations: await client.json('/api/v1/integrations', { token: tokens.admin }),
  };
}

/** The endpoints' signing secrets and the accounting connection's tokens, decrypted from the database with the key. */
async function secretsIn(databaseUrl: string, organizationId: string) {
  const owner = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  try {
    const cipher = new CredentialCipher(fakes.env.CREDENTIAL_ENCRYPTION_KEY!);
    const { rows } = await owner.query<{ id: string; secret_ciphertext: string; secret_key_id: string }>('select id, secret_ciphertext, secret_key_id from webhook_endpoints order by id');
    return {
      endpointSecrets: Object.fromEntries(rows.map((r) => [r.id, cipher.decrypt({ ciphertext: r.secret_ciphertext, keyId: r.secret_key_id }, secretContext(r.id))])),
      accounting: await storedTokens(owner, fakes.env, organizationId, 'ACCOUNTING'),
    };
  } finally {
    await owner.end();
  }
}

describe("docs/operations.md's backup and restore, on PostgreSQL 15", () => {
  it('a dump of a running stack restored into a fresh server: the API on it reads the same quotes, jobs, endpoints and connections, and the secrets decrypt', async () => {
    const database = withDatabaseName(source.url, 'shade_office');
    await migrate(database, passwords);
    await seedSandbox(database);

    const port = await freePort();
    const api = apiOn(database, port);
    await api.start();
    let client = new RetryingClient(`http://127.0.0.1:${port}`);
    const tokens = await sandboxTokens(database, process.env.AUTH_TOKEN_SECRET!);
    const owner = new pg.Pool({ connectionString: database, max: 1 });
    const { organizationId } = await sandboxUser(owner, 'sandbox', 'admin@sandbox.test');
    await owner.end();
    const made: string[] = [];
    const endpointSecrets: Record<string, string> = {};
    for (const i of [1, 2]) {
      const quote = await client.json<{ quote_id: string }>('/api/v1/quotes/calculate', { method: 'POST', token: tokens.sales, json: twoWindows({ persist: true, customer: { name: `Backup Customer ${i}`, email: `backup-${i}@example.test` } }) });
      made.push(quote.quote_id);
    }
    const customer = await client.json<{ id: string }>('/v1/customers', { method: 'POST', token: tokens.sales, json: { name: 'Backup V1', email: 'backup-v1@example.test' }, headers: { 'idempotency-key': 'backup-customer' } }, 201);
    const pricebooks = await client.json<{ data: { id: string }[] }>('/v1/pricebooks', { token: tokens.sales });
    const v1 = await client.json<{ id: string }>('/v1/quotes', {
      method: 'POST',
      token: tokens.sales,
      headers: { 'idempotency-key': 'backup-quote' },
      json: { customerId: customer.id, currency: 'CAD', taxRegion: 'CA-ON', pricebookId: pricebooks.data[0]!.id, lines: [{ sku: 'ROLLER-SCREEN', quantity: 1, configuration: { finishedWidthIn: 48, finishedHeightIn: 60, controlSide: 'left', motorised: false } }] },
    }, 201);
    made.push(v1.id);
    const job = await client.json<{ id: string }>('/api/v1/work-orders', { method: 'POST', token: tokens.admin, json: {} }, 201);
    await client.json(`/api/v1/work-orders/${job.id}/status`, { method: 'PATCH', token: tokens.admin, json: { status: 'DISPATCHED' } });
    for (const events of [['quote.approved'], ['work_order.dispatched', 'work_order.completed']]) {
      const endpoint = await client.json<{ id: string; secret: string }>('/api/v1/webhook-endpoints', { method: 'POST', token: tokens.admin, json: { url: `http://127.0.0.1:9/${events[0]}`, events } }, 201);
      endpointSecrets[endpoint.id] = endpoint.secret;
    }
    const connected = await consent(client, tokens.admin, 'accounting');
    expect(connected.status).toBe(200);
    const before = await read(client, tokens, made);
    const secretsBefore = await secretsIn(database, organizationId);
    expect(secretsBefore.endpointSecrets).toEqual(endpointSecrets);
    expect(secretsBefore.accounting?.accessToken).toEqual(expect.any(String));

    // The backup, as the document says, while the API still runs.
    const roles = join(work, 'backup-roles.sql');
    const dump = join(work, 'backup-shade_office.dump');
    tool(source, 'pg_dumpall', ['--roles-only', '-f', roles]);
    tool(source, 'pg_dump', ['-Fc', '-d', 'shade_office', '-f', dump]);
    await api.stop();
    expect(readFileSync(roles, 'utf8')).toMatch(/CREATE ROLE shade_app;/);

    // The restore into a fresh server: the roles, an empty database, the dump; then migrate.
    const restoredRoles = tool(target, 'psql', ['-d', 'postgres', '-f', roles]);
    // The superuser exists already, the only complaint the document expects.
    expect(restoredRoles.split('\n').filter((line) => /ERROR/.test(line))).toEqual([expect.stringMatching(/role "postgres" already exists/)]);
    tool(target, 'createdb', ['shade_office']);
    tool(target, 'pg_restore', ['-d', 'shade_office', '--clean', '--if-exists', '--no-owner', dump]);
    const restored = withDatabaseName(target.url, 'shade_office');
    await migrate(restored, passwords);

    const restoredPort = await freePort();
    const restoredApi = apiOn(restored, restoredPort);
    await restoredApi.start();
    client = new RetryingClient(`http://127.0.0.1:${restoredPort}`);
    // The same tokens: users, tenants and the signing key came back unchanged.
    const after = await read(client, tokens, made);
    expect(after).toEqual(before);
    expect(after.quoteDetails).toHaveLength(3);
    expect(await secretsIn(restored, organizationId)).toEqual(secretsBefore);
    // Writing goes on where it stopped: the next quote takes the next number.
    const numbers = (before.quoteDetails as { quote_number: number }[]).map((q) => q.quote_number);
    const next = await client.json<{ quote_number: number }>('/api/v1/quotes/calculate', { method: 'POST', token: tokens.sales, json: twoWindows({ persist: true, customer: { name: 'After Restore', email: 'after-restore@example.test' } }) });
    expect(next.quote_number).toBe(Math.max(...numbers) + 1);
  }, 600_000);
});
