import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { startTemporalHarness, type TemporalHarness } from '../../scripts/harness/temporal-harness';
import { WebhookReceiver } from '../../scripts/harness/webhook-receiver';
import { dataDir } from '../../scripts/infra/paths';
import { CredentialCipher } from '../../db/security/credential-cipher';
import { decodePng, inkShare } from '../support/png';

/**
 * D13: the deliveries page at /developer/webhooks in a real browser (Debian's chromium, driven by
 * playwright-core). It signs in, finds a failed delivery, opens its attempt, presses Replay and
 * sees the new delivery succeed, on a loopback receiver that fails first and then succeeds.
 * Screenshots of the main views, desktop and phone, go to the folder printed below; their size and
 * layout are asserted on. Every request the page makes is an operation of /openapi.json or one of
 * the page's own assets: it uses the public API and nothing else.
 */
const KEY = randomBytes(32).toString('base64');
const SHOTS = process.env.SCREENSHOT_DIR ?? join(dataDir, 'screenshots', 'developer-webhooks');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
let owner: pg.Pool;
let temporal: TemporalHarness;
let api: ApiHarness;
let browser: Browser;
let tenant: Tenant;
let receiver: WebhookReceiver;
let endpointId: string;
/** The operations of the served /openapi.json, as a method and a pattern of the path. */
let operations: { method: string; template: string; pattern: RegExp }[];
/** The page and the assets its HTML names. */
let pageAssets: string[];

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  process.stdout.write(`\nscreenshots of the deliveries page: ${SHOTS}\n`);
  owner = ownerPool();
  temporal = await startTemporalHarness();
  // The narrow development allowance: loopback receivers only (D6).
  await temporal.startWorker({ webhooks: { cipher: new CredentialCipher(KEY), allowPrivateNetworks: false, allowLoopback: true } });
  api = await startApi({ events: temporal.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN' });
  const admin = await api.tokenFor(tenant.users.admin!);
  // Fails every attempt of the first delivery (five), then succeeds.
  receiver = (await new WebhookReceiver().start()).script(...Array.from({ length: 5 }, () => ({ status: 503, body: 'receiver is down', headers: { 'retry-after': '1' } })));
  const created = await api.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: `${receiver.url}/hooks`, events: ['work_order.dispatched'], description: 'ERP' } });
  expect(created.status).toBe(201);
  endpointId = ((await created.json()) as { id: string }).id;
  const order = await api.request('/api/v1/work-orders', { method: 'POST', token: admin, json: { assignedTechnicianId: tenant.users.tech!.id } });
  const orderId = ((await order.json()) as { id: string }).id;
  expect((await api.request(`/api/v1/work-orders/${orderId}/status`, { method: 'PATCH', token: admin, json: { status: 'DISPATCHED' } })).status).toBe(200);
  // Wait until the delivery has failed for good (five attempts, shortened backoff).
  const deadline = Date.now() + 30_000;
  while ((await owner.query(`select 1 from webhook_deliveries where endpoint_id = $1 and status = 'failed'`, [endpointId])).rowCount === 0) {
    if (Date.now() > deadline) throw new Error('the first delivery did not fail');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const document = (await (await api.request('/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  operations = Object.entries(document.paths).flatMap(([template, item]) =>
    Object.keys(item).map((method) => ({ method: method.toUpperCase(), template, pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) })),
  );
  const html = await (await api.request('/developer/webhooks')).text();
  pageAssets = ['/developer/webhooks', ...[...html.matchAll(/(?:src|href)="(\/[^"]*)"/g)].map((m) => m[1]!)];
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await api?.close();
  await temporal?.close();
  await owner?.end();
});

/** A page that records every request it makes and every script or policy error. */
async function openPage(viewport: { width: number; height: number }): Promise<{ page: Page; requests: { method: string; url: string }[]; problems: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const requests: { method: string; url: string }[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push({ method: request.method(), url: request.url() }));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  await page.goto(`${api.url}/developer/webhooks`);
  return { page, requests, problems };
}

/**
 * What the page asked for that is neither an operation of the API document nor one of its own
 * assets (the page itself, its stylesheet and script): empty for a page that uses the public API only.
 */
function outsideThePublicApi(requests: { method: string; url: string }[]): string[] {
  return requests
    .filter(({ url }) => !url.startsWith('data:'))
    .flatMap(({ method, url }) => {
      const { origin, pathname } = new URL(url);
      if (origin !== api.url) return [`${method} ${url}`];
      if (method === 'GET' && pageAssets.includes(pathname)) return [];
      return operations.some((op) => op.method === method && op.pattern.test(pathname)) ? [] : [`${method} ${pathname}`];
    });
}

/** A full-page screenshot, saved for people and decoded for the test: its pixels and size. */
async function screenshot(page: Page, name: string) {
  return decodePng(await page.screenshot({ path: join(SHOTS, name), fullPage: true }));
}

async function signIn(page: Page, password = tenant.users.admin!.password): Promise<void> {
  await page.getByLabel('Workspace').fill(tenant.subdomain);
  await page.getByLabel('Email').fill(tenant.users.admin!.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe('/developer/webhooks is served by the deployment (D13)', () => {
  it('as a page whose every asset is this app\'s, under a CSP that allows nothing else', async () => {
    const res = await api.request('/developer/webhooks');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"]) expect(csp).toContain(directive);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await res.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"#][^"]*)"/g)].map((m) => m[1]!);
    expect(assets).toEqual(['data:,', '/developer/assets/webhooks.css', '/developer/assets/webhooks.js']);
    for (const [path, type] of [['/developer/assets/webhooks.css', 'text/css'], ['/developer/assets/webhooks.js', 'application/javascript']] as const) {
      const asset = await api.request(path);
      expect({ path, status: asset.status, type: asset.headers.get('content-type')?.split(';')[0] }).toEqual({ path, status: 200, type });
    }
  });
});

describe('/developer/webhooks in a real browser (D13)', () => {
  it('signs in, finds the failed delivery, opens its attempt, replays it and sees the new delivery succeed', async () => {
    const { page, requests, problems } = await openPage(DESKTOP);
    const signInShot = await screenshot(page, 'desktop-1-sign-in.png');
    expect(signInShot.width).toBe(DESKTOP.width);
    // The sign-in form is drawn, not a blank page.
    expect(inkShare(signInShot, (await page.locator('form').first().boundingBox())!)).toBeGreaterThan(0.02);
    await signIn(page);
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    const endpointCard = page.locator('#endpoints li').filter({ hasText: `${receiver.url}/hooks` });
    await expect(endpointCard.locator('.badge').textContent()).resolves.toBe('enabled');

    // The event filter names every format's events, field and events ones included.
    const options = await page.locator('#filter-event option').allTextContents();
    expect(options).toEqual(expect.arrayContaining(['work_order.dispatched', 'job.dispatched', 'quote.created', 'invoice.generated', 'dispatch.updated']));
    expect(options.some((name) => name.includes(':'))).toBe(false);
    // Filter to the failed deliveries of work_order.dispatched.
    await page.getByLabel('Status').selectOption('failed');
    await page.getByLabel('Event', { exact: true }).selectOption('work_order.dispatched');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    const failed = page.locator('#deliveries li[data-status="failed"]');
    await failed.first().waitFor();
    expect(await page.locator('#deliveries li[data-delivery]').count()).toBe(1);
    await page.screenshot({ path: join(SHOTS, 'desktop-2-failed-deliveries.png'), fullPage: true });

    await failed.first().getByRole('button', { name: /^Attempts of work_order\.dispatched/ }).click();
    const detail = page.locator('#detail');
    await detail.waitFor({ state: 'visible' });
    // Focus moves to the detail for keyboard users.
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('detail-title');
    const attempts = detail.locator('#attempts li.attempt');
    expect(await attempts.count()).toBe(5);
    const first = attempts.filter({ has: page.locator('h4', { hasText: 'Attempt 1 ' }) });
    const requestText = (await first.locator('pre').nth(0).textContent())!;
    expect(requestText).toContain(`POST ${receiver.url}/hooks`);
    expect(requestText).toMatch(/^X-Service-Signature: t=\d+,v1=[0-9a-f]{64}$/m);
    expect(requestText).toMatch(/^content-type: application\/json$/m);
    // The body as the exact bytes that were signed (what the receiver got), pretty-printed only on request.
    const body = first.locator('pre.body');
    expect(await body.textContent()).toBe(receiver.received[0]!.body);
    await first.getByRole('button', { name: /body pretty-printed$/ }).click();
    expect(await body.textContent()).toContain('"event": "work_order.dispatched"');
    await first.getByRole('button', { name: /body as the exact bytes signed$/ }).click();
    expect(await body.textContent()).toBe(receiver.received[0]!.body);
    const responseHeading = (await first.locator('h5').nth(1).textContent())!;
    expect(responseHeading).toMatch(/^Response 503 in \d+ ms$/);
    const responseText = (await first.locator('pre').nth(2).textContent())!;
    expect(responseText).toContain('retry-after: 1');
    expect(responseText).toContain('receiver is down');
    // The attempt's detail sits beside the list, not below it.
    const list = (await page.locator('#deliveries').boundingBox())!;
    const beside = (await detail.boundingBox())!;
    expect(beside.x).toBeGreaterThanOrEqual(list.x + list.width);
    expect(beside.y).toBeLessThan(list.y + list.height);
    // And so the screenshot shows it: as wide as the window, the list on the left and the detail on
    // its right, each drawn on (text, badges, buttons), with the detail's column beside the list's rows.
    const shot = await screenshot(page, 'desktop-3-attempts.png');
    expect(shot.width).toBe(DESKTOP.width);
    expect(shot.height).toBeGreaterThanOrEqual(DESKTOP.height);
    expect(list.x + list.width).toBeLessThanOrEqual(shot.width / 2 + 100);
    expect(beside.x + beside.width).toBeLessThanOrEqual(shot.width);
    expect(inkShare(shot, list)).toBeGreaterThan(0.02);
    expect(inkShare(shot, beside)).toBeGreaterThan(0.02);
    // The band of the list's rows, across the detail's column, is drawn on too: the detail is beside the rows, not below them.
    expect(inkShare(shot, { x: beside.x, y: list.y, width: beside.width, height: Math.min(list.height, beside.height) })).toBeGreaterThan(0.02);

    await page.getByRole('button', { name: 'Replay' }).click();
    await page.getByText(/^Replay started: delivery [0-9a-f-]{36}\.$/).waitFor();
    // The replay is the newest delivery, and the page refreshes until it is delivered.
    const newest = page.locator('#deliveries li[data-delivery]').first();
    // (Waits through locators: the page's CSP refuses the eval that waitForFunction would need.)
    await page.locator('#deliveries > li:first-child[data-status="delivered"]').waitFor({ timeout: 30_000 });
    expect(await newest.textContent()).toContain('replay 1');
    await page.getByText('The replay is delivered.').waitFor();
    await page.screenshot({ path: join(SHOTS, 'desktop-4-replayed.png'), fullPage: true });
    expect(receiver.received).toHaveLength(6);
    expect(receiver.received[5]!.headers['x-service-delivery']).toBe(receiver.received[0]!.headers['x-service-delivery']);

    // Its one attempt: delivered, with the receiver's 200.
    await newest.getByRole('button', { name: /^Attempts of/ }).click();
    await page.locator('#attempts li.attempt').first().waitFor();
    expect(await page.locator('#attempts li.attempt').count()).toBe(1);
    expect(await page.locator('#attempts li.attempt h5').nth(1).textContent()).toMatch(/^Response 200 in \d+ ms$/);

    // Nothing but this deployment's public API and the page's own assets was asked for anything, and nothing was refused or thrown.
    expect(requests.length).toBeGreaterThan(5);
    expect(outsideThePublicApi(requests)).toEqual([]);
    expect(problems).toEqual([]);
  }, 90_000);

  it('shows the API error envelope of a refused sign-in, and is used with the keyboard alone', async () => {
    const { page, problems } = await openPage(DESKTOP);
    // Tab order: skip link, then the form's fields in order, then its button.
    const order: string[] = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate<string>(`document.activeElement.id || document.activeElement.textContent.trim()`));
    }
    expect(order).toEqual(['Skip to content', 'workspace', 'email', 'password', 'Sign in']);

    await page.focus('#workspace');
    await page.keyboard.type(tenant.subdomain);
    await page.keyboard.press('Tab');
    await page.keyboard.type(tenant.users.admin!.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not the password');
    await page.keyboard.press('Enter');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('The workspace, email or password is incorrect.');
    expect(await alert.textContent()).toMatch(/Request id \S+/);
    await page.screenshot({ path: join(SHOTS, 'desktop-0-sign-in-refused.png'), fullPage: true });

    // A validation error names its fields.
    await page.fill('#workspace', '');
    await page.fill('#email', 'not-an-email');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'validation' }).waitFor();
    expect(await alert.textContent()).toMatch(/email:/);

    // Signed in with the keyboard: Enter in the form.
    await page.fill('#workspace', tenant.subdomain);
    await page.fill('#email', tenant.users.admin!.email);
    await page.fill('#password', tenant.users.admin!.password);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    expect(await alert.isHidden()).toBe(true);
    // Every control on the signed-in page has an accessible name.
    const unnamed = await page.evaluate<string[]>(`[...document.querySelectorAll('button, select, input')]
      .filter((n) => !n.closest('[hidden]'))
      .filter((n) => !((n.labels && n.labels.length) || n.getAttribute('aria-label') || n.textContent.trim()))
      .map((n) => n.outerHTML)`);
    expect(unnamed).toEqual([]);
    // The refusals it was sent to provoke are the only errors the browser saw.
    expect(problems.filter((p) => !/status of (401|422) /.test(p))).toEqual([]);
  }, 60_000);

  it('fits a phone-sized window: no sideways scrolling, the same views', async () => {
    const { page, problems } = await openPage(PHONE);
    await page.screenshot({ path: join(SHOTS, 'phone-1-sign-in.png'), fullPage: true });
    await signIn(page);
    await page.locator('#deliveries li[data-delivery]').first().waitFor();
    const overflow = () => page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect((await screenshot(page, 'phone-2-deliveries.png')).width).toBe(PHONE.width);
    await page.locator('#deliveries li[data-status="failed"]').first().getByRole('button', { name: /^Attempts of/ }).click();
    await page.locator('#attempts li.attempt').first().waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    // On a phone the detail comes below the list, and the screenshot is no wider than the phone.
    const shot = await screenshot(page, 'phone-3-attempts.png');
    expect(shot.width).toBe(PHONE.width);
    const list = (await page.locator('#deliveries').boundingBox())!;
    const detail = (await page.locator('#detail').boundingBox())!;
    expect(detail.y).toBeGreaterThanOrEqual(list.y + list.height);
    expect(shot.height).toBeGreaterThanOrEqual(Math.floor(detail.y + detail.height));
    expect(inkShare(shot, list)).toBeGreaterThan(0.02);
    expect(inkShare(shot, detail)).toBeGreaterThan(0.02);
    expect(problems).toEqual([]);
  }, 60_000);

  it('manages endpoints as a portal does: add (secret shown once), edit, test event, success rate, disable, rotate, delete', async () => {
    const { page, requests, problems } = await openPage(DESKTOP);
    page.on('dialog', (dialog) => void dialog.accept());
    await signIn(page);
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    // The first endpoint's last day: the five failed attempts and the replay's success.
    const first = page.locator('#endpoints li').filter({ hasText: `${receiver.url}/hooks` });
    await expect(first.locator('.rate').textContent()).resolves.toBe('16.7 % delivered of 6 attempts in the last 24 hours');

    const second = await new WebhookReceiver().start();
    try {
      await page.getByText('Add an endpoint').click();
      await page.getByLabel('URL', { exact: true }).fill(`${second.url}/portal`);
      await page.getByLabel(/^Events/).fill('work_order.completed, work_order.dispatched');
      await page.getByLabel(/^Description/).fill('Portal test');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = page.locator('#secret-value');
      await secret.waitFor();
      const shown = (await secret.textContent())!;
      expect(shown).toMatch(/^whsec_[A-Za-z0-9_-]{20,}$/);
      await page.screenshot({ path: join(SHOTS, 'desktop-5-secret-once.png'), fullPage: true });
      await page.getByRole('button', { name: 'I have stored it' }).click();
      expect(await page.locator('#secret-box').isHidden()).toBe(true);
      expect(await page.content()).not.toContain(shown);
      const card = page.locator('#endpoints li').filter({ hasText: `${second.url}/portal` });
      await expect(card.locator('.rate').textContent()).resolves.toBe('No attempts in the last 24 hours');

      // Edit its URL, its events and its description.
      await card.getByRole('button', { name: `Edit ${second.url}/portal` }).click();
      await card.getByLabel('URL', { exact: true }).fill(`${second.url}/portal-moved`);
      await card.getByLabel('Events').fill('work_order.dispatched');
      await card.getByLabel('Description').fill('Portal, edited');
      await card.getByRole('button', { name: 'Save' }).click();
      const moved = page.locator('#endpoints li').filter({ hasText: `${second.url}/portal-moved` });
      await moved.filter({ hasText: 'Portal, edited' }).waitFor();
      expect(await moved.locator('.meta:not(.rate)').textContent()).toBe('core · Portal, edited · work_order.dispatched');
      const stored = await owner.query<{ url: string; events: string[]; description: string }>(`select url, events, description from webhook_endpoints where url like $1`, [`${second.url}/portal%`]);
      expect(stored.rows).toEqual([{ url: `${second.url}/portal-moved`, events: ['work_order.dispatched'], description: 'Portal, edited' }]);

      // A test event reaches it alone, signed, and is marked as a test in the list.
      const before = receiver.received.length;
      await page.locator('#endpoints li').filter({ hasText: `${second.url}/portal` }).getByRole('button', { name: /^Send a test event/ }).click();
      // By default the first event of its format's catalogue that it receives.
      await page.getByText('The test event is delivered.').waitFor({ timeout: 30_000 });
      await page.locator('#deliveries > li:first-child[data-status="delivered"]').waitFor({ timeout: 30_000 });
      expect(await page.locator('#deliveries > li:first-child .badge.test').textContent()).toBe('test');
      expect(second.received).toHaveLength(1);
      expect(JSON.parse(second.received[0]!.body)).toMatchObject({ event: 'work_order.dispatched' });
      expect(second.received[0]!.headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(receiver.received.length).toBe(before);
      // The receiver is told it is a test: its data is an example, not a real work order.
      expect(second.received[0]!.headers['x-service-test']).toBe('true');
      // The card's last day follows the delivery without a Refresh.
      const rate = () => page.locator('#endpoints li').filter({ hasText: `${second.url}/portal` }).locator('.rate');
      expect(await rate().textContent()).toBe('100 % delivered of 1 attempt in the last 24 hours');

      // Replaying the test event: the panel stays open on the replay, which is a test event too, and so is what the receiver gets.
      await page.locator('#deliveries > li:first-child').getByRole('button', { name: /^Attempts of/ }).click();
      await page.locator('#attempts li.attempt').first().waitFor();
      await page.getByRole('button', { name: 'Replay' }).click();
      await page.getByText('The replay is delivered.').waitFor({ timeout: 30_000 });
      expect(await page.locator('#detail').isVisible()).toBe(true);
      const replayId = await page.locator('#deliveries > li:first-child').getAttribute('data-delivery');
      expect(await page.locator('#detail').getAttribute('data-delivery')).toBe(replayId);
      expect(await page.locator('#detail-facts').textContent()).toContain('A test event sent from this page');
      expect(await page.locator('#attempts li.attempt').count()).toBe(1);
      expect(await page.locator('#deliveries > li:first-child').textContent()).toContain('replay 1');
      expect(await page.locator('#deliveries > li:first-child .badge.test').textContent()).toBe('test');
      const listed = (await (await api.request(`/api/v1/webhook-deliveries?limit=1`, { token: await api.tokenFor(tenant.users.admin!) })).json()) as { data: { id: string; test: boolean; series: number }[] };
      expect(listed.data[0]).toMatchObject({ id: replayId, test: true, series: 1 });
      expect(second.received).toHaveLength(2);
      expect(second.received[1]!.headers['x-service-test']).toBe('true');
      expect(second.received[1]!.headers['x-service-delivery']).toBe(second.received[0]!.headers['x-service-delivery']);
      expect(await rate().textContent()).toBe('100 % delivered of 2 attempts in the last 24 hours');

      // A test event the receiver refuses, then recovered from the card: re-sent once, with its id.
      second.script({ status: 400, body: 'nope' });
      await page.locator('#endpoints li').filter({ hasText: `${second.url}/portal` }).getByRole('button', { name: /^Send a test event/ }).click();
      await page.getByText('The test event is failed.').waitFor({ timeout: 30_000 });
      expect(await rate().textContent()).toBe('66.7 % delivered of 3 attempts in the last 24 hours');
      await page.locator('#endpoints li').filter({ hasText: `${second.url}/portal` }).getByRole('button', { name: /^Re-send what/ }).click();
      // 24 hours back by default; the field is labelled.
      expect(await page.getByLabel('Re-send what failed since').inputValue()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d$/);
      await page.getByRole('button', { name: 'Re-send failed events' }).click();
      await page.getByText(/^Re-sending 1 failed event since /).waitFor();
      await page.getByText('The recovery of 1 failed event is done.').waitFor({ timeout: 30_000 });
      expect(second.received).toHaveLength(4);
      expect(second.received[3]!.headers['x-service-delivery']).toBe(second.received[2]!.headers['x-service-delivery']);
      expect(second.received[3]!.body).toBe(second.received[2]!.body);
      expect(await rate().textContent()).toBe('75 % delivered of 4 attempts in the last 24 hours');

      // Disable, then rotate its secret (shown once again), then delete it.
      const edited = () => page.locator('#endpoints li').filter({ hasText: `${second.url}/portal` });
      await edited().getByRole('button', { name: `Disable ${second.url}/portal` }).click();
      await edited().locator('.badge', { hasText: /^disabled$/ }).waitFor();
      expect(await edited().getByRole('button', { name: /^Send a test event/ }).count()).toBe(0);
      await edited().getByRole('button', { name: /^Rotate the signing secret/ }).click();
      await page.locator('#secret-box:not([hidden])').waitFor();
      const rotated = (await secret.textContent())!;
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(shown);
      await page.getByRole('button', { name: 'I have stored it' }).click();
      await edited().getByRole('button', { name: `Delete ${second.url}/portal` }).click();
      await page.getByText(`Deleted ${second.url}/portal-moved.`).waitFor();
      expect(await edited().count()).toBe(0);
      // Every write went through operations of the API document too (create, edit, test event, disable, rotate, delete).
      const writes = requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${new URL(r.url).pathname.replace(/[0-9a-f-]{36}/g, '{id}')}`);
      expect(new Set(writes)).toEqual(
        new Set([
          'POST /api/v1/auth/login',
          'POST /api/v1/webhook-endpoints',
          'PATCH /api/v1/webhook-endpoints/{id}',
          'POST /api/v1/webhook-endpoints/{id}/test-events',
          'POST /api/v1/webhook-deliveries/{id}/replay',
          'POST /api/v1/webhook-endpoints/{id}/recover',
          'POST /api/v1/webhook-endpoints/{id}/rotate-secret',
          'DELETE /api/v1/webhook-endpoints/{id}',
        ]),
      );
      expect(outsideThePublicApi(requests)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await second.close();
    }
  }, 90_000);

  it('shows when a pending delivery is next attempted (no worker here, so it stays pending)', async () => {
    const idle = await startTemporalHarness();
    const quiet = await startApi({ events: idle.dispatcher, env: { CREDENTIAL_ENCRYPTION_KEY: KEY, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'true' } });
    try {
      const admin = await quiet.tokenFor(tenant.users.admin!);
      // An endpoint of its own: its delivery workflow starts on a task queue no worker polls.
      const created = await quiet.request('/api/v1/webhook-endpoints', { method: 'POST', token: admin, json: { url: `${receiver.url}/quiet`, events: ['work_order.dispatched'] } });
      const quietEndpoint = ((await created.json()) as { id: string }).id;
      const sent = await quiet.request(`/api/v1/webhook-endpoints/${quietEndpoint}/test-events`, { method: 'POST', token: admin, json: { event: 'work_order.dispatched' } });
      expect(sent.status).toBe(202);
      const { delivery_id: deliveryId } = (await sent.json()) as { delivery_id: string };
      const listed = (await (await quiet.request(`/api/v1/webhook-deliveries?endpoint_id=${quietEndpoint}&status=pending`, { token: admin })).json()) as { data: Array<{ id: string; next_attempt_at: string | null; test: boolean }> };
      const pending = listed.data.find((delivery) => delivery.id === deliveryId)!;
      expect(pending).toMatchObject({ test: true, next_attempt_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
      // An event the endpoint does not receive, and a disabled endpoint, are refused.
      expect((await quiet.request(`/api/v1/webhook-endpoints/${quietEndpoint}/test-events`, { method: 'POST', token: admin, json: { event: 'quote.approved' } })).status).toBe(422);
      expect((await quiet.request(`/api/v1/webhook-endpoints/${quietEndpoint}`, { method: 'PATCH', token: admin, json: { status: 'disabled' } })).status).toBe(200);
      expect((await quiet.request(`/api/v1/webhook-endpoints/${quietEndpoint}/test-events`, { method: 'POST', token: admin, json: {} })).status).toBe(409);

      const context = await browser.newContext({ viewport: DESKTOP });
      const page = await context.newPage();
      await page.goto(`${quiet.url}/developer/webhooks`);
      await signIn(page);
      const row = page.locator(`#deliveries li[data-delivery="${deliveryId}"]`);
      await row.waitFor();
      expect(await row.locator('.next-attempt').textContent()).toMatch(/^Next attempt \S/);
      await context.close();
    } finally {
      await quiet.close();
      await idle.close();
    }
  }, 60_000);
});
