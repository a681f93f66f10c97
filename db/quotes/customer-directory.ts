import type { EntityManager } from '@mikro-orm/postgresql';

/** D14: the tenant's customers as `/v1/customers` lists and adds them (tenant transaction). */
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

export class UnknownCustomerCursorError extends Error {}

/** Oldest first on (created_at, id); the cursor is the id of the last customer seen. */
export async function listCustomers(em: EntityManager, page: { limit: number; cursor?: string | undefined }): Promise<{ data: CustomerRecord[]; next_cursor: string | null }> {
  const params: unknown[] = [];
  let where = '';
  if (page.cursor) {
    const [anchor] = await em.execute<{ id: string }[]>('select id from customers where id::text = ?', [page.cursor]);
    if (!anchor) throw new UnknownCustomerCursorError();
    where = 'where (created_at, id) > (select created_at, id from customers where id = ?)';
    params.push(anchor.id);
  }
  const rows = await em.execute<Row[]>(`select id, name, email, created_at from customers ${where} order by created_at, id limit ?`, [...params, page.limit + 1]);
  const data = rows.slice(0, page.limit).map(toRecord);
  return { data, next_cursor: rows.length > page.limit ? data[data.length - 1]!.id : null };
}

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
