import { performance } from 'node:perf_hooks';
import { loadDotEnv } from './infra/dotenv';
import { provideDatabase } from './infra/database';
import { provideTemporal } from './infra/temporal';
import { developmentSecrets } from './infra/secrets';
import { startService } from './infra/processes';
import { Supervisor } from './infra/supervisor';
import { launchedAt, readyIn, say, step } from './infra/log';
import { migrate } from '../db/migrate';
import { seedSandbox } from '../db/seed';
import { loadSettings } from '../infra/runtime/settings';
import { redirectUri } from '../infra/integrations/providers';
import { runRoundTrip } from './infra/round-trip';
import { sandboxesWanted, startSandboxes, type RunningSandboxes } from './sandboxes/sandboxes';
import { startBanner } from './infra/start-banner';
import { startMailCatcher, type MailCatcher } from './infra/mail-catcher';

/**
 * `npm start`: everything a newcomer needs, in the foreground. PostgreSQL and Temporal unless
 * configured, migrations, the D1 sandbox seed, a local sandbox of each provider without keys,
 * then the worker and the API. One line per step with its time, then a banner saying what to
 * try first. Ctrl-C stops what this started, in reverse order: the API and the worker first
 * (each removes its running_releases row on the way out), PostgreSQL last. bootstrap.mjs runs
 * this in a process group of its own, so that the terminal's Ctrl-C reaches this process only,
 * not PostgreSQL or Temporal directly.
 */
loadDotEnv();
// The ready time counts from the user's command (bootstrap.mjs's start), the install included.
const launch = launchedAt(process.env, performance.now());
const cleanups: (() => Promise<void>)[] = [];
let shuttingDown = false;

async function shutdown(code: number): Promise<never> {
  if (!shuttingDown) {
    shuttingDown = true;
    say('stopping ...');
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => say(`while stopping: ${String(error)}`));
    say('stopped');
  }
  process.exit(code);
}
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown(0));
// A parent that dies without a word (bootstrap.mjs killed) leaves this process to init: stop too,
// in order, rather than run on unseen.
const parentPid = process.ppid;
setInterval(() => {
  if (process.ppid !== parentPid) void shutdown(0);
}, 1000).unref();

/** Development conveniences, each only where the environment does not say otherwise. */
function developmentDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  if (env.NODE_ENV === 'production') return {};
  const defaults: Record<string, string> = {};
  // Request logs stay available (LOG_LEVEL=info npm start); by default the terminal stays readable.
  if (!env.LOG_LEVEL) defaults.LOG_LEVEL = 'warn';
  // D6's narrow development allowance: deliveries to loopback receivers (npm run webhooks:listen).
  if (!env.OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK) defaults.OUTBOUND_WEBHOOKS_ALLOW_LOOPBACK = 'true';
  return defaults;
}

try {
  const database = await step('PostgreSQL', () => provideDatabase({ purpose: 'start', databaseName: 'shade_office' }), (d) => d.description);
  cleanups.push(() => database.stop());
  const temporal = await step('Temporal', () => provideTemporal({ purpose: 'start' }), (t) => t.description);
  cleanups.push(() => temporal.stop());

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...developmentSecrets(),
    ...developmentDefaults(process.env),
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
  };
  const base = loadSettings(env);
  await step('migrations', () => migrate(base.DATABASE_URL, { api: base.DATABASE_APP_PASSWORD, worker: base.DATABASE_WORKER_PASSWORD }));
  if (base.SEED_SANDBOX) await step('sandbox tenants (D1 seed)', () => seedSandbox(base.DATABASE_URL));

  const wanted = sandboxesWanted(env);
  let sandboxes: RunningSandboxes | undefined;
  if (wanted.length > 0) {
    sandboxes = await step(
      'provider sandboxes',
      () =>
        startSandboxes({
          slugs: wanted,
          redirectUri: (provider) => redirectUri(base, provider),
          basePort: Number(env.PROVIDER_SANDBOX_PORT ?? 4010),
          paymentsWebhookUrl: `http://127.0.0.1:${base.PORT}/api/v1/integrations/payments/webhook`,
          // The operator's secret (a value or PAYMENTS_WEBHOOK_SECRET_FILE) wins over the sandbox's own.
          paymentsWebhookSecret: base.PAYMENTS_WEBHOOK_SECRET,
        }),
      (s) => s.endpoints.map((e) => `${e.slug} ${e.url}`).join(', '),
    );
    cleanups.push(() => sandboxes!.close());
  }
  Object.assign(env, sandboxes?.env ?? { PROVIDER_SANDBOXES: '' });

  // D13: mail goes to a local catcher with a web UI unless SMTP_URL names a server (never in production).
  let mailCatcher: MailCatcher | undefined;
  if (!env.SMTP_URL && env.NODE_ENV !== 'production' && env.MAIL_CATCHER !== 'false') {
    mailCatcher = await step(
      'mail catcher (MailDev)',
      () => startMailCatcher({ smtp: Number(env.MAIL_CATCHER_SMTP_PORT || 1025), web: Number(env.MAIL_CATCHER_PORT || 1080) }),
      (m) => `${m.webUrl}, SMTP ${m.smtpUrl}`,
    );
    cleanups.push(() => mailCatcher!.stop());
    env.SMTP_URL = mailCatcher.smtpUrl;
  }
  const settings = loadSettings(env);

  // A process that crashes is restarted with backoff (scripts/infra/supervisor.ts); only one that
  // keeps crashing stops the stack. Each process is given its own database role's password.
  const { DATABASE_WORKER_PASSWORD: _workerPassword, DATABASE_WORKER_PASSWORD_FILE: _workerPasswordFile, ...apiEnv } = env;
  const { DATABASE_APP_PASSWORD: _apiPassword, DATABASE_APP_PASSWORD_FILE: _apiPasswordFile, ...workerEnv } = env;
  const supervise = (name: string, entry: string, processEnv: NodeJS.ProcessEnv) => {
    const supervisor = new Supervisor({
      name,
      // Full JSON lines with LOG_LEVEL=debug or trace (and in production); readable lines otherwise.
      start: () => startService(entry, processEnv, /^(debug|trace)$/.test(processEnv.LOG_LEVEL ?? '') || processEnv.NODE_ENV === 'production' ? {} : { readableAs: name }),
      say,
      onGiveUp: () => {
        say(`stopping the stack: ${name} keeps crashing (its output above says why)`);
        void shutdown(1);
      },
    });
    cleanups.push(() => supervisor.stop());
    supervisor.start();
  };
  const api = `http://127.0.0.1:${settings.PORT}`;
  await step('worker and API (bundling the workflows takes a few seconds)', async () => {
    supervise('worker', 'worker/main.ts', workerEnv);
    supervise('api', 'api/main.ts', apiEnv);
    // A workflow round trip proves the worker polls; the health check, that the API answers.
    await runRoundTrip({ address: temporal.address, namespace: temporal.namespace, taskQueue: settings.TEMPORAL_TASK_QUEUE });
    await waitForHealth(`${api}/api/health`);
  }, () => `a workflow round trip completed, ${api} answers`);

  process.stderr.write(startBanner({ api, settings, temporalUiUrl: temporal.uiUrl, sandboxes: sandboxes?.endpoints ?? [], mailCatcherUrl: mailCatcher?.webUrl, readyIn: readyIn(launch, performance.now()) }));
} catch (error) {
  say(`start-up failed: ${error instanceof Error ? error.message : String(error)}`);
  await shutdown(1);
}

async function waitForHealth(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
