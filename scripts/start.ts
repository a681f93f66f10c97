import { loadDotEnv } from './infra/dotenv';
import { provideDatabase } from './infra/database';
import { provideTemporal } from './infra/temporal';
import { developmentSecrets } from './infra/secrets';
import { startService } from './infra/processes';
import { Supervisor } from './infra/supervisor';
import { say } from './infra/log';
import { migrate } from '../db/migrate';
import { seedSandbox } from '../db/seed';
import { loadSettings } from '../api/settings';
import { runRoundTrip } from './infra/round-trip';

/**
 * `npm start`: everything a newcomer needs, in the foreground. PostgreSQL and Temporal unless
 * configured, migrations, the D1 sandbox seed, then the worker and the API. Ctrl-C stops what
 * this started, in reverse order.
 */
loadDotEnv();
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
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));

try {
  const database = await provideDatabase({ purpose: 'start', databaseName: 'shade_office' });
  cleanups.push(() => database.stop());
  const temporal = await provideTemporal({ purpose: 'start' });
  cleanups.push(() => temporal.stop());

  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...developmentSecrets(),
    DATABASE_URL: database.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_NAMESPACE: temporal.namespace,
  };
  const settings = loadSettings(env);
  say('applying migrations');
  await migrate(settings.DATABASE_URL, { api: settings.DATABASE_APP_PASSWORD, worker: settings.DATABASE_WORKER_PASSWORD });
  if (settings.SEED_SANDBOX) {
    say('seeding the sandbox tenants (D1)');
    await seedSandbox(settings.DATABASE_URL);
  }

  // A process that crashes is restarted with backoff (scripts/infra/supervisor.ts); only one that
  // keeps crashing stops the stack.
  // Each process is given its own database role's password, not the other's.
  const { DATABASE_WORKER_PASSWORD: _workerPassword, ...apiEnv } = env;
  const { DATABASE_APP_PASSWORD: _apiPassword, ...workerEnv } = env;
  const supervise = (name: string, entry: string, processEnv: NodeJS.ProcessEnv) => {
    const supervisor = new Supervisor({
      name,
      start: () => startService(entry, processEnv),
      say,
      onGiveUp: () => {
        say(`stopping the stack: ${name} keeps crashing (its output above says why)`);
        void shutdown(1);
      },
    });
    cleanups.push(() => supervisor.stop());
    supervisor.start();
  };
  say('starting the worker (bundling workflows takes a few seconds)');
  supervise('worker', 'worker/main.ts', workerEnv);
  supervise('api', 'api/main.ts', apiEnv);

  await runRoundTrip({ address: temporal.address, namespace: temporal.namespace, taskQueue: settings.TEMPORAL_TASK_QUEUE });
  const api = `http://127.0.0.1:${settings.PORT}`;
  await waitForHealth(`${api}/api/health`);
  process.stderr.write(
    [
      '',
      'Shade Office is up.',
      `  API               ${api}`,
      `  OpenAPI document  ${api}/openapi.json`,
      `  API reference     ${api}/docs`,
      `  Temporal web UI   ${temporal.uiUrl ?? '(not started here: TEMPORAL_ADDRESS is set)'}`,
      `  Sandbox login     workspace "sandbox", admin@sandbox.test / Sandbox!2026 (see README)`,
      'Press Ctrl-C to stop everything.',
      '',
    ].join('\n') + '\n',
  );
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
