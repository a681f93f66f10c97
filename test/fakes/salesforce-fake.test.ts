// The Salesforce fake driven by the real jsforce client: web-server OAuth flow (with and without
// PKCE), Opportunity upsert by external id, SOQL, refresh (explicit and automatic on
// INVALID_SESSION_ID), revocation, multiple orgs, error bodies and injected faults.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import jsforce from 'jsforce';
import { SalesforceFake, DEFAULT_SF_APP } from '../../scripts/sandboxes/salesforce-fake';
import { faults } from '../../scripts/sandboxes/faults';

const REDIRECT = DEFAULT_SF_APP.redirectUris[0] as string;
const VERSION = '62.0';

let fake: SalesforceFake;
let close: () => Promise<void>;
let orgA: string;
let orgB: string;

function oauth2(opts: { useVerifier?: boolean } = {}) {
  return new jsforce.OAuth2({
    loginUrl: fake.url,
    clientId: DEFAULT_SF_APP.clientId,
    clientSecret: DEFAULT_SF_APP.clientSecret,
    redirectUri: REDIRECT,
    ...opts,
  });
}

async function consentCode(o: InstanceType<typeof jsforce.OAuth2>, orgId?: string): Promise<string> {
  if (orgId) fake.queueConsent({ orgId });
  const res = await fetch(o.getAuthorizationUrl({ scope: 'api refresh_token', state: 'csrf-9' }), { redirect: 'manual' });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get('location') as string);
  expect(location.searchParams.get('state')).toBe('csrf-9');
  return location.searchParams.get('code') as string;
}

async function connect(orgId?: string, version = VERSION) {
  const o = oauth2();
  const conn = new jsforce.Connection({ oauth2: o, version });
  const userInfo = await conn.authorize(await consentCode(o, orgId));
  return { conn, userInfo };
}

const opportunity = (quoteId: string, extra: Record<string, unknown> = {}) => ({
  Quote_Id__c: quoteId,
  Name: `Quote ${quoteId} - window shades`,
  StageName: 'Proposal/Price Quote',
  CloseDate: '2026-03-31',
  Amount: 367.82,
  ...extra,
});

beforeAll(async () => {
  fake = new SalesforceFake({
    orgs: [{ users: [{ username: 'owner@contractor-a.example' }] }, { users: [{ username: 'owner@contractor-b.example' }] }],
    customFields: {
      Opportunity: [
        { name: 'Quote_Id__c', type: 'string', length: 64, externalId: true, unique: true },
        { name: 'Legacy_Ref__c', type: 'string', length: 32, externalId: true },
      ],
    },
    queryBatchSize: 2,
  });
  ({ close } = await fake.start());
  [orgA = '', orgB = ''] = fake.orgIds();
});

afterAll(async () => {
  await close();
});

describe('salesforce fake: OAuth 2.0 with jsforce', () => {
  it('authorizes with a code and establishes instance_url and identity', async () => {
    const { conn, userInfo } = await connect(orgA);
    expect(userInfo.organizationId).toBe(orgA);
    expect(userInfo.id).toMatch(/^005[A-Za-z0-9]{15}$/);
    expect(conn.instanceUrl).toBe(fake.url);
    expect(conn.refreshToken).toBeTruthy();
    const identity = await conn.identity();
    expect(identity).toMatchObject({ organization_id: orgA, username: 'owner@contractor-a.example' });
  });

  it('supports PKCE and rejects a reused code with invalid_grant', async () => {
    const o = oauth2({ useVerifier: true });
    expect(o.getAuthorizationUrl()).toContain('code_challenge=');
    const code = await consentCode(o);
    const conn = new jsforce.Connection({ oauth2: o, version: VERSION });
    await conn.authorize(code);
    await expect(new jsforce.Connection({ oauth2: o, version: VERSION }).authorize(code)).rejects.toMatchObject({ name: 'invalid_grant' });
  });

  it('refreshes explicitly, refreshes automatically on INVALID_SESSION_ID, and fails after revocation', async () => {
    const { conn } = await connect(orgA);
    const refreshToken = conn.refreshToken as string;
    const refreshed = await conn.oauth2.refreshToken(refreshToken);
    expect(refreshed.access_token).not.toBe(conn.accessToken);
    expect(refreshed.instance_url).toBe(fake.url);
    expect(refreshed.refresh_token).toBeUndefined();

    fake.expireSessions();
    fake.requests.clear();
    const count = await conn.query('SELECT COUNT() FROM Opportunity');
    expect(count.done).toBe(true);
    expect(fake.requests.all().map((r) => `${r.method} ${r.path.replace(/\/v\d+\.0\//, '/vX/')} ${r.status}`)).toEqual([
      'GET /services/data/vX/query 401',
      'POST /services/oauth2/token 200',
      'GET /services/data/vX/query 200',
    ]);

    await conn.oauth2.revokeToken(refreshToken);
    await expect(conn.oauth2.refreshToken(refreshToken)).rejects.toMatchObject({ name: 'invalid_grant', message: 'expired access/refresh token' });
    await expect(conn.query('SELECT Id FROM Opportunity')).rejects.toThrow(/Unable to refresh session due to: expired access\/refresh token/);
  });

  it('sends denied consent back as access_denied', async () => {
    fake.queueConsent({ deny: true });
    const res = await fetch(oauth2().getAuthorizationUrl({ state: 's' }), { redirect: 'manual' });
    expect(new URL(res.headers.get('location') as string).searchParams.get('error')).toBe('access_denied');
  });
});

describe('salesforce fake: Opportunity upsert and SOQL', () => {
  it('upserting twice by Quote_Id__c yields one record (201 created, then 200 updated)', async () => {
    const { conn } = await connect(orgA);
    const first = await conn.sobject('Opportunity').upsert(opportunity('Q-42'), 'Quote_Id__c');
    expect(first).toEqual({ id: expect.stringMatching(/^006[A-Za-z0-9]{15}$/), success: true, errors: [], created: true });
    const second = await conn.sobject('Opportunity').upsert(opportunity('Q-42', { Amount: 400, StageName: 'Closed Won' }), 'Quote_Id__c');
    expect(second).toEqual({ id: (first as { id: string }).id, success: true, errors: [], created: false });

    const rows = fake.inspect.records('Opportunity', orgA).filter((r) => r['Quote_Id__c'] === 'Q-42');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ Amount: 400, StageName: 'Closed Won', IsWon: true, IsClosed: true, Probability: 100 });

    const result = await conn.query<{ Id: string; Name: string; Amount: number }>("SELECT Id, Name, Amount FROM Opportunity WHERE Quote_Id__c = 'q-42'");
    expect(result.totalSize).toBe(1);
    expect(result.records[0]).toEqual({
      attributes: { type: 'Opportunity', url: `/services/data/v${VERSION}/sobjects/Opportunity/${(first as { id: string }).id}` },
      Id: (first as { id: string }).id,
      Name: 'Quote Q-42 - window shades',
      Amount: 400,
    });
  });

  it('answers 204 for updates before API v46 (jsforce reports success without id)', async () => {
    const { conn } = await connect(orgA, '45.0');
    const created = await conn.sobject('Opportunity').upsert(opportunity('Q-OLD'), 'Quote_Id__c');
    expect(created).toEqual({ id: expect.any(String), success: true, errors: [] });
    const updated = await conn.sobject('Opportunity').upsert(opportunity('Q-OLD', { Amount: 1 }), 'Quote_Id__c');
    expect(updated).toEqual({ success: true, errors: [] });
  });

  it('keeps orgs isolated', async () => {
    const { conn, userInfo } = await connect(orgB);
    expect(userInfo.organizationId).toBe(orgB);
    const r = await conn.sobject('Opportunity').upsert(opportunity('Q-42'), 'Quote_Id__c');
    expect(r).toMatchObject({ created: true });
    expect(fake.inspect.records('Opportunity', orgB)).toHaveLength(1);
  });

  it('returns Salesforce error bodies for bad writes and queries', async () => {
    const { conn } = await connect(orgA);
    const opp = conn.sobject('Opportunity');
    await expect(opp.upsert({ Quote_Id__c: 'Q-NEW', Amount: 5 }, 'Quote_Id__c')).rejects.toMatchObject({
      errorCode: 'REQUIRED_FIELD_MISSING',
      message: 'Required fields are missing: [Name, StageName, CloseDate]',
      data: { fields: ['Name', 'StageName', 'CloseDate'] },
    });
    await expect(opp.upsert(opportunity('Q-X', { Foo__c: 1 }), 'Quote_Id__c')).rejects.toMatchObject({ errorCode: 'INVALID_FIELD' });
    await expect(opp.upsert(opportunity('Q-X', { StageName: 'Won-ish' }), 'Quote_Id__c')).rejects.toMatchObject({ errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST' });
    await expect(opp.upsert(opportunity('Q-X', { CloseDate: '2026-02-30' }), 'Quote_Id__c')).rejects.toMatchObject({ errorCode: 'JSON_PARSER_ERROR' });
    await expect(opp.upsert(opportunity('Q-X', { IsWon: true }), 'Quote_Id__c')).rejects.toMatchObject({ errorCode: 'INVALID_FIELD_FOR_INSERT_UPDATE' });
    await expect(opp.upsert({ Name: 'x', Description: 'y' }, 'Name')).rejects.toMatchObject({ errorCode: 'NOT_FOUND' });
    await expect(conn.query('SELECT Id, Foo FROM Opportunity')).rejects.toMatchObject({ errorCode: 'INVALID_FIELD', message: expect.stringContaining('ERROR at Row:1:Column:12') });
    await expect(conn.query("SELECT Id FROM Opportunity WHERE CloseDate = '2026-01-01'")).rejects.toMatchObject({ errorCode: 'INVALID_FIELD' });
    await expect(conn.query("SELECT Id FROM Opportunity WHERE Name = 'a' AND Amount > 1 OR Amount < 0")).rejects.toMatchObject({ errorCode: 'MALFORMED_QUERY' });
    expect(fake.inspect.records('Opportunity', orgA).some((r) => r['Quote_Id__c'] === 'Q-X' || r['Quote_Id__c'] === 'Q-NEW')).toBe(false);
  });

  it('answers 300 when a non-unique external id matches several records', async () => {
    const { conn } = await connect(orgA);
    for (const q of ['Q-L1', 'Q-L2']) await conn.sobject('Opportunity').create(opportunity(q, { Legacy_Ref__c: 'LEG-1' }));
    await expect(conn.sobject('Opportunity').upsert(opportunity('Q-L3', { Legacy_Ref__c: 'LEG-1' }), 'Legacy_Ref__c')).rejects.toMatchObject({ errorCode: 'MULTIPLE_CHOICES' });
  });

  it('pages query results through nextRecordsUrl', async () => {
    const { conn } = await connect(orgA);
    const all = await conn.query<{ Quote_Id__c: string }>('SELECT Quote_Id__c FROM Opportunity ORDER BY Quote_Id__c', { autoFetch: true });
    const ids = all.records.map((r) => r.Quote_Id__c);
    expect(ids.length).toBeGreaterThan(2);
    expect(ids).toEqual([...ids].sort());
    expect(fake.requests.find('GET', /\/query\/01g/).length).toBeGreaterThan(0);
  });
});

describe('salesforce fake: faults', () => {
  it('jsforce retries an injected 503 on a query (GET) but not on an upsert (PATCH)', async () => {
    const { conn } = await connect(orgA);
    fake.faults.inject({ method: 'GET', path: '/services/data/*/query', action: faults.unavailable() });
    const res = await conn.query("SELECT Id FROM Opportunity WHERE Quote_Id__c = 'Q-42'");
    expect(res.totalSize).toBe(1);
    fake.faults.inject({ method: 'PATCH', path: '/services/data/*/sobjects/Opportunity/Quote_Id__c/*', action: faults.unavailable() });
    await expect(conn.sobject('Opportunity').upsert(opportunity('Q-503'), 'Quote_Id__c')).rejects.toMatchObject({ errorCode: 'SERVER_UNAVAILABLE' });
    expect(fake.inspect.records('Opportunity', orgA).some((r) => r['Quote_Id__c'] === 'Q-503')).toBe(false);
  });

  it('a lost upsert response is safe to repeat: the retry updates the record it created', async () => {
    const { conn } = await connect(orgA);
    fake.faults.inject({ method: 'PATCH', path: '**/Quote_Id__c/Q-LOST', action: faults.loseResponse() });
    await expect(conn.sobject('Opportunity').upsert(opportunity('Q-LOST'), 'Quote_Id__c')).rejects.toThrow();
    const retry = await conn.sobject('Opportunity').upsert(opportunity('Q-LOST'), 'Quote_Id__c');
    expect(retry).toMatchObject({ created: false });
    expect(fake.inspect.records('Opportunity', orgA).filter((r) => r['Quote_Id__c'] === 'Q-LOST')).toHaveLength(1);
  });
});
