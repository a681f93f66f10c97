// The QuickBooks fake driven by the real intuit-oauth client: consent redirect, code exchange,
// rotating refresh tokens, revocation, expiry, realm isolation, and Customer/Invoice creation
// through the v3 REST API with `requestid` idempotency and QBO fault bodies.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import OAuthClient from 'intuit-oauth';
import { QuickBooksFake, DEFAULT_QBO_CLIENT } from '../../scripts/sandboxes/quickbooks-fake';
import { faults } from '../../scripts/sandboxes/faults';

const REALM_A = '9341452000000001';
const REALM_B = '9341452000000002';
const REDIRECT = DEFAULT_QBO_CLIENT.redirectUris[0] as string;

let fake: QuickBooksFake;
// The fake's clock; tests move it forward instead of sleeping.
let clockOffsetMs = 0;
let close: () => Promise<void>;
const saved = {
  authorize: OAuthClient.authorizeEndpoint,
  token: OAuthClient.tokenEndpoint,
  revoke: OAuthClient.revokeEndpoint,
  userinfo: OAuthClient.userinfo_endpoint_sandbox,
  sandbox: OAuthClient.environment.sandbox,
  retryDelay: OAuthClient.retryConfig.retryDelay,
};

function newClient(): OAuthClient {
  const client = new OAuthClient({
    environment: 'sandbox',
    clientId: DEFAULT_QBO_CLIENT.clientId,
    clientSecret: DEFAULT_QBO_CLIENT.clientSecret,
    redirectUri: REDIRECT,
  });
  // intuit-oauth's own hook for custom endpoints; it writes the class-level statics.
  client.setAuthorizeURLs(fake.intuitUrls());
  return client;
}

async function connect(client: OAuthClient, realmId = REALM_A): Promise<string> {
  fake.queueConsent({ realmId });
  const authUri = client.authorizeUri({ scope: [OAuthClient.scopes.Accounting], state: 'csrf-123' });
  const consent = await fetch(authUri, { redirect: 'manual' });
  expect(consent.status).toBe(302);
  const callback = consent.headers.get('location') as string;
  await client.createToken(callback);
  return callback;
}

function api(realmId: string, resource: string, params: Record<string, string> = {}) {
  const qs = new URLSearchParams({ minorversion: '75', ...params });
  return `${fake.apiBaseUrl()}v3/company/${realmId}/${resource}?${qs}`;
}

beforeAll(async () => {
  fake = new QuickBooksFake({ accessTokenTtlSeconds: 120, now: () => Date.now() + clockOffsetMs, realms: [{ realmId: REALM_A }, { realmId: REALM_B, companyName: 'Other Shades Inc' }] });
  ({ close } = await fake.start());
  OAuthClient.environment.sandbox = fake.apiBaseUrl();
  // The library waits 1 s before retrying a 5xx token response; keep the retry, shorten the wait.
  OAuthClient.retryConfig.retryDelay = 20;
});

afterAll(async () => {
  OAuthClient.authorizeEndpoint = saved.authorize;
  OAuthClient.tokenEndpoint = saved.token;
  OAuthClient.revokeEndpoint = saved.revoke;
  OAuthClient.userinfo_endpoint_sandbox = saved.userinfo;
  OAuthClient.environment.sandbox = saved.sandbox;
  OAuthClient.retryConfig.retryDelay = saved.retryDelay;
  await close();
});

describe('quickbooks fake: OAuth 2.0 with intuit-oauth', () => {
  it('redirects with code, state and realmId, then exchanges the code for tokens', async () => {
    const client = newClient();
    const authUri = client.authorizeUri({ scope: [OAuthClient.scopes.Accounting, OAuthClient.scopes.OpenId], state: 'st-1' });
    expect(authUri.startsWith(`${fake.url}/connect/oauth2?`)).toBe(true);
    const consent = await fetch(authUri, { redirect: 'manual' });
    const location = new URL(consent.headers.get('location') as string);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.get('realmId')).toBe(REALM_A);
    const code = location.searchParams.get('code') as string;
    expect(code).toMatch(/^AB11/);

    const res = await client.createToken(location.toString());
    const token = res.getToken();
    expect(token.realmId).toBe(REALM_A);
    expect(token.token_type).toBe('bearer');
    expect(token.expires_in).toBe(120);
    expect(token.x_refresh_token_expires_in).toBe(8_726_400);
    expect(token.access_token).toBeTruthy();

    const again = await client.createToken(location.toString()).catch((e: unknown) => e);
    expect(again).toMatchObject({ error: 'invalid_grant' });

    const info = await client.getUserInfo();
    expect(info.json).toMatchObject({ sub: `fake-user-${REALM_A}`, emailVerified: true });
  });

  it('rotates refresh tokens and rejects a used one with invalid_grant', async () => {
    const client = newClient();
    await connect(client);
    const first = client.getToken().refresh_token;
    await client.refresh();
    const second = client.getToken().refresh_token;
    expect(second).not.toBe(first);
    const err = await newClient().refreshUsingToken(first).catch((e: unknown) => e);
    expect(err).toMatchObject({ error: 'invalid_grant' });
    await client.refresh();
    expect(client.getToken().refresh_token).not.toBe(second);
    expect(fake.inspect.liveRefreshTokens()).toContain(client.getToken().refresh_token);
    expect(fake.inspect.liveRefreshTokens()).not.toContain(second);
  });

  it('denies consent with access_denied and rejects bad client credentials', async () => {
    const client = newClient();
    fake.queueConsent({ deny: true });
    const consent = await fetch(client.authorizeUri({ scope: OAuthClient.scopes.Accounting, state: 's' }), { redirect: 'manual' });
    expect(new URL(consent.headers.get('location') as string).searchParams.get('error')).toBe('access_denied');
    const wrong = new OAuthClient({ environment: 'sandbox', clientId: DEFAULT_QBO_CLIENT.clientId, clientSecret: 'nope', redirectUri: REDIRECT });
    const err = await wrong.refreshUsingToken('RT1-whatever').catch((e: unknown) => e);
    expect(err).toMatchObject({ error: 'invalid_client' });
  });

  it('retries a 503 from the token endpoint, as intuit-oauth does', async () => {
    const client = newClient();
    await connect(client);
    fake.faults.inject({ method: 'POST', path: '/oauth2/v1/tokens/bearer', action: faults.unavailable() });
    fake.requests.clear();
    await client.refresh();
    expect(fake.requests.find('POST', '/oauth2/v1/tokens/bearer').map((r) => r.status)).toEqual([503, 200]);
  });

  it('revocation ends the connection: refresh gets invalid_grant and the access token 401', async () => {
    const client = newClient();
    await connect(client);
    const { access_token: access, refresh_token: refresh } = client.getToken();
    await client.revoke({ refresh_token: refresh });
    const err = await newClient().refreshUsingToken(refresh as string).catch((e: unknown) => e);
    expect(err).toMatchObject({ error: 'invalid_grant' });
    const probe = newClient();
    probe.setToken({ access_token: access as string, realmId: REALM_A });
    await expect(probe.makeApiCall({ url: api(REALM_A, `companyinfo/${REALM_A}`) })).rejects.toMatchObject({ code: '401' });
  });
});

describe('quickbooks fake: accounting API', () => {
  let client: OAuthClient;

  beforeAll(async () => {
    client = newClient();
    await connect(client);
  });

  it('creates one Customer for a repeated requestid and faults on a duplicate name', async () => {
    const body = { DisplayName: 'Jane Doe (Q-42)', PrimaryEmailAddr: { Address: 'jane@example.com' }, BillAddr: { Line1: '1 King St', City: 'Toronto' } };
    const url = api(REALM_A, 'customer', { requestid: 'approve-q42-customer' });
    const a = await client.makeApiCall({ url, method: 'POST', body });
    const b = await client.makeApiCall({ url, method: 'POST', body });
    expect(a.json.Customer.Id).toBe(b.json.Customer.Id);
    expect(a.json).toEqual(b.json);
    expect(a.json.Customer).toMatchObject({ DisplayName: 'Jane Doe (Q-42)', SyncToken: '0', Active: true, domain: 'QBO' });
    expect(fake.inspect.customers(REALM_A).filter((c) => c['DisplayName'] === 'Jane Doe (Q-42)')).toHaveLength(1);
    expect(fake.requests.find('POST', `/v3/company/${REALM_A}/customer`).map((r) => [r.idempotencyKey, r.replayed])).toEqual([
      ['approve-q42-customer', false],
      ['approve-q42-customer', true],
    ]);

    const dup = await client.makeApiCall({ url: api(REALM_A, 'customer', { requestid: 'other' }), method: 'POST', body }).catch((e: unknown) => e);
    expect(dup).toMatchObject({ code: '6240', faultType: 'ValidationFault' });
  });

  it('creates one Invoice with 13% HST for a repeated requestid, then queries it', async () => {
    const customer = fake.inspect.customers(REALM_A).find((c) => c['DisplayName'] === 'Jane Doe (Q-42)') as { Id: string };
    const body = {
      CustomerRef: { value: customer.Id },
      SalesTermRef: { value: '2' },
      Line: [
        { DetailType: 'SalesItemLineDetail', Amount: 250, Description: 'Roller shade 48x60', SalesItemLineDetail: { ItemRef: { value: '2' }, Qty: 2, UnitPrice: 125, TaxCodeRef: { value: '2' } } },
        { DetailType: 'SalesItemLineDetail', Amount: 75.5, Description: 'Install', SalesItemLineDetail: { ItemRef: { value: '1' }, TaxCodeRef: { value: '2' } } },
      ],
    };
    const url = api(REALM_A, 'invoice', { requestid: 'approve-q42-invoice' });
    const first = await client.makeApiCall({ url, method: 'POST', body });
    const second = await client.makeApiCall({ url, method: 'POST', body });
    expect(second.json).toEqual(first.json);
    const inv = first.json.Invoice;
    expect(inv).toMatchObject({ DocNumber: '1001', TotalAmt: 367.82, Balance: 367.82, TxnTaxDetail: { TotalTax: 42.32 } });
    expect(inv.Line.at(-1)).toEqual({ Amount: 325.5, DetailType: 'SubTotalLineDetail', SubTotalLineDetail: {} });
    expect(Date.parse(inv.DueDate) - Date.parse(inv.TxnDate)).toBe(15 * 86_400_000);
    expect(fake.inspect.invoices(REALM_A)).toHaveLength(1);

    const q = await client.makeApiCall({ url: api(REALM_A, 'query', { query: `select * from Invoice where CustomerRef = '${customer.Id}'` }) });
    expect(q.json.QueryResponse.Invoice.map((i: { Id: string }) => i.Id)).toEqual([inv.Id]);
    const count = await client.makeApiCall({ url: api(REALM_A, 'query', { query: 'select count(*) from Invoice' }) });
    expect(count.json.QueryResponse).toEqual({ totalCount: 1 });
    const byName = await client.makeApiCall({ url: api(REALM_A, 'query', { query: "select Id, DisplayName from Customer where DisplayName = 'jane doe (q-42)'" }) });
    expect(byName.json.QueryResponse.Customer).toEqual([{ domain: 'QBO', sparse: true, Id: customer.Id, DisplayName: 'Jane Doe (Q-42)' }]);
    const customerAfter = await client.makeApiCall({ url: api(REALM_A, `customer/${customer.Id}`) });
    expect(customerAfter.json.Customer.Balance).toBe(367.82);
  });

  it('charges each rate of a tax group on the same base, one TaxLine per rate (Quebec: GST 5 % and QST 9.975 %)', async () => {
    const made = await client.makeApiCall({ url: api(REALM_A, 'customer', { requestid: 'quebec-group-customer' }), method: 'POST', body: { DisplayName: 'Camille Roy (Q-43)' } });
    const customer = made.json.Customer as { Id: string };
    const codes = await client.makeApiCall({ url: api(REALM_A, 'query', { query: "select * from TaxCode where Name = 'GST/QST QC'" }) });
    const [code] = codes.json.QueryResponse.TaxCode as { Id: string; TaxGroup: boolean }[];
    expect(code).toMatchObject({ TaxGroup: true });
    const created = await client.makeApiCall({
      url: api(REALM_A, 'invoice', { requestid: 'quebec-group-invoice' }),
      method: 'POST',
      body: { CustomerRef: { value: customer.Id }, Line: [{ DetailType: 'SalesItemLineDetail', Amount: 100.1, SalesItemLineDetail: { ItemRef: { value: '1' }, TaxCodeRef: { value: code!.Id } } }] },
    });
    const invoice = created.json.Invoice;
    // 100.10 × 5 % = 5.005 → 5.01; 100.10 × 9.975 % = 9.984975 → 9.98: each rounded on its own.
    expect(invoice.TxnTaxDetail.TaxLine.map((l: { Amount: number; TaxLineDetail: { TaxPercent: number } }) => [l.TaxLineDetail.TaxPercent, l.Amount])).toEqual([[5, 5.01], [9.975, 9.98]]);
    expect(invoice).toMatchObject({ TxnTaxDetail: { TotalTax: 14.99 }, TotalAmt: 115.09 });
  });

  it('updates with SyncToken concurrency (full read-modify-write and sparse) and voids', async () => {
    const inv = fake.inspect.invoices(REALM_A)[0] as { Id: string; SyncToken: string };
    const read = await client.makeApiCall({ url: api(REALM_A, `invoice/${inv.Id}`) });
    const full = { ...read.json.Invoice, PrivateNote: 'deposit requested' };
    const updated = await client.makeApiCall({ url: api(REALM_A, 'invoice'), method: 'POST', body: full });
    expect(updated.json.Invoice).toMatchObject({ SyncToken: '1', PrivateNote: 'deposit requested', TotalAmt: 367.82 });
    const stale = await client.makeApiCall({ url: api(REALM_A, 'invoice'), method: 'POST', body: { Id: inv.Id, SyncToken: '0', sparse: true, PrivateNote: 'x' } }).catch((e: unknown) => e);
    expect(stale).toMatchObject({ code: '5010' });
    const voided = await client.makeApiCall({ url: api(REALM_A, 'invoice', { operation: 'void' }), method: 'POST', body: { Id: inv.Id, SyncToken: '1' } });
    expect(voided.json.Invoice).toMatchObject({ TotalAmt: 0, Balance: 0, SyncToken: '2' });
    const customer = await client.makeApiCall({ url: api(REALM_A, `customer/${voided.json.Invoice.CustomerRef.value}`) });
    expect(customer.json.Customer.Balance).toBe(0);
  });

  it('replays the invoice whose response was lost when retried with the same requestid', async () => {
    const customer = fake.inspect.customers(REALM_A)[0] as { Id: string };
    const body = { CustomerRef: { value: customer.Id }, Line: [{ DetailType: 'SalesItemLineDetail', Amount: 10, SalesItemLineDetail: { ItemRef: { value: '1' } } }] };
    const url = api(REALM_A, 'invoice', { requestid: 'lost-response-invoice' });
    fake.faults.inject({ method: 'POST', path: `/v3/company/${REALM_A}/invoice`, action: faults.loseResponse() });
    const before = fake.inspect.invoices(REALM_A).length;
    await expect(client.makeApiCall({ url, method: 'POST', body })).rejects.toMatchObject({ code: 'NETWORK_ERROR' });
    expect(fake.inspect.invoices(REALM_A)).toHaveLength(before + 1);
    const retry = await client.makeApiCall({ url, method: 'POST', body });
    expect(fake.inspect.invoices(REALM_A)).toHaveLength(before + 1);
    expect(retry.json.Invoice.Id).toBe(fake.inspect.invoices(REALM_A).at(-1)?.['Id']);
  });

  it('keeps realms isolated and rejects bad references and queries with QBO faults', async () => {
    await expect(client.makeApiCall({ url: api(REALM_B, 'query', { query: 'select * from Customer' }) })).rejects.toMatchObject({ code: '403' });
    const badRef = await client
      .makeApiCall({ url: api(REALM_A, 'invoice'), method: 'POST', body: { CustomerRef: { value: '999' }, Line: [{ DetailType: 'SalesItemLineDetail', Amount: 1, SalesItemLineDetail: {} }] } })
      .catch((e: unknown) => e);
    expect(badRef).toMatchObject({ code: '2500', message: 'Invalid Reference Id' });
    const mismatch = await client
      .makeApiCall({ url: api(REALM_A, 'invoice'), method: 'POST', body: { CustomerRef: { value: '1' }, Line: [{ DetailType: 'SalesItemLineDetail', Amount: 5, SalesItemLineDetail: { Qty: 2, UnitPrice: 3 } }] } })
      .catch((e: unknown) => e);
    expect(mismatch).toMatchObject({ code: '6070' });
    const unknownProp = await client.makeApiCall({ url: api(REALM_A, 'customer'), method: 'POST', body: { DisplayName: 'X', Nickname: 'y' } }).catch((e: unknown) => e);
    expect(unknownProp).toMatchObject({ code: '2010' });
    const badQuery = await client.makeApiCall({ url: api(REALM_A, 'query', { query: "select * from Customer where Notes = 'x'" }) }).catch((e: unknown) => e);
    expect(badQuery).toMatchObject({ code: '4001' });
  });

  it('answers 401 once the access token expires, and works again after a refresh', async () => {
    clockOffsetMs += 121_000;
    await expect(client.makeApiCall({ url: api(REALM_A, `companyinfo/${REALM_A}`) })).rejects.toMatchObject({ code: '401' });
    await client.refresh();
    const info = await client.makeApiCall({ url: api(REALM_A, `companyinfo/${REALM_A}`) });
    expect(info.json.CompanyInfo.Id).toBe('1');
  });

  it('D18: records a Payment that pays an invoice off, and /cdc answers what changed since a time (at most 30 days back)', async () => {
    const customer = fake.inspect.customers(REALM_A).find((c) => c['DisplayName'] === 'Jane Doe (Q-42)') as { Id: string };
    const created = await client.makeApiCall({
      url: api(REALM_A, 'invoice', { requestid: 'd18-cdc-invoice' }),
      method: 'POST',
      body: { CustomerRef: { value: customer.Id }, Line: [{ DetailType: 'SalesItemLineDetail', Amount: 100, SalesItemLineDetail: { ItemRef: { value: '1' }, TaxCodeRef: { value: '2' } } }] },
    });
    const invoice = created.json.Invoice as { Id: string; Balance: number; CustomerRef: { value: string } };
    expect(invoice.Balance).toBe(113);
    const since = new Date(Date.now() + clockOffsetMs - 1000).toISOString();
    const before = await client.makeApiCall({ url: api(REALM_A, 'cdc', { entities: 'Invoice,Payment', changedSince: since }) });
    const listed = (answer: { json: { CDCResponse: Array<{ QueryResponse: Array<Record<string, Array<{ Id: string }>>> }> } }, entity: string) =>
      answer.json.CDCResponse[0]!.QueryResponse.flatMap((q) => q[entity] ?? []).map((e) => e.Id);
    expect(listed(before, 'Payment')).toEqual([]);

    const overpaid = await client.makeApiCall({ url: api(REALM_A, 'payment'), method: 'POST', body: { CustomerRef: invoice.CustomerRef, TotalAmt: invoice.Balance + 1, Line: [{ Amount: invoice.Balance + 1, LinkedTxn: [{ TxnId: invoice.Id, TxnType: 'Invoice' }] }] } }).catch((e: unknown) => e);
    expect(overpaid).toMatchObject({ code: '6000' });
    const paid = await client.makeApiCall({ url: api(REALM_A, 'payment'), method: 'POST', body: { CustomerRef: invoice.CustomerRef, TotalAmt: invoice.Balance, Line: [{ Amount: invoice.Balance, LinkedTxn: [{ TxnId: invoice.Id, TxnType: 'Invoice' }] }] } });
    expect(paid.json.Payment).toMatchObject({ TotalAmt: invoice.Balance, UnappliedAmt: 0 });
    expect(fake.inspect.invoices(REALM_A).find((i) => i['Id'] === invoice.Id)).toMatchObject({ Balance: 0 });
    expect(fake.inspect.payments(REALM_A).map((p) => p['Id'])).toEqual([paid.json.Payment.Id]);

    const after = await client.makeApiCall({ url: api(REALM_A, 'cdc', { entities: 'Invoice,Payment', changedSince: since }) });
    expect(listed(after, 'Payment')).toEqual([paid.json.Payment.Id]);
    expect(listed(after, 'Invoice')).toContain(invoice.Id);
    const later = await client.makeApiCall({ url: api(REALM_A, 'cdc', { entities: 'Payment', changedSince: new Date(Date.now() + clockOffsetMs + 60_000).toISOString() }) });
    expect(listed(later, 'Payment')).toEqual([]);
    for (const params of [{ entities: 'Invoice', changedSince: new Date(Date.now() + clockOffsetMs - 31 * 86_400_000).toISOString() }, { entities: 'Invoice' }, { entities: 'Bill', changedSince: since }] as Record<string, string>[]) {
      const refused = await client.makeApiCall({ url: api(REALM_A, 'cdc', params) }).catch((e: unknown) => e);
      expect([params, (refused as { faultType?: string }).faultType]).toEqual([params, 'ValidationFault']);
    }
  });

  it('answers injected throttling with the QBO 429 fault', async () => {
    fake.faults.inject({ path: `/v3/company/${REALM_A}/query`, action: faults.rateLimited(3) });
    const err = await client.makeApiCall({ url: api(REALM_A, 'query', { query: 'select * from Item' }) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    const raw = await fetch(api(REALM_A, 'query', { query: 'select * from Item' }), { headers: { authorization: `Bearer ${client.getToken().access_token}`, accept: 'application/json' } });
    const items = (await raw.json()) as { QueryResponse: { Item: Array<{ Name: string }> } };
    expect(items.QueryResponse.Item.map((i) => i.Name)).toEqual(['Services', 'Window Shades']);
  });
});
