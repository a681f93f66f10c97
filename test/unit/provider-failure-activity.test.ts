import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/activity';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { Registry } from 'prom-client';
import type { Connection } from 'jsforce';
import { classifySalesforceError, classifyStripeError } from '../../activities/providers/failure';
import { writeInvoice } from '../../activities/payments/write-invoice';
import { upsertOpportunity } from '../../activities/crm/upsert-opportunity';
import type { FrozenQuote } from '../../activities/approval/frozen-quote';
import { quoteTax } from '../../domain/tax/quote-tax';
import { createStripeClient } from '../../infra/payments/stripe-client';
import { SalesforceOAuth } from '../../infra/integrations/providers/salesforce';
import { FAILURE_TYPES } from '../../infra/temporal/failure-types';
import { createLogger } from '../../infra/runtime/logger';
import { activityInterceptors } from '../../worker/activity-interceptors';
import { createWorkerMetrics, type WorkerMetrics } from '../../worker/metrics';

/**
 * D7: one rule for every provider, a refusal is final and trouble is retried, checked where it
 * matters: inside the activity, as the worker runs it (Temporal's activity context and our
 * activity interceptors, which count each provider call by outcome), with no Temporal server
 * (MockActivityEnvironment). The provider's real client library answers a loopback server that
 * answers as the provider would, so the error objects are the library's own, not hand-made ones
 * (test/unit/provider-failures.test.ts covers the rule on hand-made errors).
 */

/** What the loopback provider answers next: every request gets it until another is set. */
let answer: { status: number; body: string; headers?: Record<string, string> } = { status: 200, body: '{}' };
let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let metrics: WorkerMetrics;
beforeEach(() => {
  metrics = createWorkerMetrics(new Registry());
});

const QUOTE: FrozenQuote = {
  quoteId: '5b0c3d1e-7a2f-4c6b-9e8d-1f2a3b4c5d6e',
  quoteNumber: 1042,
  status: 'APPROVED',
  customer: { id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f', name: 'Harbourfront Condos', email: 'ap@harbourfront.test', paymentsCustomerId: null },
  lines: [{ description: 'Living room: 1 × 48" × 60" roller shade', amountCents: 41_250 }],
  subtotalCents: 41_250,
  tax: quoteTax('CA-ON', 41_250),
  approvedAt: '2026-11-20T15:04:05.000Z',
};

/** An activity of the given type, as the worker runs it: our interceptors around it, on its `attempt`. */
function asWorker(activityType: string, attempt = 2) {
  // The SDK's own 'Activity failed' lines are expected here: only errors would be news.
  return new MockActivityEnvironment({ activityType, attempt }, { logger: new DefaultLogger('ERROR'), interceptors: [activityInterceptors({ logger: createLogger('silent'), metrics })] });
}

/** The leg's rule around its write (activities/approval/index.ts): the provider's error leaves the activity classified. */
const classified = <T>(classify: (error: unknown) => Error, write: () => Promise<T>) => async (): Promise<T> => {
  try {
    return await write();
  } catch (error) {
    throw classify(error);
  }
};

async function failureOf(run: Promise<unknown>): Promise<ApplicationFailure> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFailure);
  return error as ApplicationFailure;
}

async function providerCalls(): Promise<Record<string, number>> {
  const { values } = await metrics.providerCalls.get();
  return Object.fromEntries(values.map((v) => [`${v.labels.provider}/${v.labels.outcome}`, v.value]));
}

describe('the payments write (stripe-node against a loopback provider)', () => {
  const stripe = () => createStripeClient({ secretKey: 'sk_test_failureClassification01', baseUrl: url });
  const paymentsLeg = () => classified(classifyStripeError, () => writeInvoice(stripe(), { ...QUOTE, organizationId: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d' }, async () => undefined));

  it('a 400 is a refusal: non-retryable ProviderRefused, counted as refused', async () => {
    answer = { status: 400, body: JSON.stringify({ error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such customer' } }) };
    const failure = await failureOf(asWorker('writePaymentsInvoice').run(paymentsLeg()));
    expect([failure.type, failure.nonRetryable]).toEqual([FAILURE_TYPES.providerRefused, true]);
    expect(failure.message).toMatch(/^payments provider refused the call: 400 StripeInvalidRequestError \(resource_missing\): No such customer$/);
    expect(await providerCalls()).toEqual({ 'payments/refused': 1 });
  });

  it("a 429 is retried after the provider's Retry-After, read from the real answer's headers", async () => {
    answer = { status: 429, body: JSON.stringify({ error: { type: 'rate_limit_error', message: 'Too many requests' } }), headers: { 'retry-after': '7' } };
    const failure = await failureOf(asWorker('writePaymentsInvoice').run(paymentsLeg()));
    expect([failure.type, failure.nonRetryable, failure.nextRetryDelay]).toEqual([FAILURE_TYPES.providerUnavailable, false, 7000]);
    expect(await providerCalls()).toEqual({ 'payments/failed': 1 });
  });

  it('a 503 is trouble: retried on the profile\'s schedule', async () => {
    answer = { status: 503, body: JSON.stringify({ error: { type: 'api_error', message: 'Service unavailable' } }) };
    const failure = await failureOf(asWorker('writePaymentsInvoice').run(paymentsLeg()));
    expect([failure.type, failure.nonRetryable, failure.nextRetryDelay]).toEqual([FAILURE_TYPES.providerUnavailable, false, undefined]);
    expect(await providerCalls()).toEqual({ 'payments/failed': 1 });
  });

  it('no answer at all (nothing listens) is trouble too', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', () => resolve()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = createStripeClient({ secretKey: 'sk_test_failureClassification01', baseUrl: `http://127.0.0.1:${port}` });
    const leg = classified(classifyStripeError, () => writeInvoice(unreachable, { ...QUOTE, organizationId: 'a0b1c2d3-e4f5-4a6b-8c7d-9e0f1a2b3c4d' }, async () => undefined));
    const failure = await failureOf(asWorker('writePaymentsInvoice').run(leg));
    expect([failure.type, failure.nonRetryable]).toEqual([FAILURE_TYPES.providerUnavailable, false]);
    expect(await providerCalls()).toEqual({ 'payments/failed': 1 });
  });
});

describe('the CRM write (jsforce against a loopback provider)', () => {
  const connection = (): Connection => new SalesforceOAuth({ clientId: 'failure-test', clientSecret: 'failure-test', redirectUri: `${url}/callback`, loginUrl: url, sessionSeconds: 7200 }).connection({ accessToken: 'failure-test-token', instanceUrl: url });
  const crmLeg = () => classified(classifySalesforceError, () => upsertOpportunity(connection(), QUOTE));

  it('a field error is a refusal', async () => {
    answer = { status: 400, body: JSON.stringify([{ errorCode: 'INVALID_FIELD', message: "No such column 'Quote_Id__c' on entity 'Opportunity'" }]) };
    const failure = await failureOf(asWorker('upsertCrmOpportunity').run(crmLeg()));
    expect([failure.type, failure.nonRetryable]).toEqual([FAILURE_TYPES.providerRefused, true]);
    expect(failure.message).toContain('INVALID_FIELD');
    expect(await providerCalls()).toEqual({ 'crm/refused': 1 });
  });

  it('a 503 and a request limit are trouble', async () => {
    for (const [status, body] of [
      [503, 'Service Unavailable'],
      [403, JSON.stringify([{ errorCode: 'REQUEST_LIMIT_EXCEEDED', message: 'TotalRequests Limit exceeded.' }])],
    ] as const) {
      answer = { status, body };
      const failure = await failureOf(asWorker('upsertCrmOpportunity').run(crmLeg()));
      expect([status, failure.type, failure.nonRetryable]).toEqual([status, FAILURE_TYPES.providerUnavailable, false]);
    }
    expect(await providerCalls()).toEqual({ 'crm/failed': 2 });
  });
});
