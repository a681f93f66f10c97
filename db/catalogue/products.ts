import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { keyset, pageOf } from '../cursor';
import { tablesOf } from '../tables';

/**
 * D14: a tenant's catalogue. A product is what a `/v1/quotes` line names (`sku`): it bundles a
 * fabric, a hardware and optionally a trim SKU of the tenant's rate card. Read in a tenant
 * transaction (row-level security picks the tenant).
 */
export interface Product {
  id: string;
  sku: string;
  name: string;
  fabricSkuCode: string;
  hardwareSkuCode: string;
  trimSkuCode: string | null;
}

interface ProductRow {
  id: string;
  sku: string;
  name: string;
  fabric_sku_code: string;
  hardware_sku_code: string;
  trim_sku_code: string | null;
}

const toProduct = (row: ProductRow): Product => ({
  id: row.id,
  sku: row.sku,
  name: row.name,
  fabricSkuCode: row.fabric_sku_code,
  hardwareSkuCode: row.hardware_sku_code,
  trimSkuCode: row.trim_sku_code,
});

/** By sku: a product's position is its sku. */
export const PRODUCT_KEYSET = keyset(z.tuple([z.string()]), (row: ProductRow) => [row.sku] as const);

/**
 * D21: which revision's products a read sees: a revision published through the price book lists
 * its own (`rate_card_products`, active ones only); revisions made before it use the catalogue.
 */
async function listedRevision(em: EntityManager, revisionId?: string): Promise<string | null> {
  const [row] = await em.execute<{ id: string | null; products_listed: boolean | null }[]>(
    `select r.id, r.products_listed from rate_card_revisions r where r.id = coalesce(?::uuid, rate_card_revision_at(now()))`,
    [revisionId ?? null],
  );
  return row?.products_listed ? row.id : null;
}

const LISTED_COLUMNS = `product_id as id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code`;

/** The one list query of the catalogue (the current revision's products): ordered by sku, a page after `afterSku` (exclusive) of at most `limit`. */
export async function listProducts(em: EntityManager, page: { limit: number; afterSku?: string | undefined }): Promise<{ rows: Product[]; next: string | null }> {
  const listed = await listedRevision(em);
  let rows: ProductRow[];
  if (listed) {
    rows = await em.execute<ProductRow[]>(
      `select ${LISTED_COLUMNS} from rate_card_products where revision_id = ? and active ${page.afterSku !== undefined ? 'and sku > ?' : ''} order by sku limit ?`,
      page.afterSku !== undefined ? [listed, page.afterSku, page.limit + 1] : [listed, page.limit + 1],
    );
  } else {
    let query = tablesOf(em).selectFrom('catalogue_products').select(['id', 'sku', 'name', 'fabric_sku_code', 'hardware_sku_code', 'trim_sku_code']);
    if (page.afterSku !== undefined) query = query.where('sku', '>', page.afterSku);
    rows = await query.orderBy('sku').limit(page.limit + 1).execute();
  }
  // The cursor is opaque (db/cursor.ts), as every /v1/ list's.
  const { rows: pageRows, next } = pageOf(rows, page.limit, PRODUCT_KEYSET);
  return { rows: pageRows.map(toProduct), next };
}

/** The products of these skus that exist in the revision that prices (the current one by default), by sku. */
export async function productsBySku(em: EntityManager, skus: readonly string[], revisionId?: string): Promise<Map<string, Product>> {
  const listed = await listedRevision(em, revisionId);
  const rows = await em.execute<ProductRow[]>(
    listed
      ? `select ${LISTED_COLUMNS} from rate_card_products where revision_id = ? and active and sku in (select jsonb_array_elements_text(?::jsonb))`
      : `select id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code from catalogue_products where sku in (select jsonb_array_elements_text(?::jsonb))`,
    listed ? [listed, JSON.stringify([...new Set(skus)])] : [JSON.stringify([...new Set(skus)])],
  );
  return new Map(rows.map((row) => [row.sku, toProduct(row)]));
}

export interface ProductContent {
  sku: string;
  name: string;
  fabricSkuCode: string;
  hardwareSkuCode: string;
  trimSkuCode?: string;
}

/** Adds the products a tenant lacks (by sku); as the owner (the seed and test fixtures). */
export async function insertMissingProducts(em: EntityManager, organizationId: string, products: readonly ProductContent[]): Promise<void> {
  for (const product of products) {
    await em.execute(
      `insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code)
       values (?, ?, ?, ?, ?, ?) on conflict (organization_id, sku) do nothing`,
      [organizationId, product.sku, product.name, product.fabricSkuCode, product.hardwareSkuCode, product.trimSkuCode ?? null],
    );
  }
}
