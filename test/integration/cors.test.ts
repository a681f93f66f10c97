import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { launchBrowser } from '../support/browser';
import { loadSettings } from '../../infra/runtime/settings';

/**
 * Browser clients on another origin (an office app, a dispatch board): the origins of
 * CORS_ORIGINS may call the API from a page, preflights included; any other origin may not.
 * Two pages on loopback, each its own origin (another port), call the API from Chromium.
 */
let api: ApiHarness;
let browser: Browser;
let tenant: Tenant;
const pages: Server[] = [];
let allowedOrigin = '';
let otherOrigin = '';
const owner = ownerPool();

/** A page that serves nothing but itself: the scripts run from the test through page.evaluate. */
async function originServer(): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><title>office app</title>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  pages.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  allowedOrigin = await originServer();
  otherOrigin = await originServer();
  api = await startApi({ env: { CORS_ORIGINS: allowedOrigin } });
  tenant = await createTenant(owner, { admin: 'ADMIN' });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await api.close();
  await owner.end();
  for (const server of pages) await new Promise((resolve) => server.close(resolve));
});

/** Logs in and reads a list from a page of `origin`, as a browser client would. */
async function fromPage(origin: string): Promise<{ login?: number; list?: number; requestId?: string | null; version?: string | null; error?: string }> {
  const page = await browser.newPage();
  try {
    await page.goto(origin);
    return await page.evaluate(
      async ({ apiUrl, subdomain, email, password }) => {
        try {
          const login = await fetch(`${apiUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ subdomain, email, password }) });
          const { access_token: token } = (await login.json()) as { access_token: string };
          // Authorization and Service-Version make this a preflighted request.
          const list = await fetch(`${apiUrl}/v1/fsm/jobs?limit=1`, { headers: { authorization: `Bearer ${token}`, 'service-version': '2026-07-01' } });
          return { login: login.status, list: list.status, requestId: list.headers.get('x-request-id'), version: list.headers.get('service-version') };
        } catch (error) {
          return { error: String(error) };
        }
      },
      { apiUrl: api.url, subdomain: tenant.subdomain, email: tenant.users.admin!.email, password: tenant.users.admin!.password },
    );
  } finally {
    await page.close();
  }
}

describe('cross-origin browser clients (CORS_ORIGINS)', () => {
  it('a page on an allowed origin logs in and reads, preflights and exposed headers included', async () => {
    const seen = await fromPage(allowedOrigin);
    expect(seen).toMatchObject({ login: 200, list: 200, requestId: expect.any(String), version: '2026-07-01' });
  });

  it('a page on any other origin is refused by the browser: no CORS header is ever sent to it', async () => {
    expect(await fromPage(otherOrigin)).toEqual({ error: expect.stringMatching(/Failed to fetch/) });
    const preflight = await fetch(`${api.url}/api/v1/quotes`, { method: 'OPTIONS', headers: { origin: otherOrigin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' } });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers an allowed preflight before authentication, naming the headers a client sends and the methods it uses', async () => {
    const preflight = await fetch(`${api.url}/v1/quotes`, {
      method: 'OPTIONS',
      headers: { origin: allowedOrigin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,idempotency-key,service-version,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(allowedOrigin);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(expect.arrayContaining(['authorization', 'idempotency-key', 'service-version', 'content-type']));
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    expect(preflight.headers.get('vary')).toMatch(/origin/i);
  });

  it('is empty by default: with no CORS_ORIGINS, no origin gets an allow header, on a preflight or a plain request', async () => {
    const { CORS_ORIGINS: _unset, ...environment } = process.env;
    expect(loadSettings(environment).CORS_ORIGINS).toEqual([]);
    const closed = await startApi({ env: { CORS_ORIGINS: undefined } });
    try {
      for (const origin of [allowedOrigin, otherOrigin]) {
        const preflight = await fetch(`${closed.url}/v1/quotes`, {
          method: 'OPTIONS',
          headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,idempotency-key,service-version,content-type' },
        });
        const plain = await fetch(`${closed.url}/api/health`, { headers: { origin } });
        expect(plain.status).toBe(200);
        for (const res of [preflight, plain]) {
          const allows = [...res.headers.keys()].filter((name) => name.startsWith('access-control-'));
          expect({ origin, status: preflight.status, allows }).toEqual({ origin, status: preflight.status, allows: [] });
        }
      }
      // And the browser, on the origin the other API allows, is refused by this one.
      const page = await browser.newPage();
      try {
        await page.goto(allowedOrigin);
        const outcome = await page.evaluate(async (apiUrl) => {
          try {
            return String((await fetch(`${apiUrl}/v1/fsm/jobs`, { headers: { authorization: 'Bearer x' } })).status);
          } catch (error) {
            return String(error);
          }
        }, closed.url);
        expect(outcome).toMatch(/Failed to fetch/);
      } finally {
        await page.close();
      }
    } finally {
      await closed.close();
    }
  });

  it('takes exact origins only: a path, a wildcard or a trailing slash is refused at start-up', () => {
    for (const value of ['*', 'https://office.example.com/app', 'https://office.example.com/', 'office.example.com', 'ftp://office.example.com']) {
      expect(() => loadSettings({ ...process.env, CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS/);
    }
    expect(loadSettings({ ...process.env, CORS_ORIGINS: 'https://office.example.com, http://localhost:5173' }).CORS_ORIGINS).toEqual(['https://office.example.com', 'http://localhost:5173']);
  });
});
