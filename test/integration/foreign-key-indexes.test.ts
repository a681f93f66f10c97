import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { ownerPool } from '../../scripts/harness/owner-db';
import { APP_ROLE, WORKER_ROLE } from '../../db/migrations/rls';

/**
 * When a parent row is deleted, PostgreSQL looks up its children through each foreign key that
 * references it; without an index on the key's columns that is a scan of the whole child table per
 * parent row. Deleting a webhook endpoint cascaded to its deliveries and on to their attempts that
 * way, and took minutes for an endpoint with 15,000 deliveries (migration 20261126100000). So:
 * every foreign key whose parent rows an application role can delete, directly (a DELETE grant)
 * or through an ON DELETE CASCADE from such a table, is backed by an index on its columns.
 */
let owner: pg.Pool;

beforeAll(() => {
  owner = ownerPool();
});
afterAll(async () => {
  await owner.end();
});

interface ForeignKey {
  name: string;
  child: string;
  parent: string;
  cascades: boolean;
  columns: string[];
}

/** An index serves the lookup when it starts with the key's columns, or with the key's own id column (not the tenant). */
function servedBy(key: ForeignKey, indexes: { table: string; columns: string[] }[]): boolean {
  return indexes.some(({ table, columns }) => {
    if (table !== key.child) return false;
    const leading = columns.slice(0, key.columns.length);
    const coversAll = leading.length === key.columns.length && key.columns.every((c) => leading.includes(c));
    return coversAll || (key.columns.includes(columns[0]!) && columns[0] !== 'organization_id');
  });
}

describe('foreign keys of rows the application deletes are indexed', () => {
  it('every foreign key whose parent rows an application role can delete, directly or by cascade, has an index on its columns', async () => {
    const grants = await owner.query<{ table_name: string }>(
      `select distinct table_name from information_schema.role_table_grants
        where table_schema = 'public' and grantee in ($1, $2) and privilege_type = 'DELETE'`,
      [APP_ROLE, WORKER_ROLE],
    );
    const keys = (
      await owner.query<{ name: string; child: string; parent: string; on_delete: string; columns: string[] }>(
        `select c.conname as name, c.conrelid::regclass::text as child, c.confrelid::regclass::text as parent, c.confdeltype as on_delete,
                array(select a.attname::text from unnest(c.conkey) with ordinality k(num, ord)
                        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.num order by k.ord) as columns
           from pg_constraint c where c.contype = 'f' and c.connamespace = 'public'::regnamespace`,
      )
    ).rows.map((r): ForeignKey => ({ name: r.name, child: r.child, parent: r.parent, cascades: r.on_delete === 'c', columns: r.columns }));
    const indexes = (
      await owner.query<{ table: string; columns: string[] }>(
        `select i.indrelid::regclass::text as table,
                array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality k(num, ord)
                        join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.num order by k.ord) as columns
           from pg_index i join pg_class t on t.oid = i.indrelid
          where t.relnamespace = 'public'::regnamespace and i.indpred is null`,
      )
    ).rows;

    // Tables whose rows go away: granted DELETE, and, to a fixed point, the children they cascade to.
    const deletable = new Set(grants.rows.map((r) => r.table_name));
    for (let grew = true; grew; ) {
      grew = false;
      for (const key of keys) {
        if (key.cascades && deletable.has(key.parent) && !deletable.has(key.child)) {
          deletable.add(key.child);
          grew = true;
        }
      }
    }
    const checked = keys.filter((key) => deletable.has(key.parent));
    // The chain that was slow is among those checked.
    expect(checked.map((k) => `${k.child} -> ${k.parent}`)).toEqual(expect.arrayContaining(['webhook_deliveries -> webhook_endpoints', 'webhook_delivery_attempts -> webhook_deliveries']));
    expect(checked.filter((key) => !servedBy(key, indexes)).map((k) => `${k.name} (${k.child}: ${k.columns.join(', ')})`)).toEqual([]);
  });
});
