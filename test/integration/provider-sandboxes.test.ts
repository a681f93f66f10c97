// npm start's provider sandboxes (scripts/sandboxes/sandboxes.ts): which providers get one, and
// that the real client libraries work against them as configured by the settings they hand out.
import { afterAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { SANDBOX_PAYMENTS_KEY, sandboxesWanted, startSandboxes, type RunningSandboxes } from '../../scripts/sandboxes/sandboxes';
import { createStripeClient } from '../../infra/payments/stripe-client';

const redirectUri = (provider: 'ACCOUNTING' | 'CRM') => `http://localhost:3000/api/v1/integrations/${provider.toLowerCase()}/callback`;
const running: RunningSandboxes[] = [];

afterAll(async () => {
  await Promise.all(running.map((s) => s.close()));
});

describe('sandboxesWanted: real keys replace a sandbox, one provider at a time (D8)', () => {
  it.each([
    [{}, ['payments', 'accounting', 'crm']],
    [{ NODE_ENV: 'development' }, ['payments', 'accounting', 'crm']],
    [{ NODE_ENV: 'test' }, ['payments', 'accounting', 'crm']],
    [{ PAYMENTS_SECRET_KEY: 'sk_live_x' }, ['accounting', 'crm']],
    [{ ACCOUNTING_CLIENT_ID: 'id' }, ['payments', 'crm']],
    [{ ACCOUNTING_CLIENT_SECRET: 'secret' }, ['payments', 'crm']],
    [{ CRM_CLIENT_ID: 'id', CRM_CLIENT_SECRET: 'secret' }, ['payments', 'accounting']],
    [{ PAYMENTS_SECRET_KEY: 'k', ACCOUNTING_CLIENT_ID: 'a', CRM_CLIENT_SECRET: 'c' }, []],
    [{ PAYMENTS_SECRET_KEY: '' }, ['payments', 'accounting', 'crm']],
    [{ NODE_ENV: 'production' }, []],
  ] as const)('%j -> %j', (env, wanted) => {
    expect(sandboxesWanted(env as NodeJS.ProcessEnv)).toEqual(wanted);
  });
});

describe('startSandboxes', () => {
  it('hands out the settings that point our clients at loopback sandboxes and label them', async () => {
    const sandboxes = await startSandboxes({ slugs: ['payments', 'accounting', 'crm'], redirectUri, basePort: 0 });
    running.push(sandboxes);
    expect(sandboxes.env).toMatchObject({
      PAYMENTS_SECRET_KEY: SANDBOX_PAYMENTS_KEY,
      PAYMENTS_API_BASE_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      ACCOUNTING_CLIENT_ID: expect.any(String),
      ACCOUNTING_CLIENT_SECRET: expect.any(String),
      ACCOUNTING_API_BASE_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      ACCOUNTING_ENVIRONMENT: 'sandbox',
      CRM_CLIENT_ID: expect.any(String),
      CRM_CLIENT_SECRET: expect.any(String),
      CRM_LOGIN_URL: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      PROVIDER_SANDBOXES: 'payments,accounting,crm',
    });
    expect(sandboxes.endpoints.map((e) => e.slug)).toEqual(['payments', 'accounting', 'crm']);

    // stripe-node as the worker builds it: the sandbox key works, any other is refused.
    const stripe = createStripeClient({ secretKey: sandboxes.env.PAYMENTS_SECRET_KEY!, baseUrl: sandboxes.env.PAYMENTS_API_BASE_URL });
    const customer = await stripe.customers.create({ name: 'Sandbox customer' });
    expect(customer.id).toMatch(/^cus_/);
    const stranger = createStripeClient({ secretKey: 'sk_test_SomebodyElse123', baseUrl: sandboxes.env.PAYMENTS_API_BASE_URL });
    await expect(stranger.customers.list()).rejects.toMatchObject({ type: 'StripeAuthenticationError' });

    // The accounting and CRM apps know only our callbacks, and show a consent page.
    const qbo = new URL('/connect/oauth2', sandboxes.env.ACCOUNTING_API_BASE_URL);
    qbo.search = new URLSearchParams({ client_id: sandboxes.env.ACCOUNTING_CLIENT_ID!, redirect_uri: redirectUri('ACCOUNTING'), response_type: 'code', scope: 'com.intuit.quickbooks.accounting', state: 's' }).toString();
    expect((await fetch(qbo)).status).toBe(200);
    qbo.searchParams.set('redirect_uri', 'http://localhost:3000/elsewhere');
    expect((await fetch(qbo, { redirect: 'manual' })).status).toBe(400);
  });

  it('starts only the sandboxes asked for', async () => {
    const sandboxes = await startSandboxes({ slugs: ['crm'], redirectUri, basePort: 0 });
    running.push(sandboxes);
    expect(Object.keys(sandboxes.env).sort()).toEqual(['CRM_CLIENT_ID', 'CRM_CLIENT_SECRET', 'CRM_LOGIN_URL', 'PROVIDER_SANDBOXES']);
    expect(sandboxes.env.PROVIDER_SANDBOXES).toBe('crm');
  });

  it('says which setting moves them when their port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as AddressInfo).port;
    try {
      await expect(startSandboxes({ slugs: ['payments'], redirectUri, basePort: port })).rejects.toThrow(new RegExp(`127\\.0\\.0\\.1:${port}, which is taken; set PROVIDER_SANDBOX_PORT`));
    } finally {
      blocker.close();
    }
  });
});
