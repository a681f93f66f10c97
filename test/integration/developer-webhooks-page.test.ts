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

/**
 * D13: the deliveries page at /developer/webhooks in a real browser (Debian's chromium, driven by
 * playwright-core). It signs in, finds a failed delivery, opens its attempt, presses Replay and
 * sees the new delivery succeed, on a loopback receiver that fails first and then succeeds.
 * Screenshots of the main views, desktop and phone, go to the folder printed below.
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
async function openPage(viewport: { width: number; height: number }): Promise<{ page: Page; requests: string[]; problems: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  await page.goto(`${api.url}/developer/webhooks`);
  return { page, requests, problems };
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
    await page.screenshot({ path: join(SHOTS, 'desktop-1-sign-in.png'), fullPage: true });
    await signIn(page);
    await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    const endpointCard = page.locator('#endpoints li').filter({ hasText: `${receiver.url}/hooks` });
    await expect(endpointCard.locator('.badge').textContent()).resolves.toBe('enabled');

    // Filter to the failed deliveries of work_order.dispatched.
    await page.getByLabel('Status').selectOption('failed');
    await page.getByLabel('Event').selectOption('work_order.dispatched');
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
    expect(requestText).toContain('"event": "work_order.dispatched"');
    const responseHeading = (await first.locator('h5').nth(1).textContent())!;
    expect(responseHeading).toMatch(/^Response 503 in \d+ ms$/);
    const responseText = (await first.locator('pre').nth(1).textContent())!;
    expect(responseText).toContain('retry-after: 1');
    expect(responseText).toContain('receiver is down');
    await page.screenshot({ path: join(SHOTS, 'desktop-3-attempts.png'), fullPage: true });

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

    // Nothing but this deployment was asked for anything, and nothing was refused or thrown.
    expect(requests.filter((url) => !url.startsWith(`${api.url}/`))).toEqual([]);
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
    await page.screenshot({ path: join(SHOTS, 'phone-2-deliveries.png'), fullPage: true });
    await page.locator('#deliveries li[data-status="failed"]').first().getByRole('button', { name: /^Attempts of/ }).click();
    await page.locator('#attempts li.attempt').first().waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SHOTS, 'phone-3-attempts.png'), fullPage: true });
    expect(problems).toEqual([]);
  }, 60_000);
});
