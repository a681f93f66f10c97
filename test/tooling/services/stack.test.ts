import { afterAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { freePort } from '../../../scripts/infra/free-port';
import { projectRoot } from '../../../scripts/infra/paths';
import { withDatabaseName } from '../../../db/database-urls';
import { dropDatabase } from '../../../db/migrate';
import { SANDBOX_PASSWORD } from '../../../db/sandbox';

/**
 * `npm start`'s launcher (scripts/start.ts) end to end, on the suite's PostgreSQL server and
 * Temporal (as when DATABASE_URL and TEMPORAL_ADDRESS are set): it migrates a new database,
 * seeds it, starts the worker and the API, proves a workflow round trip, says where everything
 * is, serves the sandbox login, and stops everything it started on SIGINT.
 */
const database = withDatabaseName(process.env.DATABASE_URL!, `shade_stack_${randomBytes(4).toString('hex')}`);
let child: ChildProcess | undefined;

afterAll(async () => {
  // On a failure, Ctrl-C first: SIGKILL would leave the worker and the API it started running.
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGINT');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 30_000).unref())]);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
  await dropDatabase(database);
}, 60_000);

describe('npm start (scripts/start.ts)', () => {
  it('brings the stack up, prints its addresses, and stops cleanly on Ctrl-C', async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: projectRoot,
      env: { ...process.env, DATABASE_URL: database, PORT: String(port), TEMPORAL_TASK_QUEUE: `stack-test-${port}`, PROVIDER_SANDBOX_PORT: '0', LOG_LEVEL: 'warn', NODE_OPTIONS: '',
        // D13: the mail catcher on any free ports, beside other runs on this machine.
        MAIL_CATCHER_PORT: '0', MAIL_CATCHER_SMTP_PORT: '0', SMTP_URL: '',
        // Real CRM keys (never used here: nothing connects): the CRM sandbox gives way, the others stay.
        PAYMENTS_SECRET_KEY: '', ACCOUNTING_CLIENT_ID: '', ACCOUNTING_CLIENT_SECRET: '', CRM_CLIENT_ID: 'crm-app-of-the-operator', CRM_CLIENT_SECRET: 'crm-app-secret' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));

    const deadline = Date.now() + 120_000;
    while (!output.includes('Shade Office is ready')) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the stack did not come up:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(output).toMatch(/\[setup\] migrations \.\.\. \d/);
    expect(output).toMatch(/\[setup\] sandbox tenants \(D1 seed\) \.\.\. \d/);
    expect(output).toContain('a workflow round trip completed');
    expect(output).toContain(`http://127.0.0.1:${port}/openapi.json`);
    expect(output).toMatch(/Temporal web UI\s+\S+/);
    expect(output).toContain(`Deliveries page   http://127.0.0.1:${port}/developer/webhooks`);
    // D13: a local mail catcher with a web UI, its address in the banner.
    const mailUi = /Mail\s+(http:\/\/127\.0\.0\.1:\d+)\s+\(local mail catcher/.exec(output)?.[1];
    expect(mailUi).toBeDefined();
    expect(output).toMatch(/\[setup\] mail catcher \(MailDev\) \.\.\. http:\/\/127\.0\.0\.1:\d+, SMTP smtp:\/\/127\.0\.0\.1:\d+/);
    const mailPage = await fetch(mailUi!, { headers: { accept: 'text/html' } });
    expect({ status: mailPage.status, html: (await mailPage.text()).includes('<title>MailDev</title>') }).toEqual({ status: 200, html: true });
    expect((await fetch(`${mailUi}/api/email`)).status).toBe(200);

    expect(output).toMatch(/payments\s+SANDBOX http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toMatch(/accounting\s+SANDBOX http:\/\/127\.0\.0\.1:\d+/);
    expect(output).toMatch(/crm\s+the real provider \(CRM_CLIENT_ID is set\)/);
    const connectors = (await (await fetch(`http://127.0.0.1:${port}/api/connectors`)).json()) as { connectors: { slug: string; summary: string }[] };
    expect(connectors.connectors.map((c) => [c.slug, c.summary.startsWith('Local sandbox')])).toEqual([['payments', true], ['accounting', true], ['crm', false]]);

    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);
    const login = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subdomain: 'sandbox', email: 'admin@sandbox.test', password: SANDBOX_PASSWORD }),
    });
    expect(login.status).toBe(200);

    // A crashed worker is restarted (with backoff, and said so), not the end of the stack.
    const worker = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(child.pid)], { encoding: 'utf8' })
      .split('\n')
      .find((line) => line.includes('worker/main.ts'));
    expect(worker).toBeDefined();
    process.kill(Number(worker!.trim().split(/\s+/)[0]), 'SIGKILL');
    while (!output.includes('worker restarted')) {
      if (Date.now() > deadline + 60_000 || child.exitCode !== null) throw new Error(`the worker was not restarted:\n${output}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(output).toContain('worker exited unexpectedly (signal SIGKILL); restarting it in 1 s');
    expect(child.exitCode).toBeNull();
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('[setup] stopped');
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
    await expect(fetch(`${mailUi}/api/email`)).rejects.toThrow();
  }, 180_000);
});
