import type { EntityManager } from '@mikro-orm/postgresql';
import Decimal from 'decimal.js';
import { decodeCursor, encodeCursor, TimeAndId } from '../cursor';
import { SETTING_RULES, sortedContent, type PricebookContent, type PricebookProduct, type PricebookSettings, type PricebookSku } from '../../domain/pricebook/content';

/**
 * D21: the price book's revisions as stored (rate_card_revisions and its SKUs, tiers and
 * products). Every function runs in the caller's tenant transaction. A revision is named by its
 * stamp to the millisecond (`revision`, the quote's `pricebookRevision`); revisions are only ever
 * inserted.
 */
export interface RevisionHead {
  id: string;
  /** ISO-8601 to the millisecond. */
  revision: string;
  effectiveFrom: string;
  publishedByUserId: string | null;
  productsListed: boolean;
}

interface HeadRow {
  id: string;
  revision: Date;
  effective_from: Date;
  published_by_user_id: string | null;
  products_listed: boolean;
  revision_us: string;
}

const HEAD_COLUMNS = `id, revision, effective_from, published_by_user_id, products_listed,
  to_char(revision at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as revision_us`;

const toHead = (row: HeadRow): RevisionHead => ({
  id: row.id,
  revision: new Date(row.revision).toISOString(),
  effectiveFrom: new Date(row.effective_from).toISOString(),
  publishedByUserId: row.published_by_user_id,
  productsListed: row.products_listed,
});

/** The revision current at the transaction's instant (by effective_from; D21). */
export async function currentRevision(em: EntityManager): Promise<RevisionHead | undefined> {
  const [row] = await em.execute<HeadRow[]>(`select ${HEAD_COLUMNS} from rate_card_revisions where id = rate_card_revision_at(now())`);
  return row ? toHead(row) : undefined;
}

/** The newest revision, a scheduled one included: what the next change set must be based on. */
export async function newestRevision(em: EntityManager): Promise<RevisionHead | undefined> {
  const [row] = await em.execute<HeadRow[]>(`select ${HEAD_COLUMNS} from rate_card_revisions order by revision desc limit 1`);
  return row ? toHead(row) : undefined;
}

/** The revision of this stamp (to the millisecond), if the tenant has one. */
export async function revisionByStamp(em: EntityManager, stamp: string): Promise<RevisionHead | undefined> {
  // Only an RFC 3339 instant within years 1-9999 can name a revision; anything else names none.
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(stamp)) return undefined;
  const at = new Date(stamp);
  if (Number.isNaN(at.getTime()) || at.getUTCFullYear() < 1 || at.getUTCFullYear() > 9999) return undefined;
  const [row] = await em.execute<HeadRow[]>(
    `select ${HEAD_COLUMNS} from rate_card_revisions where date_trunc('milliseconds', revision) = ?::timestamptz order by revision desc limit 1`,
    [at.toISOString()],
  );
  return row ? toHead(row) : undefined;
}

export async function revisionById(em: EntityManager, id: string): Promise<RevisionHead | undefined> {
  const [row] = await em.execute<HeadRow[]>(`select ${HEAD_COLUMNS} from rate_card_revisions where id = ?`, [id]);
  return row ? toHead(row) : undefined;
}

/** Newest first, keyset paged (db/cursor.ts). */
export async function revisionPage(em: EntityManager, page: { limit: number; cursor?: string | undefined }): Promise<{ data: RevisionHead[]; next_cursor: string | null } | 'bad_cursor'> {
  let after: readonly [string, string] | undefined;
  if (page.cursor !== undefined) {
    after = decodeCursor({ position: TimeAndId }, page.cursor);
    if (!after) return 'bad_cursor';
  }
  const rows = await em.execute<HeadRow[]>(
    `select ${HEAD_COLUMNS} from rate_card_revisions ${after ? 'where (revision, id) < (?::timestamptz, ?::uuid)' : ''} order by revision desc, id desc limit ?`,
    after ? [after[0], after[1], page.limit + 1] : [page.limit + 1],
  );
  const data = rows.slice(0, page.limit);
  const last = rows.length > page.limit ? data[data.length - 1]! : undefined;
  return { data: data.map(toHead), next_cursor: last ? encodeCursor([last.revision_us, last.id]) : null };
}

const plain = (text: string) => new Decimal(text).toFixed();

/** A revision whole: settings, every SKU (inactive ones too), tiers and products. */
export async function revisionContent(em: EntityManager, head: RevisionHead): Promise<PricebookContent> {
  const [settingsRow] = await em.execute<Record<string, string>[]>(
    `select ${SETTING_RULES.map((r) => `${r.name}::text as ${r.name}`).join(', ')} from rate_card_revisions where id = ?`,
    [head.id],
  );
  const settings = Object.fromEntries(SETTING_RULES.map((r) => [r.name, plain(settingsRow![r.name]!)])) as PricebookSettings;
  const skus = await em.execute<(Omit<PricebookSku, 'unit_cost_cents'> & { unit_cost_cents: string })[]>(
    `select code, component, description, unit, unit_cost_cents::text as unit_cost_cents, active from rate_card_skus where revision_id = ?`,
    [head.id],
  );
  const tiers = await em.execute<{ code: string; name: string; hourly_rate_cents: number; multiplier: string }[]>(
    `select code, name, hourly_rate_cents, multiplier::text as multiplier from rate_card_labour_tiers where revision_id = ?`,
    [head.id],
  );
  // Revisions made before D21 list no products: theirs are the tenant's catalogue.
  const products = await em.execute<PricebookProduct[]>(
    head.productsListed
      ? `select sku, name, fabric_sku_code as fabric_sku, hardware_sku_code as hardware_sku, trim_sku_code as trim_sku, active from rate_card_products where revision_id = ?`
      : `select sku, name, fabric_sku_code as fabric_sku, hardware_sku_code as hardware_sku, trim_sku_code as trim_sku, true as active from catalogue_products where ?::uuid is not null`,
    [head.id],
  );
  return sortedContent({
    settings,
    skus: skus.map((s) => ({ ...s, unit_cost_cents: plain(s.unit_cost_cents) })),
    labour_tiers: tiers.map((t) => ({ ...t, hourly_rate_cents: Number(t.hourly_rate_cents), multiplier: plain(t.multiplier) })),
    products,
  });
}

/**
 * Serialises publications of one tenant (the transaction's advisory lock), so two admins based on
 * the same revision cannot both publish: the second sees the first's revision and gets its 409.
 */
export async function lockPricebook(em: EntityManager, organizationId: string): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock(hashtextextended('pricebook:' || ?, 0))`, [organizationId]);
}

/**
 * The instant a publication made now takes effect: the stamp insertRevision would give it (the
 * clock to the millisecond, after the newest revision). Read after lockPricebook, never now():
 * now() is the transaction's start, so a publication that waited on the lock behind another
 * would see that one's revision as becoming current after its own "now" and refuse an
 * effective_from its caller never sent.
 */
export async function publicationInstant(em: EntityManager): Promise<Date> {
  const [row] = await em.execute<{ at: Date }[]>(
    `select greatest(date_trunc('milliseconds', clock_timestamp()),
                     date_trunc('milliseconds', (select max(revision) from rate_card_revisions)) + interval '1 millisecond') as at`,
  );
  return new Date(row!.at);
}

/**
 * Inserts a revision whole (one statement per table, so a 5,000-SKU file is four statements) and
 * answers its head. Its stamp is the publication instant to the millisecond, after the newest.
 */
export async function insertRevision(
  em: EntityManager,
  organizationId: string,
  input: { content: PricebookContent; effectiveFrom: Date | null; publishedByUserId: string | null; basedOn: RevisionHead },
): Promise<RevisionHead> {
  const s = input.content.settings;
  const [row] = await em.execute<HeadRow[]>(
    `insert into rate_card_revisions (organization_id, revision, effective_from, products_listed, published_by_user_id,
       ${SETTING_RULES.map((r) => r.name).join(', ')})
     select ?, stamp, coalesce(?::timestamptz, stamp), true, ?, ${SETTING_RULES.map(() => '?::numeric').join(', ')}
       from (select greatest(date_trunc('milliseconds', clock_timestamp()),
                             date_trunc('milliseconds', (select max(revision) from rate_card_revisions)) + interval '1 millisecond') as stamp) t
     returning ${HEAD_COLUMNS}`,
    [organizationId, input.effectiveFrom?.toISOString() ?? null, input.publishedByUserId, ...SETTING_RULES.map((r) => s[r.name])],
  );
  const head = toHead(row!);
  await em.execute(
    `insert into rate_card_skus (organization_id, revision_id, code, component, description, unit, unit_cost_cents, active)
     select ?, ?, x.code, x.component, x.description, x.unit, x.unit_cost_cents::numeric, x.active
       from jsonb_to_recordset(?::jsonb) as x(code text, component text, description text, unit text, unit_cost_cents text, active boolean)`,
    [organizationId, head.id, JSON.stringify(input.content.skus)],
  );
  await em.execute(
    `insert into rate_card_labour_tiers (organization_id, revision_id, code, name, hourly_rate_cents, multiplier)
     select ?, ?, x.code, x.name, x.hourly_rate_cents, x.multiplier::numeric
       from jsonb_to_recordset(?::jsonb) as x(code text, name text, hourly_rate_cents integer, multiplier text)`,
    [organizationId, head.id, JSON.stringify(input.content.labour_tiers)],
  );
  // A product keeps its id across revisions (the one GET /v1/products answers).
  await em.execute(
    `insert into rate_card_products (organization_id, revision_id, product_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code, active)
     select ?, ?, coalesce(before.product_id, catalogue.id, gen_random_uuid()), x.sku, x.name, x.fabric_sku, x.hardware_sku, x.trim_sku, x.active
       from jsonb_to_recordset(?::jsonb) as x(sku text, name text, fabric_sku text, hardware_sku text, trim_sku text, active boolean)
       left join rate_card_products before on before.revision_id = ? and before.sku = x.sku
       left join catalogue_products catalogue on catalogue.sku = x.sku`,
    [organizationId, head.id, JSON.stringify(input.content.products), input.basedOn.id],
  );
  return head;
}
