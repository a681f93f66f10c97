import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type pg from 'pg';
import { startApi, type ApiHarness } from '../../scripts/harness/api-harness';
import { createTenant, giveRateCard, ownerPool, type Tenant } from '../../scripts/harness/owner-db';
import { twoWindows } from '../../scripts/harness/quote-requests';
import { SANDBOX_RATE_CARD } from '../../db/rate-cards/sandbox-rate-cards';
import { startMailCatcher, type CaughtMail, type MailCatcher } from '../../scripts/infra/mail-catcher';
import { smtpMailer, type Mailer } from '../../infra/email/mailer';
import { waitUntil } from '../../scripts/harness/wait-until';
import { graphQLWordingOf, internalReferences } from '../support/reference-wording';
import { getIntrospectionQuery, type IntrospectionQuery } from 'graphql';

/**
 * A dispatch board over GraphQL: send and approve a quote, make and schedule a work order, give its job a
 * crew, read a day's jobs; the same services, history and events as REST. A technician reads the
 * customer's name and the site's address on their crews' jobs, never the quote's money.
 */
let owner: pg.Pool;
let api: ApiHarness;
let tenant: Tenant;
let catcher: MailCatcher;
let mailer: Mailer;
const tokens: Record<string, string> = {};

interface Answer {
  data?: Record<string, any> | null;
  errors?: { message: string; extensions: { code: string; [key: string]: unknown } }[];
}

async function gql(token: string | undefined, query: string, variables?: Record<string, unknown>): Promise<Answer> {
  const res = await api.request('/v1/graphql', { method: 'POST', token, json: { query, variables } });
  expect(res.status).toBe(200);
  return (await res.json()) as Answer;
}
const codes = (answer: Answer) => (answer.errors ?? []).map((e) => e.extensions.code);
const events = async (id: string) =>
  (await owner.query<{ event: string }>(`select event from outbox_events where organization_id = $1 and (envelope->'data'->>'work_order_id' = $2 or envelope->'data'->>'job_id' = $2 or envelope->'data'->>'quote_id' = $2) order by sequence`, [tenant.id, id])).rows.map((r) => r.event);

beforeAll(async () => {
  owner = ownerPool();
  catcher = await startMailCatcher();
  mailer = smtpMailer(catcher.smtpUrl, 'Shade Office <no-reply@shade-office.invalid>');
  api = await startApi({ mailer });
  tenant = await createTenant(owner, { admin: 'ADMIN', sales: 'SALES', tech: 'TECHNICIAN', lead: 'TECHNICIAN' });
  await giveRateCard(tenant.id, SANDBOX_RATE_CARD);
  await owner.query(`update organizations set plan = 'enterprise' where id = $1`, [tenant.id]);
  for (const [name, user] of Object.entries(tenant.users)) tokens[name] = await api.tokenFor(user);
});
afterAll(async () => {
  await api.close();
  await owner.end();
  mailer.close();
  await catcher.stop();
});

const mailTo = async (address: string): Promise<CaughtMail[]> => (await catcher.messages()).filter((m) => m.to.some((to) => to.address === address));
const status = async (id: string) => ((await (await api.request(`/api/v1/quotes/${id}`, { token: tokens.sales })).json()) as { status: string }).status;
async function draftQuote(customer: { name: string; email?: string }): Promise<string> {
  const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: tokens.sales, json: twoWindows({ persist: true, customer }) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { quote_id: string }).quote_id;
}

describe('a dispatch board over GraphQL', () => {
  let quoteId: string;
  let workOrderId: string;
  let crewId: string;

  beforeAll(async () => {
    const res = await api.request('/api/v1/quotes/calculate', { method: 'POST', token: tokens.sales, json: twoWindows({ persist: true, customer: { name: 'Harriet Vane', email: 'harriet@example.test' } }) });
    quoteId = ((await res.json()) as { quote_id: string }).quote_id;
    const crew = await api.request('/v1/fsm/crews', { method: 'POST', token: tokens.admin, json: { name: 'Crew Board', foreman_id: tenant.users.lead!.id, member_ids: [tenant.users.tech!.id] } });
    expect(crew.status).toBe(201);
    crewId = ((await crew.json()) as { crew_id: string }).crew_id;
  });

  it("sends a quote as REST does: SENT, a page link answered and emailed to the customer after the commit; sending again voids the first link", async () => {
    const id = await draftQuote({ name: 'Peter Wimsey', email: 'peter@example.test' });
    const sent = await gql(tokens.sales, 'mutation($id: ID!) { sendQuote(id: $id) { pageUrl quote { id status } } }', { id });
    expect(sent.errors).toBeUndefined();
    expect(sent.data!.sendQuote.quote).toEqual({ id, status: 'SENT' });
    const first = sent.data!.sendQuote.pageUrl as string;
    expect(first).toMatch(/\/q\/[A-Za-z0-9_-]{43}$/);
    expect(await status(id)).toBe('SENT');
    const mail = await waitUntil('the link mailed to the customer', async () => (await mailTo('peter@example.test')).find((m) => m.text.includes(first)), { timeoutMs: 30_000, intervalMs: 200 });
    expect(mail.subject).toMatch(/^Your quote \d+ from/);
    expect((await api.request(new URL(first).pathname)).status).toBe(200);

    const again = await gql(tokens.admin, 'mutation($id: ID!) { sendQuote(id: $id) { pageUrl } }', { id });
    expect(again.errors).toBeUndefined();
    const second = again.data!.sendQuote.pageUrl as string;
    expect(second).not.toBe(first);
    // The voided link opens nothing: the customer page's one neutral status.
    expect((await api.request(new URL(first).pathname)).status).toBe(404);
    await waitUntil('the second link mailed', async () => (await mailTo('peter@example.test')).some((m) => m.text.includes(second)) || undefined, { timeoutMs: 30_000, intervalMs: 200 });
  });

  it('refuses a send as REST refuses: a TECHNICIAN, an unknown quote, a quote past SENT; a rolled-back send mails no one', async () => {
    const id = await draftQuote({ name: 'Bunter', email: 'bunter@example.test' });
    expect(codes(await gql(tokens.tech, 'mutation($id: ID!) { sendQuote(id: $id) { pageUrl } }', { id }))).toEqual(['FORBIDDEN']);
    expect(codes(await gql(tokens.sales, 'mutation { sendQuote(id: "not-a-quote") { pageUrl } }'))).toEqual(['NOT_FOUND']);
    expect(codes(await gql(tokens.sales, 'mutation($id: ID!) { sendQuote(id: $id) { pageUrl } }', { id: '00000000-0000-4000-8000-000000000000' }))).toEqual(['NOT_FOUND']);
    const approved = await draftQuote({ name: 'Parker' });
    expect((await api.request(`/api/v1/quotes/${approved}/approve`, { method: 'POST', token: tokens.sales })).status).toBe(200);
    expect(codes(await gql(tokens.sales, 'mutation($id: ID!) { sendQuote(id: $id) { pageUrl } }', { id: approved }))).toEqual(['CONFLICT']);
    // One operation sending both: the second refusal rolls the first send back, and its email never goes.
    const both = await gql(tokens.sales, 'mutation($a: ID!, $b: ID!) { a: sendQuote(id: $a) { pageUrl } b: sendQuote(id: $b) { pageUrl } }', { a: id, b: approved });
    expect(codes(both)).toEqual(['CONFLICT']);
    expect(await status(id)).toBe('DRAFT');
    // A later send of another quote is mailed: had the rolled-back one been mailed, it would be in the catcher by then.
    const later = await draftQuote({ name: 'Bunter Again', email: 'bunter-again@example.test' });
    expect((await gql(tokens.sales, 'mutation($id: ID!) { sendQuote(id: $id) { pageUrl } }', { id: later })).errors).toBeUndefined();
    await waitUntil('the later send mailed', async () => (await mailTo('bunter-again@example.test')).length > 0 || undefined, { timeoutMs: 30_000, intervalMs: 200 });
    expect(await mailTo('bunter@example.test')).toEqual([]);
  });

  it('approves a quote as REST does: APPROVED, quote.approved recorded once; a second approval is a CONFLICT', async () => {
    const answer = await gql(tokens.sales, 'mutation($id: ID!) { approveQuote(id: $id) { id status } }', { id: quoteId });
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.approveQuote).toEqual({ id: quoteId, status: 'APPROVED' });
    expect((await events(quoteId)).filter((e) => e === 'quote.approved')).toHaveLength(1);
    expect(codes(await gql(tokens.sales, 'mutation($id: ID!) { approveQuote(id: $id) { id } }', { id: quoteId }))).toEqual(['CONFLICT']);
    expect(codes(await gql(tokens.tech, 'mutation($id: ID!) { approveQuote(id: $id) { id } }', { id: quoteId }))).toEqual(['FORBIDDEN']);
  });

  it('creates a work order, gives its job a crew and schedules it; a day’s jobs list it', async () => {
    const created = await gql(tokens.admin, 'mutation($input: CreateWorkOrderInput!) { createWorkOrder(input: $input) { id status scheduledDate siteAddress } }', {
      input: { quoteId, scheduledDate: '2026-12-14', siteAddress: '5 Bellona Club Rd' },
    });
    expect(created.errors).toBeUndefined();
    workOrderId = created.data!.createWorkOrder.id;
    expect(created.data!.createWorkOrder).toMatchObject({ status: 'PENDING', scheduledDate: '2026-12-14', siteAddress: '5 Bellona Club Rd' });

    const assigned = await gql(tokens.admin, 'mutation($job: ID!, $crew: ID!) { assignCrew(jobId: $job, crewId: $crew) { id crew { id } } }', { job: workOrderId, crew: crewId });
    expect(assigned.errors).toBeUndefined();
    expect(assigned.data!.assignCrew.crew.id).toBe(crewId);
    // As REST: the job's history records the crew.
    const { rows } = await owner.query<{ kind: string }>(`select kind from job_history where work_order_id = $1 order by changed_at`, [workOrderId]);
    expect(rows.map((r) => r.kind)).toEqual(['created', 'crew']);

    // Dispatched through REST, then moved to another day on the board: back to PENDING, with the events of that move.
    expect((await api.request(`/api/v1/work-orders/${workOrderId}/status`, { method: 'PATCH', token: tokens.admin, json: { status: 'DISPATCHED' } })).status).toBe(200);
    const before = await events(workOrderId);
    const moved = await gql(tokens.admin, 'mutation($id: ID!) { scheduleWorkOrder(id: $id, scheduledDate: "2026-12-15", notes: "Afternoon") { status scheduledDate notes } }', { id: workOrderId });
    expect(moved.errors).toBeUndefined();
    expect(moved.data!.scheduleWorkOrder).toEqual({ status: 'PENDING', scheduledDate: '2026-12-15', notes: 'Afternoon' });
    expect((await events(workOrderId)).slice(before.length).sort()).toEqual(['job.status_changed', 'work_order.pending']);

    const day = await gql(tokens.admin, '{ jobs(date: "2026-12-15") { nodes { id siteAddress customerName } } }');
    expect(day.errors).toBeUndefined();
    expect(day.data!.jobs.nodes).toEqual([{ id: workOrderId, siteAddress: '5 Bellona Club Rd', customerName: 'Harriet Vane' }]);
    expect((await gql(tokens.admin, '{ jobs(date: "2026-12-14") { nodes { id } } }')).data!.jobs.nodes).toEqual([]);
  });

  it("a technician reads the customer's name and the site's address on their crew's jobs, not the quote's money", async () => {
    const mine = await gql(tokens.tech, '{ jobs(date: "2026-12-15") { nodes { id customerName siteAddress } } }');
    expect(mine.errors).toBeUndefined();
    expect(mine.data!.jobs.nodes).toEqual([{ id: workOrderId, customerName: 'Harriet Vane', siteAddress: '5 Bellona Club Rd' }]);
    const money = await gql(tokens.tech, '{ jobs(date: "2026-12-15") { nodes { quote { totalAmountCents } } } }');
    expect(codes(money)).toEqual(['FORBIDDEN']);
  });

  it('refuses as REST refuses: roles, a bad day, a final work order', async () => {
    expect(codes(await gql(tokens.sales, 'mutation { createWorkOrder(input: {}) { id } }'))).toEqual(['FORBIDDEN']);
    expect(codes(await gql(tokens.tech, `mutation { assignCrew(jobId: "${workOrderId}", crewId: "${crewId}") { id } }`))).toEqual(['FORBIDDEN']);
    const badDay = await gql(tokens.admin, '{ jobs(date: "2026-02-30") { nodes { id } } }');
    expect(codes(badDay)).toEqual(['BAD_USER_INPUT']);
    const badDate = await gql(tokens.admin, `mutation { scheduleWorkOrder(id: "${workOrderId}", scheduledDate: "soon") { id } }`);
    expect(codes(badDate)).toEqual(['BAD_USER_INPUT']);
    expect((await api.request(`/api/v1/work-orders/${workOrderId}/status`, { method: 'PATCH', token: tokens.admin, json: { status: 'CANCELLED' } })).status).toBe(200);
    expect(codes(await gql(tokens.admin, `mutation { scheduleWorkOrder(id: "${workOrderId}", notes: "late") { id } }`))).toEqual(['CONFLICT']);
  });
});

describe("GraphiQL's docs read as product docs", () => {
  it('no description the served schema answers to introspection names a decision id, a section number or a tracker number', async () => {
    const answer = await gql(tokens.admin, getIntrospectionQuery({ inputValueDeprecation: true }));
    expect(answer.errors).toBeUndefined();
    const wording = graphQLWordingOf(answer.data as unknown as IntrospectionQuery);
    expect(wording.map((w) => w.where)).toContain('Mutation.sendQuote');
    expect(internalReferences(wording)).toEqual([]);
  });
});
