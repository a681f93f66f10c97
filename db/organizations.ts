import type { EntityManager } from '@mikro-orm/postgresql';
import type { Plan } from './plans/plan-limits';
import { withDefaults, type OrganizationSettings, type SettingsPatch, type StoredSettings } from '../domain/organizations/settings';
import type { Standing } from '../domain/organizations/suspension';

/** Every tenant's id, through the security-definer `tenant_ids()` (for jobs that visit each tenant in turn). */
export async function allTenantIds(em: EntityManager): Promise<string[]> {
  const tenants = await em.execute<{ tenant_ids: string }[]>('select tenant_ids()');
  return tenants.map((row) => row.tenant_ids);
}

/**
 * D22: the standing of the tenant of this transaction (whether it is suspended), read inside its
 * transaction by every door that acts for it (domain/organizations/suspension.ts says what each does).
 */
export async function tenantStanding(tx: EntityManager): Promise<Standing> {
  const [row] = await tx.execute<{ suspended_at: Date | null }[]>('select suspended_at from organizations where id = app_current_organization()');
  return { suspendedAt: row?.suspended_at ? new Date(row.suspended_at) : null };
}

export interface TechnicalContact {
  /** Null only for a workspace with no ADMIN and no contact set. */
  email: string | null;
  /** True when no contact is set and this is the first ADMIN's email (D13). */
  is_default: boolean;
}

/**
 * The tenant's technical contact (D13), through the security-definer door that both processes
 * may call: the setting, else the first ADMIN's email. Runs inside the tenant's transaction.
 */
export async function technicalContact(em: EntityManager): Promise<TechnicalContact | undefined> {
  const [row] = await em.execute<TechnicalContact[]>('select email, is_default from organization_technical_contact()');
  return row;
}

export interface OrganizationRow {
  id: string;
  name: string;
  subdomain: string;
  plan: Plan;
}

/** The tenant's own row (row-level security shows no other). */
export async function currentOrganization(em: EntityManager): Promise<OrganizationRow | undefined> {
  const [row] = await em.execute<OrganizationRow[]>('select id, name, subdomain, plan from organizations where id = app_current_organization()');
  return row;
}

/** Sets the technical contact; null returns to the default (the first ADMIN's email). */
export async function setTechnicalContact(em: EntityManager, email: string | null): Promise<void> {
  await em.execute('update organizations set technical_contact_email = ? where id = app_current_organization()', [email]);
}

/** The subdomain of the tenant of this transaction, and the number of one of its quotes (null when none). */
export async function subdomainAndQuoteNumber(em: EntityManager, quoteId: string | null): Promise<{ subdomain: string; quote_number: number | null } | undefined> {
  const [row] = await em.execute<{ subdomain: string; quote_number: number | null }[]>(
    `select o.subdomain, (select q.quote_number from quotes q where q.id = ?) as quote_number
       from organizations o where o.id = app_current_organization()`,
    [quoteId],
  );
  return row;
}

/**
 * Issue 30: the tenant's subdomain, and whether a completed job has an invoice to reconcile (with
 * its quote's id and number), in one read: a job's `job.completed` names only the job. An invoice
 * waiting for a customer is not yet to be invoiced (D11): `job.customer_changed` asks again once one is set.
 */
export async function subdomainAndCompletionInvoice(
  em: EntityManager,
  jobId: string,
): Promise<{ subdomain: string; invoiced: boolean; quote_id: string | null; quote_number: number | null } | undefined> {
  const [row] = await em.execute<{ subdomain: string; invoiced: boolean; quote_id: string | null; quote_number: number | null }[]>(
    `select o.subdomain, c.work_order_id is not null and (c.quote_id is not null or c.customer_id is not null) and c.awaiting_price is null as invoiced, c.quote_id, q.quote_number
       from organizations o left join job_completion_invoices c on c.work_order_id = ? left join quotes q on q.id = c.quote_id
      where o.id = app_current_organization()`,
    [jobId],
  );
  return row;
}

const SETTINGS_COLUMNS = `name, display_name, time_zone, working_day_start, quote_validity_days, depot_lat, depot_lon,
  road_factor::float8 as road_factor, average_speed_kmh, overtime_cap_minutes, eta_drift_threshold_minutes, dispatch_coalesce_seconds,
  business_address, business_phone, quote_terms`;

/**
 * The tenant's settings (D11, D3, D22, D23) with every default applied: the one read of them for
 * the API, the worker and routing. Runs inside the tenant's transaction (db/tenant-scope.ts).
 */
export async function organizationSettings(em: EntityManager): Promise<OrganizationSettings> {
  const [row] = await em.execute<StoredSettings[]>(`select ${SETTINGS_COLUMNS} from organizations where id = app_current_organization()`);
  if (!row) throw new Error('the tenant selected has no organization row');
  return withDefaults(row);
}

/** Stores the settings a PATCH names (absent ones unchanged; a null depot clears it). */
export async function updateOrganizationSettings(em: EntityManager, patch: SettingsPatch): Promise<void> {
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => {
    sets.push(`${column} = ?`);
    values.push(value);
  };
  const scalar = [
    'display_name', 'time_zone', 'working_day_start', 'quote_validity_days', 'road_factor', 'average_speed_kmh', 'overtime_cap_minutes', 'eta_drift_threshold_minutes', 'dispatch_coalesce_seconds',
    'business_address', 'business_phone', 'quote_terms',
  ] as const;
  for (const key of scalar) if (patch[key] !== undefined) set(key, patch[key]);
  if (patch.depot !== undefined) {
    set('depot_lat', patch.depot?.lat ?? null);
    set('depot_lon', patch.depot?.lon ?? null);
  }
  if (sets.length === 0) return;
  await em.execute(`update organizations set ${sets.join(', ')} where id = app_current_organization()`, values);
}

/** D24: the workspace's logo as its settings name it (not its bytes). */
export interface LogoFacts {
  content_type: 'image/png' | 'image/jpeg';
  size_bytes: number;
  sha256: string;
  width: number;
  height: number;
  updated_at: Date;
}

export async function organizationLogoFacts(em: EntityManager): Promise<LogoFacts | undefined> {
  const [row] = await em.execute<LogoFacts[]>(
    'select content_type, octet_length(bytes)::int as size_bytes, sha256, width, height, updated_at from organization_logos where organization_id = app_current_organization()',
  );
  return row;
}

/** The logo's bytes, for the quote page and its PDF (D24). */
export async function organizationLogo(em: EntityManager): Promise<{ content_type: LogoFacts['content_type']; bytes: Buffer } | undefined> {
  const [row] = await em.execute<{ content_type: LogoFacts['content_type']; bytes: Buffer }[]>('select content_type, bytes from organization_logos where organization_id = app_current_organization()');
  return row;
}

export async function putOrganizationLogo(em: EntityManager, logo: { contentType: LogoFacts['content_type']; bytes: Buffer; sha256: string; width: number; height: number }): Promise<void> {
  await em.execute(
    `insert into organization_logos (organization_id, content_type, bytes, sha256, width, height) values (app_current_organization(), ?, ?, ?, ?, ?)
     on conflict (organization_id) do update set content_type = excluded.content_type, bytes = excluded.bytes, sha256 = excluded.sha256,
       width = excluded.width, height = excluded.height, updated_at = now()`,
    [logo.contentType, logo.bytes, logo.sha256, logo.width, logo.height],
  );
}

export async function deleteOrganizationLogo(em: EntityManager): Promise<void> {
  await em.execute('delete from organization_logos where organization_id = app_current_organization()');
}
