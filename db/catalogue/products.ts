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

/** By sku: a product's position is its sku (D14 hands the last sku back as the cursor). */
export const PRODUCT_KEYSET = keyset(z.tuple([z.string()]), (row: ProductRow) => [row.sku] as const);

/** The one list query of the catalogue: ordered by sku, a page after `afterSku` (exclusive) of at most `limit`. */
export async function listProducts(em: EntityManager, page: { limit: number; afterSku?: string | undefined }): Promise<{ data: Product[]; next_cursor: string | null }> {
  let query = tablesOf(em).selectFrom('catalogue_products').select(['id', 'sku', 'name', 'fabric_sku_code', 'hardware_sku_code', 'trim_sku_code']);
  if (page.afterSku !== undefined) query = query.where('sku', '>', page.afterSku);
  const { rows, hasMore } = pageOf(await query.orderBy('sku').limit(page.limit + 1).execute(), page.limit, PRODUCT_KEYSET);
  const data = rows.map(toProduct);
  return { data, next_cursor: hasMore ? data[data.length - 1]!.sku : null };
}

/** The products of these skus that exist, by sku. */
export async function productsBySku(em: EntityManager, skus: readonly string[]): Promise<Map<string, Product>> {
  const rows = await em.execute<ProductRow[]>(
    `select id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code from catalogue_products where sku in (select jsonb_array_elements_text(?::jsonb))`,
    [JSON.stringify([...new Set(skus)])],
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
