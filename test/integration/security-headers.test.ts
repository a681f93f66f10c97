import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { launchBrowser } from '../support/browser';
import { DOCS_ASSETS } from '../../api/meta/routes';

/** Headers of every response (helmet, api/http/security-headers.ts) and the /docs inventory. */
let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;

beforeAll(async () => {
  owner = ownerPool();
  api = await startApi();
  tenant = await createTenant(owner, { admin: 'ADMIN' });
});
afterAll(async () => {
  await api.close();
  await owner.end();
});

describe('security headers', () => {
  it('JSON responses, errors included, say nosniff and are no page (no framing, nothing loads)', async () => {
    for (const res of [await api.request('/api/connectors'), await api.request('/api/v1/auth/me'), await api.request('/api/v1/no/such')]) {
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('x-powered-by')).toBeNull();
    }
  });

  it('the login response is never stored, whatever its outcome', async () => {
    const admin = tenant.users.admin!;
    const ok = await api.request('/api/v1/auth/login', { method: 'POST', json: { subdomain: tenant.subdomain, email: admin.email, password: admin.password } });
    const refused = await api.request('/api/v1/auth/login', { method: 'POST', json: { subdomain: tenant.subdomain, email: admin.email, password: 'wrong-password' } });
    const invalid = await api.request('/api/v1/auth/login', { method: 'POST', json: { subdomain: tenant.subdomain } });
    expect([ok.status, refused.status, invalid.status]).toEqual([200, 401, 422]);
    for (const res of [ok, refused, invalid]) expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('HSTS only where HTTPS is served: over TLS at a trusted proxy, never over plain HTTP or on an untrusted claim', async () => {
    const plain = await api.request('/api/connectors');
    expect(plain.headers.get('strict-transport-security')).toBeNull();
    // The harness trusts one proxy hop (as docker-compose's API does): its X-Forwarded-Proto counts.
    const proxied = await api.request('/api/connectors', { headers: { 'x-forwarded-proto': 'https' } });
    expect(proxied.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    const direct = await startApi({ env: { TRUST_PROXY_HOPS: '' } });
    try {
      const claimed = await direct.request('/api/connectors', { headers: { 'x-forwarded-proto': 'https' } });
      expect(claimed.headers.get('strict-transport-security')).toBeNull();
    } finally {
      await direct.close();
    }
  });

  it('/docs has a CSP of its own scripts and styles only, and cannot be framed', async () => {
    const res = await api.request('/docs');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('/docs/assets', () => {
  it('serves the files the page uses and nothing else of swagger-ui-dist', async () => {
    const html = await (await api.request('/docs')).text();
    const used = [...html.matchAll(/(?:src|href)="\/docs\/assets\/([^"]+)"/g)].map((m) => m[1]!).sort();
    expect(used).toEqual([...DOCS_ASSETS].sort());
    for (const file of used) expect({ file, status: (await api.request(`/docs/assets/${file}`)).status }).toEqual({ file, status: 200 });
    for (const file of ['package.json', 'index.html', 'swagger-ui-standalone-preset.js', 'swagger-ui-bundle.js.map', 'swagger-ui.js', 'swagger-initializer.js', 'oauth2-redirect.html', 'favicon-32x32.png', '', '%2e%2e/package.json', 'swagger-ui.css/']) {
      const res = await api.request(`/docs/assets/${file}`);
      expect({ file, status: res.status }).toEqual({ file, status: 404 });
    }
  });

  it('the reference page still renders under its CSP in a real browser, with nothing refused', async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const refused: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
      });
      page.on('pageerror', (error) => refused.push(error.message));
      await page.goto(`${api.url}/docs`);
      await page.waitForSelector('.swagger-ui .info .title', { timeout: 30_000 });
      expect(await page.textContent('.swagger-ui .info .title')).toContain('Shade Office API');
      // The operations of the document are listed (the page fetched /openapi.json itself).
      await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 });
      const paths = await page.$$eval('.opblock-summary-path', (nodes) => nodes.map((n) => (n.textContent ?? '').replace(/[\u200b\s]/g, '')));
      expect(paths).toEqual(expect.arrayContaining(['/api/v1/auth/login', '/api/v1/quotes/calculate']));
      expect(refused).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 90_000);
});
