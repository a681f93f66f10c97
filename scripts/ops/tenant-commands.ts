/**
 * D22: `npm run ops -- tenant create|list|plan|suspend|resume`, as the owner (DATABASE_URL) and
 * against Temporal (TEMPORAL_ADDRESS). Creation runs the `tenantProvisioning` workflow (a worker
 * must be running: `npm start` runs one); the rest are one audited transaction each, and
 * suspending or resuming also pauses or un-pauses the tenant's schedules.
 */
import type { Client } from '@temporalio/client';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AuditActor } from '../../domain/audit/audit-entry';
import { PLANS, type Plan } from '../../db/plans/plan-limits';
import { changePlan, listTenants, setSuspended, tenantEndpointIds, UnknownTenant } from '../../db/tenants/tenants';
import { TENANT_USAGE, TenantUsageError } from './usage';

export { TENANT_USAGE, TenantUsageError };

/** The audit log's actor of everything `ops` changes. */
const OPERATOR: AuditActor = { type: 'operator', id: null, email: null };

export interface TenantCommandContext {
  em: EntityManager;
  withTemporal: <T>(work: (client: Client) => Promise<T>) => Promise<T>;
  taskQueue: string;
  out: (line: string) => void;
}

function options(args: string[], names: readonly string[]): Record<string, string> {
  const found: Record<string, string> = {};
  for (let i = 0; i < args.length; i += 2) {
    const name = args[i]!;
    const value = args[i + 1];
    if (!names.includes(name) || value === undefined || value.startsWith('--') || name in found) throw new TenantUsageError(`Unexpected argument "${name}".\n${TENANT_USAGE}`);
    found[name] = value;
  }
  return found;
}

async function create(ctx: TenantCommandContext, args: string[]): Promise<number> {
  const given = options(args, ['--subdomain', '--name', '--admin-email', '--plan', '--template']);
  const { TenantCreateInput } = await import('../../domain/organizations/templates');
  const parsed = TenantCreateInput.safeParse({ subdomain: given['--subdomain'], name: given['--name'], adminEmail: given['--admin-email'], plan: given['--plan'], template: given['--template'] });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = { subdomain: '--subdomain', name: '--name', adminEmail: '--admin-email', plan: '--plan', template: '--template' }[String(issue.path[0])] ?? String(issue.path[0]);
    throw new TenantUsageError(`${flag}: ${issue.message}.\n${TENANT_USAGE}`);
  }
  const input = parsed.data;
  const { provisionTenant } = await import('../../infra/temporal/tenant-workflows');
  const result = await ctx.withTemporal((client) => provisionTenant(client, ctx.taskQueue, input));
  const made = [result.workspace === 'created' && 'the workspace', result.priceBook === 'created' && `its first price book (template ${input.template})`, result.admin === 'created' && `its first ADMIN ${input.adminEmail} (invited)`].filter(Boolean);
  if (made.length === 0) {
    ctx.out(`Nothing changed: the workspace "${input.subdomain}" (${result.organizationId}) already exists, with its price book and its first ADMIN.`);
  } else {
    ctx.out(`${result.workspace === 'created' ? 'Created' : 'Completed'} the workspace "${input.subdomain}" (${result.organizationId}): made ${made.join(', ')}${result.joined ? '; joined the provisioning already running' : ''}.`);
    if (result.admin === 'created') ctx.out(`The first ADMIN signs in at workspace "${input.subdomain}" once they accept their invitation.`);
  }
  return 0;
}

async function list(ctx: TenantCommandContext): Promise<number> {
  const tenants = await listTenants(ctx.em.fork());
  const table = [['SUBDOMAIN', 'NAME', 'PLAN', 'STATUS', 'USERS', 'CREATED', 'ID']].concat(
    tenants.map((t) => [t.subdomain, t.name, t.plan, t.suspended_at ? `suspended ${new Date(t.suspended_at).toISOString()}` : 'active', String(t.users), new Date(t.created_at).toISOString(), t.id]),
  );
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table) ctx.out(row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
  ctx.out(`${tenants.length} workspace${tenants.length === 1 ? '' : 's'}.`);
  return 0;
}

async function plan(ctx: TenantCommandContext, args: string[]): Promise<number> {
  const [subdomain, wanted, ...extra] = args;
  if (!subdomain || !wanted || extra.length > 0 || !(PLANS as readonly string[]).includes(wanted)) throw new TenantUsageError(TENANT_USAGE);
  const change = await changePlan(ctx.em, subdomain, wanted as Plan, OPERATOR);
  ctx.out(change.changed ? `The workspace "${subdomain}" is now on ${wanted} (was ${String(change.before)}); its next /v1/ request draws on the ${wanted} bucket.` : `Nothing changed: the workspace "${subdomain}" is already on ${wanted}.`);
  return 0;
}

async function suspendOrResume(ctx: TenantCommandContext, args: string[], suspend: boolean): Promise<number> {
  const [subdomain, ...extra] = args;
  if (!subdomain || extra.length > 0) throw new TenantUsageError(TENANT_USAGE);
  const { pauseTenantSchedules, resumeTenantSchedules, wakeEndpointDeliveries } = await import('../../infra/temporal/tenant-workflows');
  const change = await setSuspended(ctx.em, subdomain, suspend, OPERATOR);
  // The schedules follow even when the flag was already set (a previous run may have stopped before this step).
  const schedules = await ctx.withTemporal((client) => (suspend ? pauseTenantSchedules(client, change.organizationId) : resumeTenantSchedules(client, change.organizationId)));
  const what = suspend ? 'suspended: its requests answer 403' : 'active again';
  ctx.out(change.changed ? `The workspace "${subdomain}" is ${what}.` : `Nothing changed: the workspace "${subdomain}" was already ${suspend ? 'suspended' : 'active'}.`);
  if (schedules.length > 0) ctx.out(`${suspend ? 'Paused' : 'Resumed'} ${schedules.length} schedule${schedules.length === 1 ? '' : 's'}: ${schedules.join(', ')}.`);
  if (!suspend) {
    // The held webhook deliveries go out now rather than at their endpoints' next look.
    const endpoints = await tenantEndpointIds(ctx.em, change.organizationId);
    const woken = endpoints.length > 0 ? await ctx.withTemporal((client) => wakeEndpointDeliveries(client, endpoints)) : 0;
    if (woken > 0) ctx.out(`Woke the webhook deliveries of ${woken} endpoint${woken === 1 ? '' : 's'}.`);
  }
  return 0;
}

/** Runs one `tenant` subcommand; exit code 0 when done (or nothing needed doing), 2 on bad arguments or an unknown workspace. */
export async function tenantCommand(ctx: TenantCommandContext, args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  try {
    if (sub === 'create') return await create(ctx, rest);
    if (sub === 'list' && rest.length === 0) return await list(ctx);
    if (sub === 'plan') return await plan(ctx, rest);
    if (sub === 'suspend') return await suspendOrResume(ctx, rest, true);
    if (sub === 'resume') return await suspendOrResume(ctx, rest, false);
  } catch (error) {
    if (error instanceof UnknownTenant) throw new TenantUsageError(error.message);
    throw error;
  }
  throw new TenantUsageError(TENANT_USAGE);
}
