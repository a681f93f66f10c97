import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from '../../scripts/infra/free-port';
import { projectRoot, toolCacheDir } from '../../scripts/infra/paths';
import { withDatabaseName } from '../../db/database-urls';
import { dropDatabase } from '../../db/migrate';
import { curlSites, readmeBlocks, readmeScript } from '../support/readme-script';
import { waitUntil } from '../../scripts/harness/wait-until';
import { launchBrowser } from '../support/browser';

/**
 * The README works when pasted. `npm start`'s launcher (scripts/start.ts) brings up the
 * stack as on a fresh clone, in development and without any provider key (so with its provider
 * sandboxes), on the suite's PostgreSQL server and Temporal; then every shell block of the README
 * runs in order in one bash, as written (only its fixed ports are swapped for the test stack's),
 * and any curl answering other than 2xx, or other than the status its line announces, fails.
 */
const database = withDatabaseName(process.env.DATABASE_URL!, `shade_readme_${randomBytes(4).toString('hex')}`);
const work = mkdtempSync(join(tmpdir(), 'shade-readme-'));
let stack: ChildProcess | undefined;
let output = '';
let api = '';
let port = 0;
// docs/operations.md reads both processes' /metrics at npm start's ports (swapped here).
let metricsPort = 0;
let workerMetricsPort = 0;

// What a newcomer's shell does not have: any provider setting (the sandboxes stand in). Empty
// strings also win over a developer's .env. The suite's own secrets stay: the application role's
// password is the database server's, shared with every other test.
const UNSET = [
  'PAYMENTS_SECRET_KEY', 'PAYMENTS_WEBHOOK_SECRET', 'PAYMENTS_API_BASE_URL', 'ACCOUNTING_CLIENT_ID', 'ACCOUNTING_CLIENT_SECRET', 'ACCOUNTING_API_BASE_URL',
  'CRM_CLIENT_ID', 'CRM_CLIENT_SECRET', 'CRM_LOGIN_URL', 'CHECKOUT_RETURN_ORIGINS', 'OUTBOUND_WEBHOOKS_ALLOW_PRIVATE_NETWORKS',
  'OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK', 'PROVIDER_SANDBOXES', 'PUBLIC_BASE_URL',
];

/**
 * A newcomer's shell for the documents' commands: npm and node on PATH, and nothing of our tool
 * cache (neither on PATH nor as TEMPORAL_CLI), so a command that needs the Temporal CLI runs only
 * if the document reaches it itself (`npm run temporal`).
 */
function newcomerEnv(): NodeJS.ProcessEnv {
  const { TEMPORAL_CLI: _cli, ...env } = process.env;
  const path = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir !== '' && dir !== toolCacheDir);
  return { ...env, PATH: [join(projectRoot, 'node_modules', '.bin'), ...path].join(delimiter) };
}

beforeAll(async () => {
  port = await freePort();
  metricsPort = await freePort();
  workerMetricsPort = await freePort();
  api = `http://127.0.0.1:${port}`;
  stack = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: projectRoot,
    env: {
      ...process.env,
      ...Object.fromEntries(UNSET.map((name) => [name, ''])),
      NODE_ENV: 'development',
      DATABASE_URL: database,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      WORKER_METRICS_PORT: String(workerMetricsPort),
      TEMPORAL_TASK_QUEUE: `readme-test-${port}`,
      TEMPORAL_ROUTING_TASK_QUEUE: `readme-routing-${port}`,
      PROVIDER_SANDBOX_PORT: '0',
      // Any free ports for the mail catcher too (D13), beside other runs on this machine.
      MAIL_CATCHER_PORT: '0',
      MAIL_CATCHER_SMTP_PORT: '0',
      SMTP_URL: '',
      LOG_LEVEL: 'warn',
      NODE_OPTIONS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  stack.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  stack.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const deadline = Date.now() + 150_000;
  while (!output.includes('Shade Office is ready')) {
    if (Date.now() > deadline || stack.exitCode !== null) throw new Error(`the stack did not come up:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 180_000);

afterAll(async () => {
  for (const pid of backgroundPids()) stopGroup(pid, 'SIGKILL');
  if (stack && stack.exitCode === null) {
    const exited = new Promise((resolve) => stack!.once('exit', resolve));
    stack.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000).unref())]);
    if (stack.exitCode === null) stack.kill('SIGKILL');
  }
  await dropDatabase(database);
  rmSync(work, { recursive: true, force: true });
}, 60_000);

function backgroundPids(): number[] {
  const file = join(work, 'pids');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).map(Number) : [];
}

function stopGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}


const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
const blocks = readmeBlocks(readme);

describe('npm start on a fresh clone', () => {
  it('prints one line per step with its time, says it is ready and what to try first, and labels the provider sandboxes', () => {
    for (const step of ['PostgreSQL', 'Temporal', 'migrations', 'sandbox tenants (D1 seed)', 'provider sandboxes', 'worker and API']) {
      expect(output).toMatch(new RegExp(`\\[setup\\] ${step.replace(/[()]/g, '\\$&')}[^\\n]* \\.\\.\\. [^\\n]*\\d+(\\.\\d)? s\\n`));
    }
    expect(output).toContain('a workflow round trip completed');
    expect(output).toMatch(/Shade Office is ready \(\d+(\.\d)? s\)\./);
    for (const slug of ['payments', 'accounting', 'crm']) expect(output).toMatch(new RegExp(`${slug}\\s+SANDBOX http://127\\.0\\.0\\.1:\\d+`));
    expect(output).toContain('state is kept in memory');
    expect(output).toContain('npm run webhooks:listen');
    expect(output).toContain(`Try first, in another terminal:\n  curl -s ${api}/api/connectors`);
    // Calm: no stack traces, no JSON log lines at start-up.
    expect(output).not.toMatch(/^\{"level"/m);
    expect(output).not.toMatch(/Error|EBADENGINE/);
  });
});

describe('README.md, pasted block by block', () => {
  it('has its shell blocks found, and every curl of them accounted for', () => {
    expect(blocks.filter((b) => b.mode === 'run').length).toBeGreaterThanOrEqual(8);
    expect(blocks.filter((b) => b.mode === 'background').map((b) => b.code.trim())).toEqual(['npm run webhooks:listen']);
    // No placeholder the shell would read as a redirect, in any block that runs.
    for (const block of blocks.filter((b) => b.mode !== 'skip')) expect({ line: block.line, placeholder: /<[a-z][^>]*>/i.exec(block.code)?.[0] ?? null }).toEqual({ line: block.line, placeholder: null });
    expect(curlSites(blocks).length).toBeGreaterThan(20);
  });

  it('runs as written: every request answers 2xx or the status the README announces; the approval SUCCEEDS at the payments sandbox', async () => {
    const sites = curlSites(blocks);
    const statusLog = join(work, 'statuses');
    const variablesFile = join(work, 'variables');
    writeFileSync(statusLog, '');
    const temporalAddress = process.env.TEMPORAL_ADDRESS!;
    // The payments sandbox's port, as the start banner prints it (the README uses npm start's 4010).
    const paymentsSandbox = /payments\s+SANDBOX (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    expect(paymentsSandbox).toBeDefined();
    // The mail catcher's web UI and API, as the banner prints it (the README uses npm start's 1080).
    const mailCatcher = /Mail\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    expect(mailCatcher).toBeDefined();
    const script = readmeScript(blocks, {
      replacements: [
        ['http://127.0.0.1:3000', api],
        ['http://localhost:3000', `http://localhost:${port}`],
        ['127.0.0.1:7233', temporalAddress],
        ['http://127.0.0.1:4010', paymentsSandbox!],
        ['http://127.0.0.1:1080', mailCatcher!],
      ],
      statusLog,
      backgroundDir: work,
      variablesFile,
      variables: ['TOKEN', 'ORG', 'QUOTE', 'STUCK_ID', 'STUCK_NUMBER', 'CQUOTE', 'PAGE'],
    });
    writeFileSync(join(work, 'readme.sh'), script);
    const run = spawn('bash', [join(work, 'readme.sh')], {
      cwd: projectRoot,
      // As in a newcomer's shell after npm start: npm and node on PATH, and PORT as npm start's
      // API uses it; nothing of the tool cache on PATH (the Temporal CLI is `npm run temporal`).
      // `npm run ops` (D19, D22) reaches the stack's database, Temporal and worker as a deployment's operator would.
      env: { ...newcomerEnv(), PORT: String(port), DATABASE_URL: database, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_TASK_QUEUE: `readme-test-${port}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let shell = '';
    run.stdout!.on('data', (c: Buffer) => (shell += c.toString()));
    run.stderr!.on('data', (c: Buffer) => (shell += c.toString()));
    const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));
    if (code !== 0) throw new Error(`the README's commands failed (exit ${code}):\n${shell.slice(-6000)}`);

    const statuses = readFileSync(statusLog, 'utf8').split('\n').filter((line) => line !== '');
    expect(statuses.length).toBe(sites.length);
    const wrong = sites
      .map((site, i) => ({ line: site.line, announced: site.expected, got: Number(statuses[i]) }))
      .filter(({ announced, got }) => (announced === null ? got < 200 || got > 299 : got !== announced))
      .map(({ line, announced, got }) => `README.md line ${line}: answered ${got}${announced === null ? ' (not announced)' : `, announced ${announced}`}`);
    expect(wrong).toEqual([]);
    // The README does announce some refusals, and they happened.
    expect(sites.filter((s) => s.expected !== null).length).toBeGreaterThanOrEqual(3);

    const variables = Object.fromEntries(readFileSync(variablesFile, 'utf8').trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    expect(variables.QUOTE).toMatch(/^[0-9a-f-]{36}$/);
    expect(variables.ORG).toMatch(/^[0-9a-f-]{36}$/);
    const syncs = (await (await fetch(`${api}/api/v1/integrations/syncs?limit=50`, { headers: { authorization: `Bearer ${variables.TOKEN}` } })).json()) as {
      data: { provider: string; local_id: string; status: string; external_id: string | null }[];
    };
    const legs = syncs.data.filter((s) => s.local_id === variables.QUOTE);
    expect(legs.find((s) => s.provider === 'PAYMENTS')).toMatchObject({ status: 'SUCCEEDED', external_id: expect.stringMatching(/^in_/) });
    expect(legs.filter((s) => s.provider !== 'PAYMENTS').map((s) => s.status)).toEqual(['SKIPPED', 'SKIPPED']);

    // D19: the approval stuck on a refused invoice was listed and repaired by `npm run ops`.
    const stuck = syncs.data.filter((s) => s.local_id === variables.STUCK_ID);
    expect(stuck.find((s) => s.provider === 'PAYMENTS')).toMatchObject({ status: 'SUCCEEDED', external_id: expect.stringMatching(/^in_/) });
    // The last error comes last, whole: the sandbox's refusal to its last word.
    expect(shell).toMatch(new RegExp(`sandbox\\s+${variables.STUCK_NUMBER}\\s+payments\\s+1\\s+quote leg\\s+quote-approval-${variables.STUCK_ID}\\s+.*refused.*Injected 400 for POST /v1/invoices\\.$`, 'm'));
    expect(shell).toContain('SUCCEEDED: the quote');
    const connection = await Connection.connect({ address: temporalAddress });
    try {
      const client = new Client({ connection });
      const approval = client.workflow.getHandle(`quote-approval-${variables.STUCK_ID}`);
      expect((await approval.describe()).status.name).toBe('COMPLETED');
      // The README's "quote N of sandbox" (the UI's search box and the CLI's --query alike) finds
      // the approval of the quote "Try it" approved, not nothing.
      const examples = [...new Set([...readme.matchAll(/OrganizationSubdomain = 'sandbox' AND QuoteNumber = \d+/g)].map((m) => m[0]))];
      expect(examples.length).toBeGreaterThanOrEqual(1);
      for (const query of examples) {
        const found = await waitUntil(`the README's query ${query}`, async () => {
          const ids: string[] = [];
          for await (const run of client.workflow.list({ query })) ids.push(run.workflowId);
          return ids.includes(`quote-approval-${variables.QUOTE}`) ? ids : undefined;
        }, { timeoutMs: 15_000, intervalMs: 500 });
        expect(found).toContain(`quote-approval-${variables.QUOTE}`);
      }
    } finally {
      await connection.close();
    }

    // The webhook receiver the README started printed both deliveries, verified, and removes its
    // endpoint when stopped.
    const [listener] = backgroundPids();
    const listenerLog = join(work, `background-${blocks.findIndex((b) => b.mode === 'background')}.log`);
    const received = () => readFileSync(listenerLog, 'utf8');
    await waitUntil('two verified deliveries at the receiver', () => /work_order\.dispatched .*signature verified/.test(received()) && /work_order\.cancelled .*signature verified/.test(received()), { timeoutMs: 30_000, intervalMs: 200 });
    expect(received()).not.toContain('NOT verified');
    stopGroup(listener!, 'SIGTERM');
    await waitUntil('the receiver to remove its endpoint', () => /Removed endpoint [0-9a-f-]{36}\./.test(received()), { timeoutMs: 15_000, intervalMs: 200 });
    const endpoints = (await (await fetch(`${api}/api/v1/webhook-endpoints`, { headers: { authorization: `Bearer ${variables.TOKEN}` } })).json()) as { data: unknown[] };
    expect(endpoints.data).toEqual([]);
  }, 240_000);

  it("D24, the customer's side as the README walks it, in Chromium: the emailed link, accept, the invoice email, the test card, paid_at", async () => {
    const variables = Object.fromEntries(readFileSync(join(work, 'variables'), 'utf8').trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    const mailCatcher = /Mail\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)![1]!;
    const mailTo = async (subject: RegExp) =>
      ((await (await fetch(`${mailCatcher}/api/email`)).json()) as { subject: string; text: string; to: { address: string }[] }[]).find(
        (m) => m.to[0]?.address === 'sam@example.test' && subject.test(m.subject),
      );
    const quoteMail = await waitUntil('the quote email at the mail catcher', () => mailTo(/^Your quote \d+ from/), { timeoutMs: 30_000, intervalMs: 200 });
    expect(quoteMail.text).toContain(variables.PAGE);
    const browser = await launchBrowser();
    try {
      const page = await (await browser.newContext({ viewport: { width: 375, height: 667 } })).newPage();
      // The link as emailed: PUBLIC_BASE_URL's default, this API on localhost.
      await page.goto(variables.PAGE!);
      await page.getByLabel('Type your full name to accept').fill('Sam Okafor');
      await Promise.all([page.waitForURL('**/accept'), page.locator('#accept-button').click()]);
      expect(await page.locator('h2').first().innerText()).toContain('you accepted this quote');

      const invoiceMail = await waitUntil('the invoice email at the mail catcher', () => mailTo(/^Invoice for quote \d+/), { timeoutMs: 60_000, intervalMs: 250 });
      const hosted = /(http:\/\/127\.0\.0\.1:\d+\/i\/\S+)/.exec(invoiceMail.text)?.[1];
      expect(hosted).toBeDefined();
      await page.goto(hosted!);
      await page.getByLabel('Card number').fill('4242 4242 4242 4242');
      await page.getByLabel('Expiry (MM / YY)').fill('12 / 34');
      await page.getByLabel('CVC').fill('123');
      await Promise.all([page.waitForLoadState('load'), page.locator('#pay-button').click()]);
      await page.locator('#invoice-status').waitFor();
      expect(await page.locator('#invoice-status').innerText()).toContain('Paid.');
    } finally {
      await browser.close();
    }
    const quote = await waitUntil(
      'paid_at from the signed invoice.paid',
      async () => {
        const q = (await (await fetch(`${api}/api/v1/quotes/${variables.CQUOTE}`, { headers: { authorization: `Bearer ${variables.TOKEN}` } })).json()) as { status: string; paid_at: string | null; acceptance: { name: string } | null };
        return q.paid_at ? q : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(quote).toMatchObject({ status: 'APPROVED', acceptance: { name: 'Sam Okafor' } });
  }, 120_000);
});

/** What a browser does with the sandbox's consent page: read the form, press a button. */
async function pressOnConsentPage(authorizeUrl: string, button: 'approve' | 'deny'): Promise<URL> {
  const page = await fetch(authorizeUrl);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/text\/html/);
  const html = await page.text();
  expect(html).toContain('Local sandbox');
  const form = /<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no form on the consent page:\n${html}`);
  const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  const fields = new URLSearchParams();
  for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) fields.append(unescape(input[1]!), unescape(input[2]!));
  expect(form[2]).toContain(`<button type="submit" name="decision" value="${button}">`);
  fields.append('decision', button);
  const answer = await fetch(new URL(unescape(form[1]!), authorizeUrl), { method: 'POST', body: fields, redirect: 'manual' });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location')!);
}

describe('the sandboxes in use, as a newcomer would after the README', () => {
  let token = '';
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  };

  it('labels each sandbox in /api/connectors, and the consent pages complete the connection through our callback', async () => {
    const connectors = (await (await fetch(`${api}/api/connectors`)).json()) as { connectors: { slug: string; readiness: string; summary: string }[] };
    expect(connectors.connectors.map((c) => [c.slug, c.readiness])).toEqual([
      ['payments', 'platform_account_live'],
      ['accounting', 'awaiting_tenant_consent'],
      ['crm', 'awaiting_tenant_consent'],
    ]);
    for (const c of connectors.connectors) expect(c.summary).toMatch(/^Local sandbox started by npm start, not the real provider/);

    const login = await fetch(`${api}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subdomain: 'sandbox', email: 'admin@sandbox.test', password: 'Sandbox!2026' }),
    });
    token = ((await login.json()) as { access_token: string }).access_token;

    // Deny first: the callback says so, nothing is connected.
    const denied = await pressOnConsentPage((await call('POST', '/api/v1/integrations/crm/connect')).json.authorize_url, 'deny');
    expect(`${denied.origin}${denied.pathname}`).toBe(`http://localhost:${port}/api/v1/integrations/crm/callback`);
    expect(denied.searchParams.get('error')).toBe('access_denied');
    expect((await fetch(`${api}${denied.pathname}${denied.search}`)).status).toBe(200);

    for (const slug of ['accounting', 'crm']) {
      const connect = await call('POST', `/api/v1/integrations/${slug}/connect`);
      expect(connect.status).toBe(200);
      expect(connect.json.authorize_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      const back = await pressOnConsentPage(connect.json.authorize_url, 'approve');
      // The browser is sent to our callback (PUBLIC_BASE_URL's default origin), which answers a page.
      expect(`${back.origin}${back.pathname}`).toBe(`http://localhost:${port}/api/v1/integrations/${slug}/callback`);
      const callback = await fetch(`${api}${back.pathname}${back.search}`);
      expect(callback.status).toBe(200);
      expect(await callback.text()).toMatch(/connected/i);
    }
    const integrations = await call('GET', '/api/v1/integrations');
    type Entry = { provider: string; connection: { status: string; external_account_id: string | null } | null; configuration: { summary: string } };
    const entries = integrations.json.data as Entry[];
    expect(entries.map((i) => [i.provider, i.connection?.status ?? null])).toEqual([
      ['PAYMENTS', null],
      ['ACCOUNTING', 'CONNECTED'],
      ['CRM', 'CONNECTED'],
    ]);
    expect(entries[1]!.connection!.external_account_id).toBe('9341452000000001');
    expect(entries[0]!.configuration.summary).toMatch(/^Local sandbox/);
  });

  it('an approval after connecting writes to all three sandboxes, and checkout answers with the development return origin', async () => {
    const quote = await call('POST', '/api/v1/quotes/calculate', {
      persist: true,
      customer: { name: 'Robin Sandbox', email: 'robin@example.test' },
      laborTierCode: 'STANDARD',
      lineItems: [{ widthInches: 36, dropInches: 48, quantity: 1, fabricSkuCode: 'FAB-BLACKOUT', hardwareSkuCode: 'HW-ROLLER-STD' }],
    });
    expect(quote.status).toBe(200);
    const id = quote.json.quote_id as string;
    expect((await call('POST', `/api/v1/quotes/${id}/approve`)).status).toBe(200);
    expect(await waitForLegs(id)).toEqual({ PAYMENTS: 'SUCCEEDED', ACCOUNTING: 'SUCCEEDED', CRM: 'SUCCEEDED' });
    const invoice = await call('GET', `/api/v1/quotes/${id}/invoice`);
    expect(invoice.json).toMatchObject({ status: 'open', mode: 'test', invoice_id: expect.stringMatching(/^in_/) });
    const checkout = await call('POST', `/api/v1/quotes/${id}/checkout-session`, {});
    expect(checkout.status).toBeLessThan(300);
    expect(checkout.json).toMatchObject({ status: 'open', session_id: expect.stringMatching(/^cs_/) });
  }, 90_000);

  async function waitForLegs(quoteId: string): Promise<Record<string, string>> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const syncs = await call('GET', '/api/v1/integrations/syncs?limit=50');
      const legs: Record<string, string> = Object.fromEntries(
        syncs.json.data.filter((s: { local_id: string }) => s.local_id === quoteId).map((s: { provider: string; status: string }) => [s.provider, s.status]),
      );
      const states = Object.values(legs);
      if (states.length === 3 && states.every((state) => state !== 'PENDING')) return legs;
      if (Date.now() > deadline) throw new Error(`the legs did not finish: ${JSON.stringify(legs)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
});

describe('docs/operations.md, against the same npm start', () => {
  it('runs its commands as written: metrics of both processes, the Temporal runtime\'s, and the workflow queries', async () => {
    const operations = readmeBlocks(readFileSync(join(projectRoot, 'docs', 'operations.md'), 'utf8'));
    expect(operations.filter((b) => b.mode === 'run').length).toBeGreaterThanOrEqual(2);
    const sites = curlSites(operations);
    const statusLog = join(work, 'operations-statuses');
    writeFileSync(statusLog, '');
    const script = readmeScript(operations, {
      replacements: [
        ['http://127.0.0.1:3000', api],
        ['127.0.0.1:7233', process.env.TEMPORAL_ADDRESS!],
        ['127.0.0.1:9464', `127.0.0.1:${metricsPort}`],
        ['127.0.0.1:9465', `127.0.0.1:${workerMetricsPort}`],
      ],
      statusLog,
      backgroundDir: work,
      variablesFile: join(work, 'operations-variables'),
      variables: ['QUOTE'],
    });
    writeFileSync(join(work, 'operations.sh'), script);
    const run = spawn('bash', [join(work, 'operations.sh')], {
      cwd: projectRoot,
      env: { ...newcomerEnv(), PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let shell = '';
    run.stdout!.on('data', (c: Buffer) => (shell += c.toString()));
    run.stderr!.on('data', (c: Buffer) => (shell += c.toString()));
    const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));
    if (code !== 0) throw new Error(`docs/operations.md's commands failed (exit ${code}):\n${shell.slice(-6000)}`);
    const statuses = readFileSync(statusLog, 'utf8').split('\n').filter((line) => line !== '');
    expect(statuses.length).toBe(sites.length);
    expect(statuses.filter((s) => Number(s) < 200 || Number(s) > 299)).toEqual([]);
    // What the commands printed: our metrics, the runtime's, and the approval found by its quote.
    const quote = readFileSync(join(work, 'operations-variables'), 'utf8').trim().replace(/^QUOTE=/, '');
    expect(shell).toMatch(/^shade_http_requests_total\{[^}]*route="\/api\/v1\/quotes\/:id\/approve"[^}]*\} [1-9]\d*$/m);
    expect(shell).toMatch(/^shade_provider_calls_total\{[^}]*provider="payments"[^}]*outcome="succeeded"/m);
    expect(shell).toMatch(/^temporal_workflow_completed/m);
    expect(shell).toContain(`quote-approval-${quote}`);
    expect(shell).toContain('request_id');
  }, 120_000);
});

describe('every other document of docs/, against the same npm start', () => {
  // operations.md has its own test above; each other document's blocks run in one bash, in order,
  // with the README's TOKEN, ORG and QUOTE (its blocks follow "Try it"), like the README's.
  const documents = readdirSync(join(projectRoot, 'docs'))
    .filter((name) => name.endsWith('.md') && name !== 'operations.md')
    .map((name) => ({ name, blocks: readmeBlocks(readFileSync(join(projectRoot, 'docs', name), 'utf8')) }))
    .filter(({ blocks: found }) => found.length > 0);

  // The README's TOKEN may be past its 900 seconds by now: the same login again.
  const freshToken = async () => {
    const login = await fetch(`${api}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subdomain: 'sandbox', email: 'admin@sandbox.test', password: 'Sandbox!2026' }),
    });
    return ((await login.json()) as { access_token: string }).access_token;
  };

  it('finds the documents that show commands', () => {
    expect(documents.map((d) => d.name).sort()).toEqual(['crash-campaign.md', 'graphql.md', 'webhooks.md', 'workflow-versioning.md']);
  });

  it.each(documents.map((d) => [d.name, d.blocks] as const))('docs/%s runs as written (every curl 2xx or as announced; every command exits 0)', async (name, found) => {
    const variables = Object.fromEntries(readFileSync(join(work, 'variables'), 'utf8').trim().split('\n').map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
    const sites = curlSites(found);
    const statusLog = join(work, `${name}-statuses`);
    writeFileSync(statusLog, '');
    const script = readmeScript(found, {
      replacements: [
        ['http://127.0.0.1:3000', api],
        ['127.0.0.1:7233', process.env.TEMPORAL_ADDRESS!],
      ],
      statusLog,
      backgroundDir: work,
      variablesFile: join(work, `${name}-variables`),
      variables: ['ORG'],
    });
    writeFileSync(join(work, `${name}.sh`), script);
    const run = spawn('bash', [join(work, `${name}.sh`)], {
      cwd: projectRoot,
      env: { ...newcomerEnv(), PORT: String(port), TOKEN: await freshToken(), ORG: variables.ORG, QUOTE: variables.QUOTE },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let shell = '';
    run.stdout!.on('data', (c: Buffer) => (shell += c.toString()));
    run.stderr!.on('data', (c: Buffer) => (shell += c.toString()));
    const code = await new Promise<number | null>((resolve) => run.once('exit', resolve));
    if (code !== 0) throw new Error(`docs/${name}'s commands failed (exit ${code}):\n${shell.slice(-6000)}`);
    const statuses = readFileSync(statusLog, 'utf8').split('\n').filter((line) => line !== '');
    expect(statuses.length).toBe(sites.length);
    const wrong = sites
      .map((site, i) => ({ line: site.line, announced: site.expected, got: Number(statuses[i]) }))
      .filter(({ announced, got }) => (announced === null ? got < 200 || got > 299 : got !== announced));
    expect(wrong).toEqual([]);
    // What each printed, where it says something of its own.
    if (name === 'graphql.md') expect(shell).toMatch(/"workOrders":\{"nodes":\[/);
    if (name === 'workflow-versioning.md') expect(shell.match(/^Total: \d+$/gm)?.length).toBe(3);
  }, 120_000);
});

/** This stack's processes: every process whose environment carries its task queue (the API, the worker, the mail catcher). */
function processesOfThisStack(): { pid: number; command: string }[] {
  const marker = `TEMPORAL_TASK_QUEUE=readme-test-${port}\0`;
  const found: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || pid === stack?.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').includes(marker)) continue;
      found.push({ pid, command: readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim() });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

describe('stopping npm start', () => {
  it('stops every process it started, a worker its supervisor restarted after a crash included', async () => {
    const worker = () => processesOfThisStack().find((p) => p.command.includes('worker/main.ts'));
    const first = worker();
    expect(first).toBeDefined();
    process.kill(first!.pid, 'SIGKILL');
    await waitUntil('the supervisor to restart the worker', () => output.includes('worker exited unexpectedly') && worker()?.pid !== first!.pid && worker(), { timeoutMs: 30_000 });
    // Stop while the restarted worker is still starting up (bundling its workflows), the case that once outlived the stop.
    const exited = new Promise<number | null>((resolve) => stack!.once('exit', resolve));
    stack!.kill('SIGINT');
    expect(await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('still running after 40 s'), 40_000).unref())])).toBe(0);
    expect(processesOfThisStack()).toEqual([]);
  }, 90_000);
});
