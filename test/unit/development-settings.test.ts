// The settings: what development gets by default, and what production refuses (D6, D8).
import { describe, expect, it } from '@jest/globals';
import { loadSettings } from '../../infra/runtime/settings';
import { CONNECTORS, readinessOf } from '../../infra/integrations/connectors';

const base = { DATABASE_URL: 'postgres://x@127.0.0.1/x', AUTH_TOKEN_SECRET: 'a'.repeat(32) };
const production = { ...base, NODE_ENV: 'production', DATABASE_APP_PASSWORD: 'b'.repeat(20) };

describe('development defaults', () => {
  it('a checkout without return_url returns to the API’s own origin in development (PUBLIC_BASE_URL, else localhost:PORT)', () => {
    expect(loadSettings({ ...base, PORT: '3100' }).CHECKOUT_RETURN_ORIGINS).toEqual(['http://localhost:3100']);
    expect(loadSettings({ ...base, PUBLIC_BASE_URL: 'https://shades.test/app/' }).CHECKOUT_RETURN_ORIGINS).toEqual(['https://shades.test']);
    expect(loadSettings({ ...base, CHECKOUT_RETURN_ORIGINS: 'https://shop.test' }).CHECKOUT_RETURN_ORIGINS).toEqual(['https://shop.test']);
  });

  it('elsewhere the allowlist is only what is configured', () => {
    expect(loadSettings({ ...base, NODE_ENV: 'test' }).CHECKOUT_RETURN_ORIGINS).toEqual([]);
    expect(loadSettings(production).CHECKOUT_RETURN_ORIGINS).toEqual([]);
  });

  it('the loopback allowance and the sandbox labels are off unless set', () => {
    const settings = loadSettings(base);
    expect(settings.OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK).toBe(false);
    expect(settings.PROVIDER_SANDBOXES).toEqual([]);
    expect(loadSettings({ ...base, PROVIDER_SANDBOXES: 'payments, crm' }).PROVIDER_SANDBOXES).toEqual(['payments', 'crm']);
    expect(() => loadSettings({ ...base, PROVIDER_SANDBOXES: 'payments,bank' })).toThrow(/PROVIDER_SANDBOXES/);
  });
});

describe('where the API listens (API_HOST)', () => {
  it('loopback by default in development and tests: a development stack answers this machine only', () => {
    expect(loadSettings(base).API_HOST).toBe('127.0.0.1');
    expect(loadSettings({ ...base, NODE_ENV: 'test' }).API_HOST).toBe('127.0.0.1');
  });

  it('the setting opens it; in production, unset, every interface (the image and compose set 0.0.0.0)', () => {
    expect(loadSettings({ ...base, API_HOST: '0.0.0.0' }).API_HOST).toBe('0.0.0.0');
    expect(loadSettings({ ...base, API_HOST: '::' }).API_HOST).toBe('::');
    expect(loadSettings({ ...base, API_HOST: 'localhost' }).API_HOST).toBe('localhost');
    expect(loadSettings(production).API_HOST).toBeUndefined();
    expect(loadSettings({ ...production, API_HOST: '0.0.0.0' }).API_HOST).toBe('0.0.0.0');
  });

  it('refuses what is not an address or a host name, naming the setting', () => {
    expect(() => loadSettings({ ...base, API_HOST: 'http://0.0.0.0:3000' })).toThrow(/invalid settings: API_HOST: an IP address/);
  });
});

describe('production never weakens the webhook guard nor runs sandboxes', () => {
  it.each([
    ['OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK', 'true'],
    ['OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS', 'true'],
    ['PROVIDER_SANDBOXES', 'payments'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadSettings({ ...production, [name]: value })).toThrow(new RegExp(`invalid settings: ${name}`));
  });

  it('accepts them off', () => {
    expect(() => loadSettings({ ...production, OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK: 'false', OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'false', PROVIDER_SANDBOXES: '' })).not.toThrow();
  });
});

describe('/api/connectors labels sandboxes (D9 readiness unchanged)', () => {
  const keys = { PAYMENTS_SECRET_KEY: 'sk_test_x', ACCOUNTING_CLIENT_ID: 'a', ACCOUNTING_CLIENT_SECRET: 'b', CRM_CLIENT_ID: 'c', CRM_CLIENT_SECRET: 'd', CREDENTIAL_ENCRYPTION_KEY: 'k'.repeat(32) };

  it('a sandbox provider keeps its readiness and says it is a local sandbox; a real one does not', () => {
    const settings = loadSettings({ ...base, ...keys, PROVIDER_SANDBOXES: 'payments,accounting' });
    const [payments, accounting, crm] = CONNECTORS.map((c) => readinessOf(c, settings));
    expect(payments).toMatchObject({ readiness: 'platform_account_live', sandbox: true, summary: expect.stringMatching(/^Local sandbox started by npm start, not the real provider.*platform's sandbox account/) });
    expect(accounting).toMatchObject({ readiness: 'awaiting_tenant_consent', sandbox: true, summary: expect.stringMatching(/^Local sandbox.*consent page/) });
    expect(crm).toMatchObject({ readiness: 'awaiting_tenant_consent', sandbox: false, summary: 'Configured on the platform; each workspace connects its own account.' });
    // Section 4.1: the summary names no configuration variable.
    for (const r of [payments, accounting, crm]) expect(r!.summary).not.toMatch(/[A-Z]{3,}_[A-Z_]+/);
  });

  it('a provider without its settings is not ready, whatever the label says', () => {
    expect(readinessOf(CONNECTORS[0]!, loadSettings({ ...base, PROVIDER_SANDBOXES: 'payments' }))).toMatchObject({ readiness: 'operator_credentials_missing', sandbox: false });
  });
});
