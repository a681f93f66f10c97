// The sandboxes' consent page (npm start's accounting and CRM sandboxes): without a queued
// decision the authorize endpoint answers an HTML page whose Approve and Deny buttons post the
// authorize parameters back; the provider's own checks then redirect as after a real consent,
// and the code that comes back is exchanged like any other.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { QuickBooksFake, DEFAULT_QBO_CLIENT, DEFAULT_REALM_ID } from '../../scripts/sandboxes/quickbooks-fake';
import { SalesforceFake, DEFAULT_SF_APP } from '../../scripts/sandboxes/salesforce-fake';

const QBO_REDIRECT = 'http://localhost:3000/api/v1/integrations/accounting/callback';
const SF_REDIRECT = 'http://localhost:3000/api/v1/integrations/crm/callback';
// A state with every character the page must escape.
const STATE = `st"<b>&'x`;

let qbo: QuickBooksFake;
let sf: SalesforceFake;

beforeAll(async () => {
  qbo = new QuickBooksFake({ clients: [{ ...DEFAULT_QBO_CLIENT, redirectUris: [QBO_REDIRECT] }], consentPage: true });
  sf = new SalesforceFake({ apps: [{ ...DEFAULT_SF_APP, redirectUris: [SF_REDIRECT] }], consentPage: true });
  await Promise.all([qbo.start(), sf.start()]);
});

afterAll(async () => {
  await Promise.all([qbo.close(), sf.close()]);
});

interface Page {
  action: string;
  fields: URLSearchParams;
  html: string;
}

async function consentPage(url: string): Promise<Page> {
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
  const html = await res.text();
  const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no form:\n${html}`);
  const unescape = (t: string) => t.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const fields = new URLSearchParams();
  for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields.append(unescape(input[1]!), unescape(input[2]!));
  return { action: new URL(unescape(form[1]!), url).toString(), fields, html };
}

async function press(page: Page, decision: 'approve' | 'deny', change: (fields: URLSearchParams) => void = () => {}): Promise<Response> {
  const fields = new URLSearchParams(page.fields);
  change(fields);
  fields.set('decision', decision);
  return fetch(page.action, { method: 'POST', body: fields, redirect: 'manual' });
}

function qboAuthorizeUrl(): string {
  const u = new URL(`${qbo.url}/connect/oauth2`);
  u.search = new URLSearchParams({ client_id: DEFAULT_QBO_CLIENT.clientId, redirect_uri: QBO_REDIRECT, response_type: 'code', scope: 'com.intuit.quickbooks.accounting', state: STATE }).toString();
  return u.toString();
}

function sfAuthorizeUrl(): string {
  const u = new URL(`${sf.url}/services/oauth2/authorize`);
  u.search = new URLSearchParams({ client_id: DEFAULT_SF_APP.clientId, redirect_uri: SF_REDIRECT, response_type: 'code', scope: 'api refresh_token', state: STATE }).toString();
  return u.toString();
}

describe('QuickBooks sandbox consent page', () => {
  it('shows the company, the scope and where the browser goes, with every value escaped', async () => {
    const page = await consentPage(qboAuthorizeUrl());
    expect(page.html).toContain(`company ${DEFAULT_REALM_ID}`);
    expect(page.html).toContain('com.intuit.quickbooks.accounting');
    expect(page.html).toContain(QBO_REDIRECT);
    expect(page.html).toContain('Local sandbox');
    expect(page.html).not.toContain('<b>');
    expect(page.fields.get('state')).toBe(STATE);
    expect(page.html).toContain('<button type="submit" name="decision" value="approve">Approve</button>');
  });

  it('Approve redirects to the redirect URI with a code that the token endpoint exchanges', async () => {
    const page = await consentPage(qboAuthorizeUrl());
    const approved = await press(page, 'approve');
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(QBO_REDIRECT);
    expect(back.searchParams.get('state')).toBe(STATE);
    expect(back.searchParams.get('realmId')).toBe(DEFAULT_REALM_ID);
    const token = await fetch(`${qbo.url}/oauth2/v1/tokens/bearer`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${DEFAULT_QBO_CLIENT.clientId}:${DEFAULT_QBO_CLIENT.clientSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: QBO_REDIRECT }),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ token_type: 'bearer', access_token: expect.any(String), refresh_token: expect.any(String) });
  });

  it('Deny redirects with access_denied; a tampered form is refused without redirecting', async () => {
    const page = await consentPage(qboAuthorizeUrl());
    const denied = await press(page, 'deny');
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    const elsewhere = await press(page, 'approve', (f) => f.set('redirect_uri', 'http://127.0.0.1:9/steal'));
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.headers.get('location')).toBeNull();
    const otherRealm = await press(page, 'approve', (f) => f.set('realm_id', '123'));
    expect(otherRealm.status).toBe(400);
  });

  it('a queued decision still answers at once (the tests’ way)', async () => {
    qbo.queueConsent({ deny: true });
    const res = await fetch(qboAuthorizeUrl(), { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
  });
});

describe('Salesforce sandbox consent page', () => {
  it('Approve redirects with a code that the token endpoint exchanges; Deny with access_denied', async () => {
    const page = await consentPage(sfAuthorizeUrl());
    expect(page.html).toContain('Salesforce sandbox');
    expect(page.html).toContain('api refresh_token');
    const approved = await press(page, 'approve');
    expect(approved.status).toBe(302);
    const back = new URL(approved.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(SF_REDIRECT);
    expect(back.searchParams.get('state')).toBe(STATE);
    const token = await fetch(`${sf.url}/services/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, redirect_uri: SF_REDIRECT, client_id: DEFAULT_SF_APP.clientId, client_secret: DEFAULT_SF_APP.clientSecret }),
    });
    expect(token.status).toBe(200);
    expect(await token.json()).toMatchObject({ access_token: expect.any(String), refresh_token: expect.any(String), instance_url: sf.url });

    const denied = await press(page, 'deny');
    expect(new URL(denied.headers.get('location')!).searchParams.get('error')).toBe('access_denied');
    const elsewhere = await press(page, 'approve', (f) => f.set('redirect_uri', 'http://127.0.0.1:9/steal'));
    expect(elsewhere.status).toBe(400);
  });
});
