import pg from 'pg';

/** Temporal's own database role (docker-compose: its schema tools and its server log in as it). */
export const TEMPORAL_ROLE = 'shade_temporal';
/** Temporal's two databases: its state and its visibility store. */
export const TEMPORAL_DATABASES = ['temporal', 'temporal_visibility'] as const;

export interface TemporalDatabaseOptions {
  role?: string;
  databases?: readonly string[];
}

const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * Gives Temporal a role of its own, so that neither its schema tools nor its server hold the
 * owner's password (only the migration step does): the role logs in with `password` (set again
 * on every run, so a new password takes effect), owns Temporal's databases, and can do nothing
 * else (no superuser, no CREATEDB, no CREATEROLE, no grant on our tables). Databases that exist
 * already (a deployment whose Temporal ran as the owner) are handed to the role with everything
 * in their `public` schema, so Temporal's `update-schema` can alter its own tables. Idempotent.
 */
export async function ensureTemporalDatabases(ownerUrl: string, password: string, options: TemporalDatabaseOptions = {}): Promise<void> {
  const role = options.role ?? TEMPORAL_ROLE;
  const databases = options.databases ?? TEMPORAL_DATABASES;
  const server = new URL(ownerUrl);
  server.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
  const handedOver: string[] = [];
  try {
    const exists = await admin.query('select 1 from pg_roles where rolname = $1', [role]);
    const attributes = 'login nosuperuser nocreatedb nocreaterole noinherit noreplication nobypassrls';
    await admin.query(`${exists.rowCount === 0 ? 'create' : 'alter'} role ${identifier(role)} ${attributes} password ${literal(password)}`);
    for (const database of databases) {
      const found = await admin.query('select 1 from pg_database where datname = $1', [database]);
      if (found.rowCount === 0) {
        await admin.query(`create database ${identifier(database)} owner ${identifier(role)}`);
      } else {
        await admin.query(`alter database ${identifier(database)} owner to ${identifier(role)}`);
        handedOver.push(database);
      }
    }
  } finally {
    await admin.end();
  }
  for (const database of handedOver) await handOverObjects(ownerUrl, database, role);
}

/** Makes `role` the owner of the `public` schema of `database` and of everything in it. */
async function handOverObjects(ownerUrl: string, database: string, role: string): Promise<void> {
  const url = new URL(ownerUrl);
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(`alter schema public owner to ${identifier(role)}`);
    const kinds: Record<string, string> = { r: 'table', p: 'table', v: 'view', m: 'materialized view', S: 'sequence', f: 'foreign table' };
    const relations = await client.query<{ name: string; kind: string }>(
      `select c.relname as name, c.relkind::text as kind from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p', 'v', 'm', 'S', 'f') and pg_get_userbyid(c.relowner) <> $1
          and not (c.relkind = 'S' and exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('a', 'i')))`,
      [role],
    );
    for (const relation of relations.rows) await client.query(`alter ${kinds[relation.kind]} public.${identifier(relation.name)} owner to ${identifier(role)}`);
    const routines = await client.query<{ signature: string }>(
      `select p.oid::regprocedure::text as signature from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'public' and pg_get_userbyid(p.proowner) <> $1`,
      [role],
    );
    for (const routine of routines.rows) await client.query(`alter routine ${routine.signature} owner to ${identifier(role)}`);
  } finally {
    await client.end();
  }
}
