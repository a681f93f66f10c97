/**
 * D19: the operator's repair command, against the running stack (npm start's database and
 * Temporal) or a deployment's (`DATABASE_URL`, as the owner the migrations use, and
 * `TEMPORAL_ADDRESS`).
 *
 *   npm run ops -- failed                                          every FAILED provider call, all tenants
 *   npm run ops -- retry <quote number> <provider> --tenant <subdomain>    one leg of a quote's approval
 *   npm run ops -- retry --change-order <id | CO-<job id>-<sequence>>      a change order's invoice or credit note
 *   npm run ops -- retry --job <job id>                            a completed job's invoice
 *   npm run ops -- retry --all <provider> [--tenant <subdomain>]   every FAILED call of a provider
 *   npm run ops -- tenant create|list|plan|suspend|resume ...      D22: workspaces (scripts/ops/tenant-commands.ts)
 *
 * `retry` runs the call again through its own workflow's `retryLeg` update (same idempotency
 * keys), prints the outcome and exits 0 when it SUCCEEDED, 1 when the provider failed again, 2
 * when nothing could be retried (bad arguments, nothing recorded, a call that already
 * succeeded, a workflow that no longer waits). `--all` exits 0 only when every call it retried
 * SUCCEEDED.
 */
import { loadDotEnv } from './infra/dotenv';
import { runOps } from './ops/ops-commands';

loadDotEnv();
const env = (name: string) => (process.env[name] ? process.env[name] : undefined);
process.exitCode = await runOps(process.argv.slice(2), {
  // Without DATABASE_URL: npm start's embedded PostgreSQL (scripts/infra/database.ts).
  databaseUrl: env('DATABASE_URL') ?? `postgres://postgres:postgres@127.0.0.1:${env('EMBEDDED_POSTGRES_PORT') ?? 54329}/shade_office`,
  temporalAddress: env('TEMPORAL_ADDRESS') ?? `127.0.0.1:${env('TEMPORAL_DEV_PORT') ?? 7233}`,
  namespace: env('TEMPORAL_NAMESPACE') ?? 'default',
  taskQueue: env('TEMPORAL_TASK_QUEUE') ?? 'shade-office',
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
