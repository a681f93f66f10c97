/**
 * D19: the operator's repair command, against the running stack (npm start's database and
 * Temporal) or a deployment's (`DATABASE_URL`, as the owner the migrations use, and
 * `TEMPORAL_ADDRESS`).
 *
 *   npm run ops -- failed                                          every FAILED leg, all tenants
 *   npm run ops -- retry <quote number> <provider> --tenant <subdomain>
 *
 * `retry` runs the leg again through the approval's `retryLeg` update (same idempotency keys),
 * prints the outcome and exits 0 when it SUCCEEDED, 1 when the provider failed again, 2 when
 * nothing could be retried (bad arguments, no such quote, the approval is not waiting).
 */
import pg from 'pg';
import { Client, Connection } from '@temporalio/client';
import { loadDotEnv } from './infra/dotenv';
import { approvalWorkflowId, type LegOutcome, type LegProvider } from '../infra/temporal/contracts';
import { RepairUnavailable, retryApprovalLeg } from '../infra/temporal/leg-repair';
import { InvoiceRunner } from '../infra/temporal/invoice-runner';

loadDotEnv();
const env = (name: string) => (process.env[name] ? process.env[name] : undefined);
// Without DATABASE_URL: npm start's embedded PostgreSQL (scripts/infra/database.ts).
const databaseUrl = env('DATABASE_URL') ?? `postgres://postgres:postgres@127.0.0.1:${env('EMBEDDED_POSTGRES_PORT') ?? 54329}/shade_office`;
const temporalAddress = env('TEMPORAL_ADDRESS') ?? `127.0.0.1:${env('TEMPORAL_DEV_PORT') ?? 7233}`;
const PROVIDERS: Record<string, LegProvider> = { payments: 'PAYMENTS', accounting: 'ACCOUNTING', crm: 'CRM' };
const USAGE = 'usage: npm run ops -- failed\n       npm run ops -- retry <quote number> <payments|accounting|crm> --tenant <subdomain>';

class UsageError extends Error {}

interface FailedLeg {
  subdomain: string;
  quote_number: number;
  quote_id: string;
  provider: LegProvider;
  attempts: number;
  last_error: string | null;
}

async function failed(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<FailedLeg>(
    `select o.subdomain, q.quote_number, q.id as quote_id, s.provider, s.attempts, s.last_error
       from sync_records s join organizations o on o.id = s.organization_id join quotes q on q.id = s.quote_id
      where s.status = 'FAILED' order by o.subdomain, q.quote_number, s.provider`,
  );
  if (rows.length === 0) {
    console.log('No FAILED legs.');
    return 0;
  }
  const table = [['TENANT', 'QUOTE', 'PROVIDER', 'ATTEMPTS', 'LAST ERROR', 'WORKFLOW ID']].concat(
    rows.map((r) => [r.subdomain, String(r.quote_number), r.provider.toLowerCase(), String(r.attempts), oneLine(r.last_error ?? ''), approvalWorkflowId(r.quote_id)]),
  );
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) console.log(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  console.log(`${rows.length} FAILED leg${rows.length === 1 ? '' : 's'}. Repair one: npm run ops -- retry <quote number> <provider> --tenant <subdomain>`);
  return 0;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}

async function retry(db: pg.Pool, args: string[]): Promise<number> {
  const tenantAt = args.indexOf('--tenant');
  const subdomain = tenantAt >= 0 ? args[tenantAt + 1] : undefined;
  const positional = args.filter((_, i) => tenantAt < 0 || (i !== tenantAt && i !== tenantAt + 1));
  const [numberText, providerText] = positional;
  if (!subdomain || positional.length !== 2 || !numberText || !/^[1-9][0-9]{0,9}$/.test(numberText) || !providerText || !PROVIDERS[providerText.toLowerCase()]) {
    throw new UsageError(USAGE);
  }
  const provider = PROVIDERS[providerText.toLowerCase()]!;
  const { rows } = await db.query<{ organization_id: string; quote_id: string; status: string | null; attempts: number | null }>(
    `select o.id as organization_id, q.id as quote_id, s.status, s.attempts
       from organizations o join quotes q on q.organization_id = o.id
       left join sync_records s on s.quote_id = q.id and s.provider = $3
      where o.subdomain = $1 and q.quote_number = $2`,
    [subdomain, Number(numberText), provider],
  );
  const quote = rows[0];
  if (!quote) throw new UsageError(`No quote ${numberText} in the workspace "${subdomain}".`);
  const label = `quote ${numberText} (${subdomain}), ${provider.toLowerCase()} leg`;
  console.log(`Retrying the ${label}: it is ${quote.status ?? 'not recorded'}${quote.attempts ? ` after ${quote.attempts} attempt${quote.attempts === 1 ? '' : 's'}` : ''}; workflow ${approvalWorkflowId(quote.quote_id)}.`);

  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const client = new Client({ connection, namespace: env('TEMPORAL_NAMESPACE') ?? 'default' });
    let outcome: LegOutcome;
    try {
      outcome =
        provider === 'PAYMENTS'
          ? // The payments leg also runs alone once its approval has ended, as POST /quotes/{id}/invoice does.
            await new InvoiceRunner(client, { taskQueue: env('TEMPORAL_TASK_QUEUE') ?? 'shade-office' }).run({ organizationId: quote.organization_id, quoteId: quote.quote_id, quoteNumber: Number(numberText) })
          : await retryApprovalLeg(client, { quoteId: quote.quote_id, provider });
    } catch (error) {
      if (error instanceof RepairUnavailable) throw new UsageError(`Nothing retried: ${error.message}.`);
      throw error;
    }
    if (outcome.status === 'SUCCEEDED') {
      console.log(`SUCCEEDED: the ${label} is written (provider id ${outcome.externalId ?? 'unknown'}).`);
      return 0;
    }
    if (outcome.status === 'SKIPPED') {
      console.log(`SKIPPED: the ${label} was skipped at approval (provider not connected); nothing was called.`);
      return 2;
    }
    console.error(`FAILED again: the ${label}: ${outcome.error ?? 'unknown error'}. It still waits for a repair.`);
    return 1;
  } finally {
    await connection.close();
  }
}

const [command, ...rest] = process.argv.slice(2);
const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
let code: number;
try {
  if (command === 'failed' && rest.length === 0) code = await failed(db);
  else if (command === 'retry') code = await retry(db, rest);
  else throw new UsageError(USAGE);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(error.message);
  code = 2;
} finally {
  await db.end();
}
process.exitCode = code;
