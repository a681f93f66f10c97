import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { randomBytes, randomUUID } from 'node:crypto';
import { startPaymentsStack, type PaymentsStack } from '../../scripts/harness/approval-stack';
import { approvalSettled } from '../../scripts/harness/approval-progress';
import { keptQuote, newCustomer } from '../../scripts/harness/approved-quote';
import { waitUntil } from '../../scripts/harness/wait-until';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../../scripts/infra/mail-catcher';
import { smtpMailer, type Mailer } from '../../infra/email/mailer';
import { QuoteDetail, SentQuote } from '../../api/quotes/schemas';
import { quoteTax } from '../../domain/tax/quote-tax';
import { formatCad } from '../../domain/quotes/customer-page';
import { QUOTE_PAGE_LIMIT } from '../../api/quote-page/routes';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync, inflateSync } from 'node:zlib';
import { SANDBOX_PRODUCTS } from '../../db/catalogue/sandbox-products';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { dataDir } from '../../scripts/infra/paths';
import { solidPng } from '../support/png';

/** Screenshots of the page (docs/customer-journey.md describes them). */
const SHOTS = process.env.SCREENSHOT_DIR ?? join(dataDir, 'screenshots', 'customer-page');

/**
 * D24, the customer's side of a quote, end to end: the send and its email (the mail catcher, as
 * under npm start), the page and its PDF, accept and decline with their refusals, the approval
 * through real Temporal to the payments fake (with its hosted invoice page, where a test card
 * pays and the signed `invoice.paid` comes back to our webhook), and the office's emails.
 */
const KEY = 'sk_test_customerPage0001';
const WEBHOOK_SECRET = `whsec_${randomUUID().replaceAll('-', '')}`;
let stack: PaymentsStack;
let owner: pg.Pool;
let catcher: MailCatcher;
let mailer: Mailer;
let admin: string;
/** The office's page a paid checkout returns to (CHECKOUT_RETURN_ORIGINS), on loopback. */
let returnPage: Server;
let returnOrigin: string;
const returns: string[] = [];

beforeAll(async () => {
  catcher = await startMailCatcher();
  mailer = smtpMailer(catcher.smtpUrl, 'Shade Office <no-reply@shade-office.invalid>');
  returnPage = createServer((req, res) => {
    returns.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Back at the office</title><h1 id="returned">Thank you</h1></html>');
  });
  await new Promise<void>((resolve) => returnPage.listen(0, '127.0.0.1', resolve));
  returnOrigin = `http://127.0.0.1:${(returnPage.address() as AddressInfo).port}`;
  stack = await startPaymentsStack({ key: KEY, env: { PAYMENTS_WEBHOOK_SECRET: WEBHOOK_SECRET, CHECKOUT_RETURN_ORIGINS: returnOrigin }, mailer, hostedPages: true });
  owner = stack.owner;
  admin = await stack.api.tokenFor(stack.tenant.users.admin!);
  // The provider delivers its signed events to our payments webhook, as a Dashboard endpoint does.
  stack.fake.addWebhookEndpoint({ url: `${stack.api.url}/api/v1/integrations/payments/webhook`, secret: WEBHOOK_SECRET, enabledEvents: ['invoice.paid', 'checkout.session.completed'] });
}, 120_000);

afterAll(async () => {
  await stack.close();
  mailer.close();
  await catcher.stop();
  await new Promise((resolve) => returnPage?.close(resolve));
});

const mailTo = async (address: string): Promise<CaughtMail[]> => (await catcher.messages()).filter((m) => m.to.some((to) => to.address === address));
const waitForMail = (address: string, subject: RegExp) =>
  waitUntil(`mail "${subject.source}" to ${address}`, async () => (await mailTo(address)).find((m) => subject.test(m.subject)), { timeoutMs: 30_000, intervalMs: 200 });

/** A page request from its own client address (each test speaks for one, so the page's limit is per test). */
function pageClient(address = `198.18.${randomBytes(1)[0]}.${1 + (randomBytes(1)[0]! % 254)}`) {
  const base = stack.api.url;
  return {
    address,
    get: (path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { headers: { 'x-forwarded-for': address, ...headers } }),
    post: (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'x-forwarded-for': address, 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'CustomerPageTest/1.0', ...headers },
        body: new URLSearchParams(fields),
      }),
  };
}

const pathOf = (pageUrl: string) => new URL(pageUrl).pathname;
const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** A DRAFT quote by SALES for a customer with an email, sent by the ADMIN (so sender and creator differ). */
async function sentQuote(customer = newCustomer('Morgan Lee')) {
  const quote = await keptQuote(stack, customer);
  const res = await stack.api.request(`/api/v1/quotes/${quote.quote_id}/send`, { method: 'POST', token: admin });
  expect(res.status).toBe(200);
  const sent = SentQuote.parse(await res.json());
  return { quote, sent, customer, path: pathOf(sent.page_url) };
}

const detail = async (id: string) => QuoteDetail.parse(await (await stack.api.request(`/api/v1/quotes/${id}`, { token: stack.sales })).json());
const approvedEvents = async (id: string) =>
  (await owner.query(`select id from outbox_events where event = 'quote.approved' and envelope->'data'->>'quote_id' = $1`, [id])).rows.length;
/** The quote's total as the customer sees it (its subtotal plus the tax of its region, D25). */
const totalOf = (quote: { totals: { amount_cents: number } }) => quote.totals.amount_cents + quoteTax(null, quote.totals.amount_cents).total_cents;

/** A PDF's document information dictionary (PDF 32000-1 §14.3.3), its strings decoded (direct or, as PDFKit writes them, indirect objects). */
function pdfInfo(bytes: Buffer): Record<string, string> {
  const text = bytes.toString('latin1');
  const object = (id: string) => new RegExp(`(?:^|\\n)${id} 0 obj\\s*([\\s\\S]*?)\\s*endobj`).exec(text)?.[1] ?? '';
  const literal = (body: string) => {
    const inner = /^\(((?:\\[\s\S]|[^\\)])*)\)$/.exec(body.trim())?.[1];
    if (inner === undefined) return undefined;
    const raw = inner.replace(/\\([0-7]{1,3}|[\s\S])/g, (_, c: string) => (/^[0-7]+$/.test(c) ? String.fromCharCode(parseInt(c, 8)) : ({ n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' } as Record<string, string>)[c] ?? c));
    return raw.startsWith('\u00fe\u00ff') ? Buffer.from(raw.slice(2), 'latin1').swap16().toString('utf16le') : raw;
  };
  const ref = [...text.matchAll(/\/Info (\d+) 0 R/g)].at(-1)?.[1];
  expect(ref).toBeDefined();
  const dictionary = /^<<([\s\S]*)>>$/.exec(object(ref!))?.[1] ?? '';
  const info: Record<string, string> = {};
  for (const [, key, direct, indirect] of dictionary.matchAll(/\/(\w+)\s*(?:(\((?:\\[\s\S]|[^\\)])*\))|(\d+) 0 R)/g)) {
    const value = literal(direct ?? object(indirect!));
    if (value !== undefined) info[key!] = value;
  }
  return info;
}

/** The text a PDF shows, one string per text-showing operator of its (deflated) content streams. */
function pdfTexts(bytes: Buffer): string[] {
  const texts: string[] = [];
  const text = bytes.toString('latin1');
  for (const m of text.matchAll(/<<\s*\/Length (\d+)\s*\/Filter \/FlateDecode\s*>>\s*stream\r?\n/g)) {
    const start = m.index + m[0].length;
    const content = inflateSync(bytes.subarray(start, start + Number(m[1]))).toString('latin1');
    for (const [, array] of content.matchAll(/\[((?:<[0-9a-fA-F]*>|[^\]])*)\]\s*TJ/g)) {
      texts.push([...array!.matchAll(/<([0-9a-fA-F]*)>/g)].map(([, hex]) => Buffer.from(hex!, 'hex').toString('latin1')).join(''));
    }
  }
  return texts;
}

/** A PNG's width and height in pixels, from its IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const png = readFileSync(file);
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** The sandbox products in the stack's tenant, for quotes made through `/v1/quotes` (which name products). */
async function withProducts() {
  const orgId = stack.tenant.id;
  const { rows: present } = await owner.query(`select 1 from catalogue_products where organization_id = $1 limit 1`, [orgId]);
  if (present.length > 0) return;
  for (const p of SANDBOX_PRODUCTS) {
    await owner.query('insert into catalogue_products (organization_id, sku, name, fabric_sku_code, hardware_sku_code, trim_sku_code) values ($1, $2, $3, $4, $5, $6) on conflict do nothing', [
      orgId, p.sku, p.name, p.fabricSkuCode, p.hardwareSkuCode, p.trimSkuCode ?? null,
    ]);
  }
}

/** The descriptions of the SKUs of the rate card a quote was priced on, by code (what the customer is told was chosen). */
async function skuDescriptions(quoteId: string): Promise<Map<string, string>> {
  const { rows } = await owner.query<{ code: string; description: string }>(
    'select s.code, s.description from rate_card_skus s join quotes q on q.rate_card_revision_id = s.revision_id where q.id = $1',
    [quoteId],
  );
  return new Map(rows.map((r) => [r.code, r.description]));
}

const invoicesAtFake = (id: string) => stack.fake.inspect.invoices(KEY).filter((i) => (i.metadata as Record<string, string>).quote_id === id);

describe('D24: POST /api/v1/quotes/{id}/send', () => {
  it('moves DRAFT to SENT, answers page_url and emails it to the customer; a second send voids the first link', async () => {
    const { quote, sent, customer, path } = await sentQuote();
    expect(sent.status).toBe('SENT');
    expect(sent.page_url).toMatch(/^http:\/\/localhost:\d+\/q\/[A-Za-z0-9_-]{43}$/);
    const mail = await waitForMail(customer.email, new RegExp(`Your quote ${quote.quote_number} from`));
    expect(mail.text).toContain(sent.page_url);
    // Only the hash is kept: the token appears nowhere in the database.
    const token = path.slice('/q/'.length);
    const stored = await owner.query(`select encode(token_hash, 'hex') as hash from quote_page_tokens where quote_id = $1`, [quote.quote_id]);
    expect(stored.rows).toHaveLength(1);
    expect(JSON.stringify(stored.rows)).not.toContain(token);

    const client = pageClient();
    expect((await client.get(path)).status).toBe(200);
    const again = SentQuote.parse(await (await stack.api.request(`/api/v1/quotes/${quote.quote_id}/send`, { method: 'POST', token: admin })).json());
    expect(again.status).toBe('SENT');
    expect(again.page_url).not.toBe(sent.page_url);
    expect((await client.get(path)).status).toBe(404);
    expect((await client.get(pathOf(again.page_url))).status).toBe(200);
    await waitUntil('the second link mailed', async () => (await mailTo(customer.email)).filter((m) => m.text.includes(again.page_url)).length === 1 || undefined, { timeoutMs: 30_000, intervalMs: 200 });
  });

  it('answers page_url for a customer without an email, and emails no one', async () => {
    const before = (await catcher.messages()).length;
    const res = await stack.api.request('/api/v1/quotes/calculate', {
      method: 'POST',
      token: stack.sales,
      json: { persist: true, customer: { name: 'No Email' }, laborTierCode: 'STANDARD', lineItems: [{ widthInches: 36, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-STD' }] },
    });
    const id = ((await res.json()) as { quote_id: string }).quote_id;
    const sent = SentQuote.parse(await (await stack.api.request(`/api/v1/quotes/${id}/send`, { method: 'POST', token: stack.sales })).json());
    expect((await pageClient().get(pathOf(sent.page_url))).status).toBe(200);
    expect((await catcher.messages()).length).toBe(before);
  });
});

describe("D24: the quote's page", () => {
  it('shows the contractor, the number, each line with its price, the tax lines, the total and the validity; strict CSP; a PDF of the same quote', async () => {
    const { quote, path } = await sentQuote();
    const res = await pageClient().get(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self'");
    // The link is a secret: no referrer leaves the origin, and no cache keeps the page.
    expect(res.headers.get('referrer-policy')).toBe('same-origin');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/(src|href)="https?:/);
    expect(html).toContain(`Test ${stack.tenant.subdomain}`);
    expect(html).toContain(`Quote ${quote.quote_number}`);
    expect(html).toContain('Living room: 2 × 72.5&quot; × 60&quot; roller shade');
    for (const line of quote.line_items) expect(html).toContain(formatCad(line.price_cents));
    const tax = quoteTax(null, quote.totals.amount_cents);
    expect(html).toContain(`HST (13%)</th><td class="amount">${formatCad(tax.lines[0]!.amount_cents)}`);
    expect(html).toContain(`data-total-cents="${quote.totals.amount_cents + tax.total_cents}"`);
    const { rows } = await owner.query(`select to_char(created_at + interval '30 days', 'YYYY-MM-DD') as until from quotes where id = $1`, [quote.quote_id]);
    expect(html).toContain(`dateTime="${rows[0].until}`);
    // Accessible: every control is labelled.
    expect(html).toMatch(/<label for="accept-name">/);
    expect(html).toMatch(/<input id="accept-name"/);
    expect(html).toMatch(/<label for="decline-reason">/);

    const pdf = await pageClient().get(`${path}/quote.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.length).toBeGreaterThan(1000);
    // It is this quote's: its number and total in the document's properties, and on the page itself.
    const info = pdfInfo(bytes);
    expect(info.Title).toBe(`Quote ${quote.quote_number} from Test ${stack.tenant.subdomain}`);
    expect(info.Subject).toBe(`Total ${formatCad(totalOf(quote))}, tax included; valid until ${rows[0].until}`);
    const shown = pdfTexts(bytes);
    expect(shown).toContain(`Quote ${quote.quote_number}`);
    expect(shown).toContain(`Test ${stack.tenant.subdomain}`);
    for (const line of quote.line_items) expect(shown).toContain(formatCad(line.price_cents));
    expect(shown).toContain('HST (13%)');
    expect(shown).toContain(formatCad(tax.lines[0]!.amount_cents));
    const totalRow = shown.indexOf('Total');
    expect(totalRow).toBeGreaterThan(-1);
    expect(shown[totalRow + 1]).toBe(formatCad(totalOf(quote)));

    const css = await fetch(`${stack.api.url}/q/assets/quote-page.css`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('one neutral page and one status for unknown, voided, expired and office-decided links: 404, the same words, nothing of the quote', async () => {
    const client = pageClient();
    const unknown = await client.get(`/q/${randomBytes(32).toString('base64url')}`);
    expect(unknown.status).toBe(404);
    const neutral = await unknown.text();
    expect((await client.get('/q/not-a-token')).status).toBe(404);

    const expired = await sentQuote();
    await owner.query(`update quote_page_tokens set expires_at = now() - interval '1 second' where quote_id = $1`, [expired.quote.quote_id]);
    const rejected = await sentQuote();
    expect((await stack.api.request(`/api/v1/quotes/${rejected.quote.quote_id}/reject`, { method: 'POST', token: stack.sales })).status).toBe(200);
    const voided = await sentQuote();
    await stack.api.request(`/api/v1/quotes/${voided.quote.quote_id}/send`, { method: 'POST', token: admin });
    for (const gone of [expired, rejected, voided]) {
      const res = await client.get(gone.path);
      expect(res.status).toBe(404);
      const html = await res.text();
      expect(html).toBe(neutral);
      expect(html).not.toContain(String(gone.quote.quote_number));
      const pdf = await client.get(`${gone.path}/quote.pdf`);
      expect(pdf.status).toBe(404);
      expect(await pdf.text()).toBe(neutral);
    }
  });
});

describe('D24: accepting on the page', () => {
  it('approves through the same approval as POST /approve, as the sender, records the acceptance, emails the office and the invoice; a second answer changes nothing', async () => {
    const { quote, path, customer } = await sentQuote();
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    const accepted = await client.post(`${path}/accept`, { csrf, name: '  Morgan Lee  ' });
    expect(accepted.status).toBe(200);
    expect(await accepted.text()).toContain('you accepted this quote');

    const after = await detail(quote.quote_id);
    expect(after.status).toBe('APPROVED');
    expect(after.acceptance).toEqual({ name: 'Morgan Lee', accepted_at: expect.any(String), client_address: client.address, user_agent: 'CustomerPageTest/1.0' });
    expect(after.acceptance!.accepted_at).toBe(after.approved_at);
    const { rows } = await owner.query('select approved_by_user_id, frozen_calculation is not null as frozen from quotes where id = $1', [quote.quote_id]);
    expect(rows[0]).toEqual({ approved_by_user_id: stack.tenant.users.admin!.id, frozen: true });
    expect(await approvedEvents(quote.quote_id)).toBe(1);

    // The same fan-out: the payments leg invoices the frozen quote.
    const progress = await approvalSettled(stack.temporal.client, quote.quote_id);
    expect(progress.legs.find((l) => l.provider === 'PAYMENTS')).toMatchObject({ status: 'SUCCEEDED' });
    expect(invoicesAtFake(quote.quote_id)).toHaveLength(1);

    // The office (the quote's creator, SALES) hears of it; the customer gets the invoice's hosted link.
    const office = await waitForMail(stack.tenant.users.sales!.email, new RegExp(`Quote ${quote.quote_number} was accepted`));
    expect(office.text).toContain('Morgan Lee accepted');
    const invoiceMail = await waitForMail(customer.email, new RegExp(`Invoice for quote ${quote.quote_number}`));
    const hosted = /(http:\/\/127\.0\.0\.1:\d+\/i\/\S+)/.exec(invoiceMail.text)![1]!;
    expect(hosted).toBe(invoicesAtFake(quote.quote_id)[0]!.hosted_invoice_url);

    // Again, or the other answer: nothing changes, and the page says what happened.
    const twice = await client.post(`${path}/accept`, { csrf, name: 'Someone Else' });
    expect(twice.status).toBe(409);
    expect(await twice.text()).toContain('already accepted');
    const decline = await client.post(`${path}/decline`, { csrf, reason: 'changed my mind' });
    expect(decline.status).toBe(409);
    expect((await detail(quote.quote_id)).acceptance!.name).toBe('Morgan Lee');
    expect(await approvedEvents(quote.quote_id)).toBe(1);
    expect((await client.get(path)).status).toBe(200);

    // The customer pays the invoice on the hosted page with the test card; the signed invoice.paid sets paid_at.
    const paid = await fetch(hosted, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ card_number: '4242 4242 4242 4242', expiry: '12 / 34', cvc: '123' }) });
    expect(paid.status).toBe(200);
    await waitUntil('paid_at set by the signed invoice.paid', async () => (await detail(quote.quote_id)).paid_at);
  }, 90_000);

  it('20 concurrent accepts: one approval, one event, one invoice', async () => {
    const { quote, path } = await sentQuote();
    const csrf = csrfOf(await (await pageClient().get(path)).text());
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => pageClient().post(`${path}/accept`, { csrf, name: `Racer ${i}` })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(await approvedEvents(quote.quote_id)).toBe(1);
    await approvalSettled(stack.temporal.client, quote.quote_id);
    expect(invoicesAtFake(quote.quote_id)).toHaveLength(1);
    const { rows } = await owner.query('select count(*)::int as n from sync_records where quote_id = $1 and provider = $2', [quote.quote_id, 'PAYMENTS']);
    expect(rows[0].n).toBe(1);
  }, 90_000);

  it('after the office approved: the post changes nothing and says so', async () => {
    const { quote, path } = await sentQuote();
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    expect((await stack.api.request(`/api/v1/quotes/${quote.quote_id}/approve`, { method: 'POST', token: stack.sales })).status).toBe(200);
    const late = await client.post(`${path}/accept`, { csrf, name: 'Morgan Lee' });
    expect(late.status).toBe(409);
    expect(await late.text()).toContain('already decided');
    expect((await detail(quote.quote_id)).acceptance).toBeNull();
    expect(await approvedEvents(quote.quote_id)).toBe(1);
  });
});

describe('D24: declining on the page', () => {
  it('moves the quote to REJECTED with the reason, shown on GET /quotes/{id}; the office is emailed', async () => {
    const { quote, path } = await sentQuote();
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    const declined = await client.post(`${path}/decline`, { csrf, reason: 'We found a cheaper option.' });
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain('You declined this quote');
    const after = await detail(quote.quote_id);
    expect(after.status).toBe('REJECTED');
    expect(after.customer_decline).toEqual({ declined_at: after.rejected_at, reason: 'We found a cheaper option.' });
    expect(after.acceptance).toBeNull();
    const office = await waitForMail(stack.tenant.users.sales!.email, new RegExp(`Quote ${quote.quote_number} was declined`));
    expect(office.text).toContain('Their reason: We found a cheaper option.');
    expect((await client.post(`${path}/accept`, { csrf, name: 'Morgan Lee' })).status).toBe(409);
    expect((await detail(quote.quote_id)).status).toBe('REJECTED');
  });

  it('a decline without a reason is a decline', async () => {
    const { quote, path } = await sentQuote();
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    expect((await client.post(`${path}/decline`, { csrf })).status).toBe(200);
    expect((await detail(quote.quote_id)).customer_decline).toEqual({ declined_at: expect.any(String), reason: null });
  });
});

describe('D24: what each line says, and the quote the customer keeps', () => {
  /** A `/v1/` quote (which records each line's control side) for a new customer, sent by the ADMIN. */
  async function sentV1Quote() {
    await withProducts();
    const { rows } = await owner.query<{ id: string }>(`insert into customers (organization_id, name, email) values ($1, 'Morgan Lee', $2) returning id`, [stack.tenant.id, `morgan-${randomUUID()}@example.test`]);
    const created = await stack.api.request('/v1/quotes', {
      method: 'POST',
      token: stack.sales,
      json: {
        customerId: rows[0]!.id,
        currency: 'CAD',
        taxRegion: 'CA-ON',
        pricebookId: stack.tenant.id,
        lines: [
          { sku: 'ROLLER-SCREEN-CASSETTE', quantity: 2, configuration: { finishedWidthIn: 72.5, finishedHeightIn: 60, controlSide: 'left', motorised: true, motorSku: 'MTR-BATTERY' } },
          { sku: 'ROLLER-BLACKOUT', quantity: 1, configuration: { finishedWidthIn: 35.25, finishedHeightIn: 48, controlSide: 'right', motorised: false } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    const sent = SentQuote.parse(await (await stack.api.request(`/api/v1/quotes/${id}/send`, { method: 'POST', token: admin })).json());
    const sku = await skuDescriptions(id);
    const product = (code: string) => SANDBOX_PRODUCTS.find((p) => p.sku === code)!;
    const [screen, blackout] = [product('ROLLER-SCREEN-CASSETTE'), product('ROLLER-BLACKOUT')];
    // What the customer should read of each line: the rate card's words for the product's parts.
    const chosen = [
      [`Fabric: ${sku.get(screen.fabricSkuCode)}`, `Hardware: ${sku.get(screen.hardwareSkuCode)}`, `Motor: ${sku.get('MTR-BATTERY')}`, 'Control side: left', `Cassette: ${sku.get(screen.trimSkuCode!)}`],
      [`Fabric: ${sku.get(blackout.fabricSkuCode)}`, `Hardware: ${sku.get(blackout.hardwareSkuCode)}`, 'Motor: none (manual)', 'Control side: right', 'Cassette: none'],
    ];
    for (const line of chosen) for (const choice of line) expect(choice).not.toContain('undefined');
    return { id, path: pathOf(sent.page_url), chosen };
  }

  const htmlChoice = (choice: string) => {
    const [label, value] = [choice.slice(0, choice.indexOf(': ')), choice.slice(choice.indexOf(': ') + 2)];
    return `<span class="choice">${label}: </span>${value.replaceAll('&', '&amp;')}`;
  };

  it('each line shows its fabric, hardware, motor, control side and cassette on the page and in the PDF; after accepting, the link keeps the quote read-only with the acceptance and its PDF', async () => {
    const { id, path, chosen } = await sentV1Quote();
    const client = pageClient();
    const open = await client.get(path);
    expect(open.status).toBe(200);
    const openHtml = await open.text();
    for (const choice of chosen.flat()) expect(openHtml).toContain(htmlChoice(choice));
    const openPdf = pdfTexts(Buffer.from(await (await client.get(`${path}/quote.pdf`)).arrayBuffer()));
    for (const choice of chosen.flat()) expect(openPdf).toContain(choice);
    const { rows } = await owner.query<{ issued: string; until: string }>(
      `select to_char(q.sent_at at time zone 'UTC', 'YYYY-MM-DD') as issued, to_char(t.expires_at at time zone 'UTC', 'YYYY-MM-DD') as until
         from quotes q join quote_page_tokens t on t.quote_id = q.id where q.id = $1`,
      [id],
    );
    expect(openPdf).toContain(`Issued ${rows[0]!.issued}`);
    expect(openPdf).toContain(`Valid until ${rows[0]!.until}`);
    expect(openPdf).toContain('Terms');
    expect(openPdf.some((text) => text.startsWith('Accepted'))).toBe(false);

    const csrf = csrfOf(openHtml);
    expect((await client.post(`${path}/accept`, { csrf, name: 'Morgan Lee' })).status).toBe(200);
    const acceptedAt = (await detail(id)).acceptance!.accepted_at;

    // The link now shows the quote as accepted: read-only, with the acceptance and its PDF.
    const kept = await client.get(path);
    expect(kept.status).toBe(200);
    const html = await kept.text();
    expect(html).toContain('You accepted this quote');
    expect(html).toContain(`Accepted by Morgan Lee on `);
    expect(html).toContain(`at ${acceptedAt.slice(11, 16)} UTC`);
    for (const choice of chosen.flat()) expect(html).toContain(htmlChoice(choice));
    expect(html).not.toMatch(/<form/);
    expect(html).toContain(`href="${path}/quote.pdf"`);

    const pdf = await client.get(`${path}/quote.pdf`);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const shown = pdfTexts(Buffer.from(await pdf.arrayBuffer()));
    for (const choice of chosen.flat()) expect(shown).toContain(choice);
    expect(shown).toContain('Acceptance');
    expect(shown).toContain('Accepted by Morgan Lee');
    expect(shown).toContain(`Accepted on ${acceptedAt.slice(0, 10)} ${acceptedAt.slice(11, 16)} UTC`);
    expect(shown).toContain(`Issued ${rows[0]!.issued}`);
  }, 90_000);

  it("keeps a decided quote until the quote's validity plus 90 days, then the neutral page like any other", async () => {
    const { quote, path } = await sentQuote();
    const client = pageClient();
    const neutral = await (await client.get(`/q/${randomBytes(32).toString('base64url')}`)).text();
    const csrf = csrfOf(await (await client.get(path)).text());
    expect((await client.post(`${path}/decline`, { csrf, reason: 'Not this year.' })).status).toBe(200);
    // Past its validity, within the 90 days: still shown, with its PDF.
    await owner.query(`update quote_page_tokens set expires_at = now() - interval '89 days' where quote_id = $1`, [quote.quote_id]);
    const within = await client.get(path);
    expect(within.status).toBe(200);
    expect(await within.text()).toContain('You declined this quote');
    expect((await client.get(`${path}/quote.pdf`)).status).toBe(200);
    // Past the 90 days: the neutral page, the same status and words as an unknown link.
    await owner.query(`update quote_page_tokens set expires_at = now() - interval '90 days 1 second' where quote_id = $1`, [quote.quote_id]);
    for (const target of [path, `${path}/quote.pdf`, `${path}/logo`]) {
      const res = await client.get(target);
      expect({ target, status: res.status }).toEqual({ target, status: 404 });
      expect(await res.text()).toBe(neutral);
    }
  });
});

describe('D24: the office email when the quote’s creator is gone', () => {
  it('goes to every active ADMIN when the creator was deactivated, and neither to the creator nor to an inactive ADMIN', async () => {
    const orgId = stack.tenant.id;
    const user = async (role: 'ADMIN' | 'SALES', email: string, active: boolean) => {
      // A password hash copied from the tenant's ADMIN: these users sign in only by a token issued here.
      const { rows } = await owner.query<{ id: string }>(
        `insert into users (organization_id, email, full_name, role, password_hash, active) select organization_id, $2, $3, $4, password_hash, $5 from users where id = $1 returning id`,
        [stack.tenant.users.admin!.id, email, `${role} ${email}`, role, active],
      );
      return { id: rows[0]!.id, email, role, organizationId: orgId };
    };
    const suffix = randomUUID().slice(0, 8);
    const creator = await user('SALES', `creator-${suffix}@${stack.tenant.subdomain}.test`, true);
    const secondAdmin = await user('ADMIN', `second-admin-${suffix}@${stack.tenant.subdomain}.test`, true);
    const formerAdmin = await user('ADMIN', `former-admin-${suffix}@${stack.tenant.subdomain}.test`, false);
    const customer = newCustomer('Riley Chen');
    const quote = await keptQuote({ ...stack, sales: await stack.api.tokenFor(creator) }, customer);
    const sent = SentQuote.parse(await (await stack.api.request(`/api/v1/quotes/${quote.quote_id}/send`, { method: 'POST', token: admin })).json());
    // The creator leaves the team before the customer answers.
    const gone = await stack.api.request(`/api/v1/users/${creator.id}`, { method: 'PATCH', token: admin, json: { status: 'deactivated' } });
    expect(gone.status).toBe(200);

    const path = pathOf(sent.page_url);
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    expect((await client.post(`${path}/accept`, { csrf, name: 'Riley Chen' })).status).toBe(200);
    const subject = new RegExp(`Quote ${quote.quote_number} was accepted`);
    for (const to of [stack.tenant.users.admin!.email, secondAdmin.email]) expect((await waitForMail(to, subject)).text).toContain('Riley Chen accepted');
    // The page sends the office's emails before it answers: the two ADMINs' are all of them.
    const office = (await catcher.messages()).filter((m) => subject.test(m.subject));
    expect(office.flatMap((m) => m.to.map((to) => to.address)).sort()).toEqual([stack.tenant.users.admin!.email, secondAdmin.email].sort());
    expect(await mailTo(creator.email)).toEqual([]);
    expect(await mailTo(formerAdmin.email)).toEqual([]);
  }, 90_000);
});

describe('D24 with D25: a quote in Quebec', () => {
  it('shows its GST and QST lines on the page, each with the quote’s own amount, and the quote’s grand total', async () => {
    const orgId = stack.tenant.id;
    await withProducts();
    const { rows } = await owner.query<{ id: string }>(`insert into customers (organization_id, name, email) values ($1, 'Camille Roy', $2) returning id`, [orgId, `camille-${randomUUID()}@example.test`]);
    const created = await stack.api.request('/v1/quotes', {
      method: 'POST',
      token: stack.sales,
      json: {
        customerId: rows[0]!.id,
        currency: 'CAD',
        taxRegion: 'CA-QC',
        pricebookId: orgId,
        lines: [
          { sku: 'ROLLER-SCREEN', quantity: 2, configuration: { finishedWidthIn: 72.5, finishedHeightIn: 60, controlSide: 'left', motorised: true, motorSku: 'MTR-BATTERY' } },
          { sku: 'ROLLER-BLACKOUT-HD-FASCIA', quantity: 1, configuration: { finishedWidthIn: 35.25, finishedHeightIn: 48, controlSide: 'right', motorised: false } },
        ],
      },
    });
    expect(created.status).toBe(201);
    const quote = (await created.json()) as { id: string; taxLines: { code: string; rate: number; amount: number }[]; totals: { subtotal: number; taxTotal: number; grandTotal: number } };
    expect(quote.taxLines.map((l) => [l.code, l.rate])).toEqual([['GST', 0.05], ['QST', 0.09975]]);
    const sent = SentQuote.parse(await (await stack.api.request(`/api/v1/quotes/${quote.id}/send`, { method: 'POST', token: admin })).json());
    const res = await pageClient().get(pathOf(sent.page_url));
    expect(res.status).toBe(200);
    const html = await res.text();
    // The quote answers dollars with two decimals; the page shows the same amounts.
    const cents = (dollars: number) => Math.round(dollars * 100);
    const [gst, qst] = quote.taxLines;
    expect(html).toContain(`Subtotal</th><td class="amount">${formatCad(cents(quote.totals.subtotal))}`);
    expect(html).toContain(`GST (5%)</th><td class="amount">${formatCad(cents(gst!.amount))}`);
    expect(html).toContain(`QST (9.975%)</th><td class="amount">${formatCad(cents(qst!.amount))}`);
    expect(html).not.toContain('HST');
    expect(html).toContain(`data-total-cents="${cents(quote.totals.grandTotal)}"`);
    expect(html).toContain(`<dd id="quote-total">${formatCad(cents(quote.totals.grandTotal))}</dd>`);
    expect(cents(gst!.amount) + cents(qst!.amount)).toBe(cents(quote.totals.taxTotal));
  });
});

describe('D24: bad input and abuse', () => {
  it('names of 1-200 characters, reasons up to 2,000, no NUL: anything else is the page again with a 422 beside its field, and nothing changes', async () => {
    const { quote, path } = await sentQuote();
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    for (const name of ['', '   ', 'x'.repeat(201), 'Morgan\u0000Lee']) {
      const res = await client.post(`${path}/accept`, { csrf, name });
      expect(res.status).toBe(422);
      const html = await res.text();
      expect(html).toMatch(/<p id="accept-error" class="error" role="alert">/);
      expect(html).toMatch(/aria-invalid="true"/);
    }
    for (const reason of ['x'.repeat(2001), 'no\u0000thanks']) expect((await client.post(`${path}/decline`, { csrf, reason })).status).toBe(422);
    expect((await client.post(`${path}/accept`, { csrf })).status).toBe(422);
    expect((await detail(quote.quote_id)).status).toBe('SENT');
    // 200 characters exactly is a name.
    expect((await client.post(`${path}/accept`, { csrf, name: 'n'.repeat(200) })).status).toBe(200);
  });

  it('refuses cross-site posts: another Origin, Sec-Fetch-Site cross-site, no form token, or the token of another link', async () => {
    const { quote, path } = await sentQuote();
    const other = await sentQuote();
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    const otherCsrf = csrfOf(await (await client.get(other.path)).text());
    const attempts: [Record<string, string>, Record<string, string>][] = [
      [{ csrf, name: 'Mallory' }, { origin: 'http://attacker.invalid' }],
      [{ csrf, name: 'Mallory' }, { 'sec-fetch-site': 'cross-site' }],
      [{ csrf, name: 'Mallory' }, { 'sec-fetch-site': 'same-site' }],
      [{ csrf, name: 'Mallory' }, { origin: 'null' }],
      [{ name: 'Mallory' }, {}],
      [{ csrf: otherCsrf, name: 'Mallory' }, {}],
    ];
    for (const [fields, headers] of attempts) {
      const res = await client.post(`${path}/accept`, fields, headers);
      expect({ headers, status: res.status }).toEqual({ headers, status: 403 });
    }
    expect((await detail(quote.quote_id)).status).toBe('SENT');
    // The page's own origin may post.
    expect((await client.post(`${path}/accept`, { csrf, name: 'Morgan Lee' }, { origin: stack.api.url, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });

  it('a form the one body reader cannot read is 400, 413 or 415 with the refusal page, never a 500, for any link; nothing changes', async () => {
    const { quote, path } = await sentQuote();
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    const form = new URLSearchParams({ csrf, name: 'Morgan Lee' }).toString();
    // Each run of cases from an address of its own: the page's limit is per address.
    const raw = (target: string, body: string | Uint8Array, headers: Record<string, string>, address = client.address) =>
      fetch(`${stack.api.url}${target}`, { method: 'POST', headers: { 'x-forwarded-for': address, 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 'a'));
    expect(bomb.length).toBeLessThan(16 * 1024);
    const cases: [string, string | Uint8Array, Record<string, string>, number][] = [
      ['gzip that is not gzip', form, { 'content-encoding': 'gzip' }, 400],
      ['compress', form, { 'content-encoding': 'compress' }, 415],
      ['bad deflate', Buffer.from('x\u009c not deflate at all', 'latin1'), { 'content-encoding': 'deflate' }, 400],
      ['bad br', form, { 'content-encoding': 'br' }, 400],
      ['a gzip bomb', bomb, { 'content-encoding': 'gzip' }, 413],
      ['charset=utf-16', Buffer.from(form, 'utf16le'), { 'content-type': 'application/x-www-form-urlencoded; charset=utf-16' }, 415],
      ['charset=latin1', form, { 'content-type': 'application/x-www-form-urlencoded; charset=latin1' }, 415],
      ['a form over 16 KB', `${form}&reason=${'x'.repeat(17 * 1024)}`, {}, 413],
    ];
    const unknown = `/q/${randomBytes(32).toString('base64url')}`;
    for (const target of [path, unknown]) {
      for (const action of ['accept', 'decline']) {
        const address = pageClient().address;
        for (const [what, body, headers, status] of cases) {
          const res = await raw(`${target}/${action}`, body, headers, address);
          const html = await res.text();
          expect({ what, action, status: res.status, type: res.headers.get('content-type') }).toEqual({ what, action, status, type: expect.stringMatching(/^text\/html/) });
          expect(html).toContain('The form could not be accepted');
        }
      }
    }
    expect((await detail(quote.quote_id)).status).toBe('SENT');
    // A real gzipped form is read as any other.
    expect((await raw(`${path}/accept`, gzipSync(form), { 'content-encoding': 'gzip' })).status).toBe(200);
  });

  it('limits each address: past the limit, 429 with Retry-After, and other addresses are unaffected', async () => {
    const { path } = await sentQuote();
    const client = pageClient();
    for (let i = 0; i < QUOTE_PAGE_LIMIT.points; i++) expect((await client.get(path)).status).toBe(200);
    const limited = await client.get(path);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await client.post(`${path}/accept`, { csrf: 'x', name: 'y' })).status).toBe(429);
    expect((await pageClient().get(path)).status).toBe(200);
  });
});

describe('D24: the page in Chromium, at a phone\'s width and at a desktop\'s', () => {
  let browser: Browser;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    process.stdout.write(`\nscreenshots of the customer's quote page: ${SHOTS}\n`);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  for (const [name, viewport] of [
    ['phone', { width: 375, height: 667 }],
    ['desktop', { width: 1280, height: 800 }],
  ] as const) {
    it(`${name}: the accept button is visible without scrolling, the total is the quote's, nothing external loads, and accepting works`, async () => {
      const { quote, path } = await sentQuote();
      const context = await browser.newContext({ viewport, extraHTTPHeaders: { 'x-forwarded-for': `198.19.${viewport.width % 250}.${1 + (randomBytes(1)[0]! % 254)}` } });
      const page = await context.newPage();
      const requests: string[] = [];
      const problems: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      page.on('pageerror', (error) => problems.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(message.text());
      });
      try {
        await page.goto(`${stack.api.url}${path}`);
        const button = page.locator('#accept-button');
        const box = await button.boundingBox();
        expect(box).not.toBeNull();
        expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height);
        expect(await button.isVisible()).toBe(true);
        // No sideways scrolling at this width.
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
        const total = quote.totals.amount_cents + quoteTax(null, quote.totals.amount_cents).total_cents;
        expect(await page.locator('#quote-total').innerText()).toBe(formatCad(total));
        expect(await page.locator('tr.total td').innerText()).toBe(formatCad(total));
        expect(await page.getByLabel('Type your full name to accept').isVisible()).toBe(true);
        const shot = join(SHOTS, `${name}-1-quote.png`);
        await page.screenshot({ path: shot, fullPage: true });
        expect(statSync(shot).size).toBeGreaterThan(5_000);
        expect(pngSize(shot).width).toBe(viewport.width);

        // An empty name is refused by the browser itself (required), a real one accepts.
        await page.getByLabel('Type your full name to accept').fill('Morgan Lee');
        await Promise.all([page.waitForURL(`**${path}/accept`), button.click()]);
        expect(await page.content()).toContain('you accepted this quote');
        // What the customer sees after accepting: whose quote, which one, and the confirmation with
        // their name, all on the first screen, nothing wider than it, and no form left to send.
        const confirmation = page.getByRole('status');
        expect(await confirmation.getByRole('heading').innerText()).toBe('Thank you: you accepted this quote');
        expect(await confirmation.innerText()).toContain(`Accepted by Morgan Lee on `);
        expect(await confirmation.innerText()).toContain(`Test ${stack.tenant.subdomain} has been told; your invoice will come by email.`);
        expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(`Quote ${quote.quote_number}`);
        expect(await page.locator('.contractor').innerText()).toBe(`Test ${stack.tenant.subdomain}`);
        const shown = await confirmation.boundingBox();
        expect(shown).not.toBeNull();
        expect(shown!.y).toBeGreaterThanOrEqual(0);
        expect(shown!.y + shown!.height).toBeLessThanOrEqual(viewport.height);
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(viewport.width);
        expect(await page.locator('form').count()).toBe(0);
        const acceptedShot = join(SHOTS, `${name}-2-accepted.png`);
        await page.screenshot({ path: acceptedShot, fullPage: true });
        expect(statSync(acceptedShot).size).toBeGreaterThan(3_000);
        // The whole page fits the first screen: the full-page shot is the viewport's size.
        expect(pngSize(acceptedShot)).toEqual({ width: viewport.width, height: viewport.height });
        expect((await detail(quote.quote_id)).acceptance).toMatchObject({ name: 'Morgan Lee', user_agent: expect.stringContaining('Chrome') });
        expect(requests.every((url) => url.startsWith(stack.api.url))).toBe(true);
        expect(problems).toEqual([]);
      } finally {
        await context.close();
      }
    }, 60_000);
  }

  it('checkout: a session paid on the sandbox’s checkout page with the test card delivers a signed checkout.session.completed to our webhook, and paid_at is set', async () => {
    const { quote, path } = await sentQuote();
    const client = pageClient();
    const csrf = csrfOf(await (await client.get(path)).text());
    expect((await client.post(`${path}/accept`, { csrf, name: 'Morgan Lee' })).status).toBe(200);
    await approvalSettled(stack.temporal.client, quote.quote_id);
    const created = await stack.api.request(`/api/v1/quotes/${quote.quote_id}/checkout-session`, { method: 'POST', token: stack.sales, json: {} });
    expect(created.status).toBe(201);
    const session = (await created.json()) as { session_id: string; url: string; amount_total_cents: number };
    // The sandbox's own page on loopback, for the quote's total with its tax.
    expect(session.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/c/pay/${session.session_id}$`));
    const total = totalOf(quote);
    expect(session.amount_total_cents).toBe(total);
    expect((await detail(quote.quote_id)).paid_at).toBeNull();

    const context = await browser.newContext({ viewport: { width: 375, height: 667 } });
    try {
      const page = await context.newPage();
      await page.goto(session.url);
      expect(await page.locator('#checkout-total').innerText()).toBe(`CAD ${Math.trunc(total / 100)}.${String(total % 100).padStart(2, '0')}`);
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
      await page.getByLabel('CVC').fill('123');
      // Paid, the sandbox sends the customer back to the office's return page, as the provider does.
      await Promise.all([page.waitForURL(`${returnOrigin}/**`), page.locator('#pay-button').click()]);
      expect(new URL(page.url()).searchParams.get('checkout')).toBe('success');
      expect(new URL(page.url()).searchParams.get('quote')).toBe(String(quote.quote_number));
      expect(await page.locator('#returned').innerText()).toBe('Thank you');
    } finally {
      await context.close();
    }

    // The signed event reached our payments webhook, which accepted it, and it set paid_at.
    const paid = await waitUntil('paid_at set by the signed checkout.session.completed', async () => (await detail(quote.quote_id)).paid_at, { timeoutMs: 30_000, intervalMs: 200 });
    expect(Date.parse(paid)).not.toBeNaN();
    await stack.fake.flushWebhooks();
    const completed = stack.fake.inspect.events(KEY).filter((e) => e.type === 'checkout.session.completed' && (e.data as { object: { id: string } }).object.id === session.session_id);
    expect(completed).toHaveLength(1);
    expect(stack.fake.deliveries().filter((d) => d.eventId === completed[0]!.id)).toEqual([
      expect.objectContaining({ url: `${stack.api.url}/api/v1/integrations/payments/webhook`, status: 200, error: null }),
    ]);
    // Not the invoice: it is still open at the sandbox, so the checkout alone paid the quote.
    expect(invoicesAtFake(quote.quote_id).map((i) => i.status)).toEqual(['open']);
  }, 90_000);
});

describe("D24: the contractor on the page and the PDF (the workspace's address, phone, terms and logo)", () => {
  const png = solidPng(120, 40, [0x11, 0x63, 0x29]);
  afterAll(async () => {
    // The stack's tenant is shared by the tests above: it is left as it was.
    await stack.api.request('/api/v1/organization/logo', { method: 'DELETE', token: admin });
    await stack.api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: { business_address: null, business_phone: null, quote_terms: null } });
  });

  it("shows the address, phone, terms and logo (from this app's origin, under the page's CSP) on the page, and embeds them in the PDF", async () => {
    const settings = { business_address: '120 King Street West\nToronto, ON M5H 1J9', business_phone: '+1 416 555 0142', quote_terms: 'A 30% deposit is due on acceptance; the balance on installation.' };
    expect((await stack.api.request('/api/v1/organization', { method: 'PATCH', token: admin, json: settings })).status).toBe(200);
    expect((await stack.api.request('/api/v1/organization/logo', { method: 'PUT', token: admin, headers: { 'content-type': 'image/png' }, body: png })).status).toBe(200);
    const { path } = await sentQuote();
    const client = pageClient();
    const page = await client.get(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("img-src 'self'");
    const html = await page.text();
    expect(html).toContain(`<img class="logo" src="${path}/logo" alt="Test ${stack.tenant.subdomain} logo"/>`);
    expect(html).toContain('120 King Street West<br/>Toronto, ON M5H 1J9');
    expect(html).toContain('+1 416 555 0142');
    expect(html).toContain(settings.quote_terms);

    const logo = await client.get(`${path}/logo`);
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(logo.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await logo.arrayBuffer()).equals(png)).toBe(true);
    expect((await client.get(`/q/${randomBytes(32).toString('base64url')}/logo`)).status).toBe(404);

    const bytes = Buffer.from(await (await client.get(`${path}/quote.pdf`)).arrayBuffer());
    const shown = pdfTexts(bytes);
    expect(shown).toEqual(expect.arrayContaining([`Test ${stack.tenant.subdomain}`, '120 King Street West', 'Toronto, ON M5H 1J9', 'Phone: +1 416 555 0142', 'Terms']));
    expect(shown.join(' ')).toContain(settings.quote_terms);
    // The logo is in the PDF: one image of its size.
    const images = [...bytes.toString('latin1').matchAll(/\/Subtype \/Image[\s\S]*?>>/g)].map(([dictionary]) => dictionary);
    expect(images).toHaveLength(1);
    expect(images[0]).toMatch(/\/Width 120\b/);
    expect(images[0]).toMatch(/\/Height 40\b/);
  });
});
