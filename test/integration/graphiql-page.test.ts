import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { dataDir } from '../../scripts/infra/paths';
import { CountingBucket } from '../support/counting-bucket';

/**
 * D17: GraphiQL at GET /v1/graphql in a real browser (Debian's chromium): it loads only from this
 * deployment under its Content-Security-Policy, introspects the schema and runs a query with the
 * bearer token from its Headers tab. A screenshot goes to the folder printed below.
 */
const SHOTS = process.env.SCREENSHOT_DIR ?? join(dataDir, 'screenshots', 'graphiql');
let owner: pg.Pool;
let api: ApiHarness;
let browser: Browser;
let tenant: Tenant;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  process.stdout.write(`\nscreenshots of GraphiQL: ${SHOTS}\n`);
  owner = ownerPool();
  api = await startApi({ graphqlBucket: new CountingBucket() });
  tenant = await createTenant(owner, { admin: 'ADMIN' });
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await api?.close();
  await owner?.end();
});

describe('GraphiQL (D17)', () => {
  it('loads from this deployment alone, under its policy, and runs a query with the token from its Headers tab', async () => {
    const token = await api.tokenFor(tenant.users.admin!);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // What a visitor types into the editors, as GraphiQL keeps it between visits.
    await context.addInitScript(
      ([headers, query]) => {
        localStorage.setItem('graphiql:headers', headers);
        localStorage.setItem('graphiql:query', query);
      },
      [JSON.stringify({ authorization: `Bearer ${token}` }), '{ workOrders(first: 3) { nodes { id } pageInfo { hasNextPage } } }'] as const,
    );
    const page = await context.newPage();
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' || /Content Security Policy|Refused to/i.test(message.text())) problems.push(message.text());
    });
    await page.goto(`${api.url}/v1/graphql`);
    await page.locator('.graphiql-execute-button').click();
    const result = page.locator('.result-window');
    await expect(result.getByText('"hasNextPage": false').waitFor({ timeout: 15_000 })).resolves.toBeUndefined();
    await page.screenshot({ path: join(SHOTS, 'graphiql.png') });
    expect(await result.textContent()).toContain('"requestedQueryCost": 5');
    expect(problems).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(`${api.url}/`) && !url.startsWith('data:'))).toEqual([]);
    await context.close();
  });

  it('signs in from its bar (workspace, email, password) and runs a query with that token, nothing typed into the Headers tab', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript((query) => localStorage.setItem('graphiql:query', query), '{ workOrders(first: 2) { pageInfo { hasNextPage } } }');
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${api.url}/v1/graphql`);
    const admin = tenant.users.admin!;
    await page.getByLabel('Workspace').fill(tenant.subdomain);
    await page.getByLabel('Email').fill(admin.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('#sign-in-message').getByText(/invalid|incorrect|not match/i).waitFor({ timeout: 10_000 })).resolves.toBeUndefined();
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByText(`Signed in as ${admin.email}`).waitFor({ timeout: 10_000 })).resolves.toBeUndefined();
    // The token is the session's, never written into the page or the editors.
    expect(await page.evaluate(() => localStorage.getItem('graphiql:headers'))).toBeNull();
    await page.locator('.graphiql-execute-button').click();
    await expect(page.locator('.result-window').getByText('"hasNextPage": false').waitFor({ timeout: 15_000 })).resolves.toBeUndefined();
    await page.screenshot({ path: join(SHOTS, 'graphiql-signed-in.png') });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('.graphiql-execute-button').click();
    await expect(page.locator('.result-window').getByText('UNAUTHENTICATED').waitFor({ timeout: 15_000 })).resolves.toBeUndefined();
    expect(problems).toEqual([]);
    await context.close();
  });
});
