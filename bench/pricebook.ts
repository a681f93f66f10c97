/**
 * D21's price book benchmark (a script, not a test), printing its figures against the targets:
 * - a 5,000-row CSV import validated (`dry_run=true`, the default) within 10 s, and published
 *   (`dry_run=false`: one revision of 5,000+ SKUs) within 15 s, wall time of the HTTP request
 *   (median of BENCH_IMPORT_RUNS, default 3);
 * - POST /api/v1/quotes/calculate of 200 lines against a book of 1 revision and one of 50
 *   (the same card content) in one run, as pairs of requests back to back in a random order: the
 *   ratio of their median times within 5 %; and the same for the pricing path alone (which
 *   revision is current, then the engine) in this process.
 *
 *   npm run bench:pricebook     # BENCH_IMPORT_RUNS (3), BENCH_PAIRS (400 HTTP pairs), BENCH_PATH_FACTOR (5: 2,000 in-process pairs)
 *
 * Self-contained like `npm test`: its own PostgreSQL (or DATABASE_URL), the API in this process.
 */
import { randomInt } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { printPeakMemory } from '../scripts/infra/peak-memory';

const importRuns = Number(process.env.BENCH_IMPORT_RUNS ?? 3);
const pathFactor = Number(process.env.BENCH_PATH_FACTOR ?? 5);
const requests = Number(process.env.BENCH_PAIRS ?? 400);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL');

await withSelfContainedStack('bench_pricebook', async () => {
  const { startApi } = await import('../scripts/harness/api-harness');
  const { createTenant, giveRateCard, ownerPool } = await import('../scripts/harness/owner-db');
  const { SANDBOX_RATE_CARD } = await import('../db/rate-cards/sandbox-rate-cards');
  const { SANDBOX_PRODUCTS } = await import('../db/catalogue/sandbox-products');
  const { CSV_COLUMNS, MAX_CSV_ROWS } = await import('../domain/pricebook/csv-rows');

  const owner = ownerPool();
  const api = await startApi();
  const address = () => `198.${randomInt(18, 20)}.${randomInt(256)}.${randomInt(1, 255)}`;
  try {
    const book = async () => {
      const tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES' });
      await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
      await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
      for (const p of SANDBOX_PRODUCTS) {
        await owner.query('insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6)', [
          tenant.id, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null,
        ]);
      }
      return { id: tenant.id, admin: await api.tokenFor(tenant.users.admin!), sales: await api.tokenFor(tenant.users.sales!) };
    };
    const fillBucket = (id: string) => owner.query(`update plan_buckets set tokens = 2500, updated_at = clock_timestamp() where organization_id = $1`, [id]);

    // ---- 5,000-row import: the sandbox SKUs and new ones, descriptions with commas and quotes ----
    const imports = await book();
    const file = (run: number) =>
      [
        CSV_COLUMNS.join(','),
        ...Array.from({ length: MAX_CSV_ROWS }, (_, i) => {
          const sku = SANDBOX_RATE_CARD.skus[i];
          return sku
            ? [sku.code, sku.component, `"${sku.description.replace(/"/g, '""')}"`, sku.unit, sku.unitCostCents, 'true'].join(',')
            : [`BENCH-${String(i).padStart(5, '0')}`, ['fabric', 'hardware', 'motor', 'trim'][i % 4], `"Bench item ${i}, ""grade ${i % 7}"""`, ['sq_ft', 'each', 'linear_ft'][i % 3], `${100 + run + (i % 997)}.${i % 100}`, 'true'].join(',');
        }),
      ].join('\r\n') + '\r\n';
    const importOnce = async (run: number, dryRun: boolean) => {
      await fillBucket(imports.id);
      const started = performance.now();
      const res = await api.request(`/v1/pricebooks/${imports.id}/imports?dry_run=${dryRun}`, { method: 'POST', token: imports.admin, headers: { 'content-type': 'text/csv' }, body: file(run) });
      const body = (await res.json()) as { summary?: { rows: number; refused: number } };
      const ms = performance.now() - started;
      if (res.status !== (dryRun ? 200 : 201) || body.summary?.rows !== MAX_CSV_ROWS || body.summary.refused !== 0) throw new Error(`import answered ${res.status}: ${JSON.stringify(body).slice(0, 400)}`);
      return ms;
    };
    await importOnce(0, true); // warm-up
    const validate: number[] = [];
    const publish: number[] = [];
    for (let run = 1; run <= importRuns; run++) {
      validate.push(await importOnce(run, true));
      publish.push(await importOnce(run, false));
    }

    // ---- 200 lines priced on a book of 1 revision and one of 50 (same content) ----
    const one = await book();
    const fifty = await book();
    for (let i = 0; i < 49; i++) {
      const head = (await (await api.request(`/v1/pricebooks/${fifty.id}`, { token: fifty.admin })).json()) as { revision: string };
      await fillBucket(fifty.id);
      const product = SANDBOX_PRODUCTS[0]!;
      const res = await api.request(`/v1/pricebooks/${fifty.id}/revisions`, {
        method: 'POST',
        token: fifty.admin,
        json: { base_revision: head.revision, changes: [{ op: 'upsert_product', product: { sku: product.sku, name: `${product.name} (${i % 2 ? 'A' : 'B'})`, fabric_sku: product.fabricSkuCode, hardware_sku: product.hardwareSkuCode } }] },
      });
      if (res.status !== 201) throw new Error(`publication ${i} answered ${res.status}: ${await res.text()}`);
    }
    const { rows: counted } = await owner.query<{ organization_id: string; n: number }>(`select organization_id, count(*)::int as n from rate_card_revisions where organization_id = any($1) group by 1`, [[one.id, fifty.id]]);
    const revisions = Object.fromEntries(counted.map((r) => [r.organization_id, r.n]));
    const body = JSON.stringify({
      laborTierCode: 'STANDARD',
      lineItems: Array.from({ length: 200 }, (_, i) => ({
        widthInches: 24 + (i % 40) * 1.5, dropInches: 36 + (i % 30) * 2, quantity: 1 + (i % 3),
        fabricSkuCode: i % 2 ? 'FAB-SCREEN-3' : 'FAB-BLACKOUT', hardwareSkuCode: i % 3 ? 'HW-ROLLER-STD' : 'HW-ROLLER-HD',
        ...(i % 4 === 0 ? { motorSkuCode: 'MTR-BATTERY' } : {}), ...(i % 5 === 0 ? { trimSkuCode: 'TRIM-CASSETTE' } : {}),
      })),
    });
    // Pairs, one request of each book back to back in a random order, so that the other load of a
    // shared machine falls on both alike; the medians of the pairs' times are compared.
    const pairs = async (n: number, time: (which: 'one' | 'fifty') => Promise<number>) => {
      const times = { one: [] as number[], fifty: [] as number[] };
      for (let i = 0; i < n; i++) {
        const order: ('one' | 'fifty')[] = randomInt(2) ? ['one', 'fifty'] : ['fifty', 'one'];
        for (const which of order) times[which].push(await time(which));
      }
      return times;
    };
    const books = { one, fifty };
    const calculate = async (which: 'one' | 'fifty') => {
      const started = performance.now();
      const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: books[which].sales, headers: { 'content-type': 'application/json', 'x-forwarded-for': address() }, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`calculate answered ${res.status}`);
      return performance.now() - started;
    };
    await pairs(50, calculate);
    const http = await pairs(requests, calculate);

    // The pricing path alone, in this process: which revision is current (one statement,
    // app_current_rate_card_revision) and the engine on its cached snapshot, as a calculate does.
    const { RateCardRepository } = await import('../db/rate-cards/repository');
    const { priceQuote } = await import('../domain/pricing/engine');
    const repository = new RateCardRepository();
    const request = JSON.parse(body) as Parameters<typeof priceQuote>[0]['request'];
    const pathOnce = async (which: 'one' | 'fifty') => {
      const started = performance.now();
      const card = await repository.currentOf(api.orm.em, books[which].id);
      priceQuote({ request, rateCard: card!.snapshot, overrideAuthorised: false });
      return performance.now() - started;
    };
    await pairs(200, pathOnce);
    const path = await pairs(pathFactor * requests, pathOnce);

    const v = median(validate) / 1000;
    const p = median(publish) / 1000;
    const ms = (values: number[]) => `median ${median(values).toFixed(3)} ms`;
    const ratioLine = (what: string, times: { one: number[]; fifty: number[] }) => {
      const ratio = median(times.fifty) / median(times.one);
      console.log(`${what}, ${revisions[one.id]} revision: ${ms(times.one)}; ${revisions[fifty.id]} revisions: ${ms(times.fifty)} (${times.one.length} pairs)`);
      console.log(`  ratio ${revisions[fifty.id]} / ${revisions[one.id]}: ${(ratio * 100).toFixed(1)} %  target within 5 % (95-105 %)  ${verdict(Math.abs(ratio - 1) <= 0.05)}`);
    };
    console.log(`\nD21 price book, ${new Date().toISOString()}\n`);
    console.log(`import of ${MAX_CSV_ROWS} rows, validate (dry run): median ${v.toFixed(2)} s of [${validate.map((t) => (t / 1000).toFixed(2)).join(', ')}]  target < 10 s  ${verdict(v < 10)}`);
    console.log(`import of ${MAX_CSV_ROWS} rows, publish one revision: median ${p.toFixed(2)} s of [${publish.map((t) => (t / 1000).toFixed(2)).join(', ')}]  target < 15 s  ${verdict(p < 15)}`);
    ratioLine('POST /api/v1/quotes/calculate, 200 lines, over HTTP', http);
    ratioLine('pricing path (current revision + engine, 200 lines), in process', path);
    printPeakMemory([{ role: 'API, with the load generator (one process)', pid: process.pid }]);
  } finally {
    await api.close();
    await owner.end();
  }
});
