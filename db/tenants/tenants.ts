import type { EntityManager } from '@mikro-orm/postgresql';
import { selectTenant } from '../tenant-scope';
import { recordAuditEvent } from '../audit/audit-events';
import type { AuditActor } from '../../domain/audit/audit-entry';
import type { Plan } from '../plans/plan-limits';

/**
 * D22: the operator's view of every workspace and the changes only an operator makes (plan,
 * suspension), as the owner (`npm run ops`), each audited in its own transaction.
 */

export interface TenantSummary {
  id: string;
  subdomain: string;
  name: string;
  plan: Plan;
  suspended_at: Date | null;
  created_at: Date;
  users: number;
}

export async function listTenants(em: EntityManager): Promise<TenantSummary[]> {
  return em.execute<TenantSummary[]>(
    `select o.id, o.subdomain, o.name, o.plan, o.suspended_at, o.created_at, (select count(*)::int from users u where u.organization_id = o.id) as users
       from organizations o order by o.subdomain`,
  );
}

export class UnknownTenant extends Error {
  constructor(readonly subdomain: string) {
    super(`No workspace "${subdomain}".`);
  }
}

export type OperatorChange = { organizationId: string; changed: boolean; before: unknown; after: unknown };

async function changeTenant(
  em: EntityManager,
  subdomain: string,
  actor: AuditActor,
  change: { read: string; write: string; params: unknown[]; value: unknown; field: string; action: 'organization.plan_changed' | 'organization.suspended' | 'organization.resumed' },
): Promise<OperatorChange> {
  return em.fork().transactional(async (tx) => {
    const [row] = await tx.execute<{ id: string; current: unknown }[]>(`select id, ${change.read} as current from organizations where subdomain = ? for update`, [subdomain]);
    if (!row) throw new UnknownTenant(subdomain);
    if (row.current === change.value) return { organizationId: row.id, changed: false, before: row.current, after: row.current };
    await tx.execute(`update organizations set ${change.write} where id = ?`, [...change.params, row.id]);
    await selectTenant(tx, row.id);
    await recordAuditEvent(tx, row.id, { actor, action: change.action, entityType: 'organization', entityId: row.id, changes: [{ field: change.field, before: row.current, after: change.value }], requestId: null });
    return { organizationId: row.id, changed: true, before: row.current, after: change.value };
  });
}

/** D15: the plan changes at once (every draw reads the tenant's plan). */
export function changePlan(em: EntityManager, subdomain: string, plan: Plan, actor: AuditActor): Promise<OperatorChange> {
  return changeTenant(em, subdomain, actor, { read: 'plan', write: 'plan = ?', params: [plan], value: plan, field: 'plan', action: 'organization.plan_changed' });
}

/** D22: a suspended workspace's requests answer 403 from the next one on. */
export function setSuspended(em: EntityManager, subdomain: string, suspended: boolean, actor: AuditActor): Promise<OperatorChange> {
  return changeTenant(em, subdomain, actor, {
    read: 'suspended_at is not null',
    write: suspended ? 'suspended_at = now()' : 'suspended_at = null',
    params: [],
    value: suspended,
    field: 'suspended',
    action: suspended ? 'organization.suspended' : 'organization.resumed',
  });
}

/** Every suspended workspace's id (the worker keeps their schedules paused). */
export async function suspendedTenantIds(em: EntityManager): Promise<Set<string>> {
  const rows = await em.execute<{ id: string }[]>('select id from organizations where suspended_at is not null');
  return new Set(rows.map((row) => row.id));
}

/** The webhook endpoints of a workspace (as the owner): resuming it wakes their held deliveries (D22). */
export async function tenantEndpointIds(em: EntityManager, organizationId: string): Promise<string[]> {
  const rows = await em.fork().execute<{ id: string }[]>('select id from webhook_endpoints where organization_id = ? order by id', [organizationId]);
  return rows.map((row) => row.id);
}
