import type { EntityManager } from '@mikro-orm/postgresql';
import { beyond, keyset, microseconds, TimeAndId } from '../cursor';
import { containsPattern, customerText } from '../text-search';
import { tablesOf } from '../tables';

/**
 * The tenant's customers: the one list query of `customers` (D14's `/v1/customers`, GraphQL's
 * customers) with its batch loader, and adding one. Everything runs in the caller's tenant
 * transaction (row-level security picks the tenant).
 */

export interface CustomerRow {
  id: string;
  name: string;
  email: string | null;
  created_at: Date;
  /** created_at to the microsecond, the list's position. */
  cursor_created_at: string;
}

/** (created_at, id), in the order the list was asked for. */
export const CUSTOMER_KEYSET = keyset(TimeAndId, (row: CustomerRow) => [row.cursor_created_at, row.id] as const);

function customers(em: EntityManager) {
  return tablesOf(em)
    .selectFrom('customers as c')
    .select((eb) => ['c.id', 'c.name', 'c.email', 'c.created_at', microseconds(eb.ref('c.created_at')).as('cursor_created_at')]);
}

/** One page (`limit` + 1 rows) oldest or newest first, after a position of CUSTOMER_KEYSET; `q`: text in the name or email. */
export function customerPage(
  em: EntityManager,
  page: { order: 'oldest' | 'newest'; after?: readonly [string, string] | undefined; limit: number; q?: string | undefined },
): Promise<CustomerRow[]> {
  const direction = page.order === 'oldest' ? 'asc' : 'desc';
  let query = customers(em);
  if (page.q !== undefined) {
    const pattern = containsPattern(page.q);
    query = query.where((eb) => eb(customerText(eb.ref('c.name'), eb.ref('c.email')), 'ilike', pattern));
  }
  if (page.after) {
    const [createdAt, id] = page.after;
    query = query.where((eb) => beyond([eb.ref('c.created_at'), eb.ref('c.id')], direction, [createdAt, id]));
  }
  return query.orderBy('c.created_at', direction).orderBy('c.id', direction).limit(page.limit + 1).execute();
}

export function customersByIds(em: EntityManager, ids: readonly string[]): Promise<CustomerRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return customers(em).where('c.id', 'in', ids).execute();
}

/** D14: the tenant's customers as `/v1/customers` lists and adds them. */
export interface CustomerRecord {
  id: string;
  name: string;
  email: string | null;
  createdAt: string;
}

interface Row {
  id: string;
  name: string;
  email: string | null;
  created_at: Date;
}

const toRecord = (row: Row): CustomerRecord => ({ id: row.id, name: row.name, email: row.email, createdAt: new Date(row.created_at).toISOString() });

/** A customer as `/v1/customers` shows it. */
export const customerRecord = (row: CustomerRow): CustomerRecord => toRecord(row);

/** A new customer; with an email, the tenant's customer of that email if there is one (created false). */
export async function addCustomer(em: EntityManager, customer: { name: string; email?: string | undefined }): Promise<{ customer: CustomerRecord; created: boolean }> {
  if (customer.email) {
    const [existing] = await em.execute<Row[]>('select id, name, email, created_at from customers where lower(email) = lower(?)', [customer.email]);
    if (existing) return { customer: toRecord(existing), created: false };
  }
  const [row] = await em.execute<Row[]>(
    `insert into customers (organization_id, name, email) values (app_current_organization(), ?, ?)
     on conflict (organization_id, lower(email)) where email is not null do update set name = customers.name
     returning id, name, email, created_at`,
    [customer.name, customer.email ?? null],
  );
  return { customer: toRecord(row!), created: true };
}
