/**
 * Memory benchmark (a script, not a test): the resident memory of the API and the worker
 * processes as the image runs them (compiled by tsc as scripts/container/Dockerfile does, run by
 * plain node with docker-compose.yml's command lines and the image's environment), at ready and after BENCH_APPROVALS
 * approvals (default 1,000), beside the same figures of the tsx processes `npm start` runs.
 * Targets (docs/operations.md, sizing a replica): API at most 200 MB, worker at most 300 MB,
 * printed as met or missed for the compiled processes (the ones a deployment runs), on their peak
 * (at ready and after the approvals alike); and each mode's throughput (approvals a second) beside
 * its memory, the compiled at least the tsx one (production is never slower than development:
 * a heap sized too tight spends the time in garbage collection). bench/memory-report.ts judges;
 * the script exits 1 when a target is missed.
 *
 *   npm run bench:memory     # BENCH_APPROVALS (1000), BENCH_CONCURRENCY (8), BENCH_COMPILED_ONLY=1 (skips the tsx processes),
 *                            # BENCH_TSX_FIRST=1, BENCH_API_V8_FLAGS / BENCH_WORKER_V8_FLAGS (other heap flags than the compose file's)
 *
 * Self-contained like `npm test`: its own PostgreSQL and Temporal development server, the payments
 * fake on 127.0.0.1; the compiled output goes to a temporary folder and is removed afterwards.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync, statSync } from 'node:fs';
import { parse } from 'yaml';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { withSelfContainedStack } from '../scripts/infra/self-contained';
import { projectRoot } from '../scripts/infra/paths';
import { peakResidentKiB, residentKiB } from '../scripts/infra/peak-memory';
import { freePort, waitForPort } from '../scripts/infra/free-port';
import { SERVICE_NODE_ARGS } from '../scripts/infra/processes';
import { memoryReport, type ModeFigures } from './memory-report';

const approvals = Number(process.env.BENCH_APPROVALS ?? 1000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
/**
 * Other V8 heap flags for the compiled processes than docker-compose.yml's (to size a replica
 * before changing the file): e.g. BENCH_WORKER_V8_FLAGS="--max-semi-space-size=4 --max-old-space-size=320".
 */
const V8_FLAGS = { api: process.env.BENCH_API_V8_FLAGS, worker: process.env.BENCH_WORKER_V8_FLAGS };
const KEY = 'sk_test_benchMemory0001';
/** The folders the Dockerfile copies non-TypeScript assets from into dist/. */
const ASSET_DIRS = ['api', 'activities', 'infra', 'db', 'domain', 'worker', 'workflows'];

/**
 * The image's build steps into a temporary folder: tsc with the image's configuration (plus the
 * loopback-only API entry the harnesses use), the assets copied beside the output, the project's
 * package.json (ESM) and node_modules reachable from it as in /app, and the workflows bundled.
 */
function compileAsTheImage(): { root: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'shade-memory-'));
  const dist = join(root, 'dist');
  const build = join(projectRoot, 'scripts/container/tsconfig.build.json');
  const tsconfig = join(root, 'tsconfig.json');
  writeFileSync(tsconfig, JSON.stringify({
    extends: build,
    // Type packages are looked up beside the configuration: point them at the project's.
    compilerOptions: { outDir: dist, rootDir: projectRoot, tsBuildInfoFile: join(root, 'tsbuildinfo'), typeRoots: [join(projectRoot, 'node_modules/@types')] },
    // The image's entries, and scripts/harness/api-process.ts: api/process.ts on 127.0.0.1 only.
    include: [...ASSET_DIRS, 'scripts/migrate.ts', 'scripts/worker-health.ts', 'scripts/harness/api-process.ts'].map((p) => join(projectRoot, p)),
    exclude: [join(projectRoot, 'node_modules')],
  }));
  const started = performance.now();
  execFileSync(process.execPath, [join(projectRoot, 'node_modules/typescript/bin/tsc'), '-p', tsconfig], { stdio: 'inherit' });
  for (const dir of ASSET_DIRS) {
    cpSync(join(projectRoot, dir), join(dist, dir), { recursive: true, filter: (src) => statSync(src).isDirectory() || !src.endsWith('.ts') });
  }
  copyFileSync(join(projectRoot, 'package.json'), join(root, 'package.json'));
  symlinkSync(join(projectRoot, 'node_modules'), join(root, 'node_modules'), 'dir');
  // The build stage's last step: the workflows bundled once, which the compiled worker loads.
  execFileSync(process.execPath, ['--import', pathToFileURL(join(projectRoot, 'scripts/container/extensionless.mjs')).href, 'dist/worker/bundle-workflows.js'], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_OPTIONS: '' } });
  console.log(`compiled as the image does in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

interface Mode {
  name: string;
  cwd: string;
  env?: Record<string, string>;
  args: (entry: string) => string[];
}

interface Figures {
  apiReadyKiB: number;
  workerReadyKiB: number;
  apiAfterKiB: number;
  workerAfterKiB: number;
  apiPeakKiB: number;
  workerPeakKiB: number;
  seconds: number;
}

/**
 * The final stage's ENV of scripts/container/Dockerfile (MALLOC_ARENA_MAX), as the image's
 * processes have it; not NODE_ENV=production, which asks for production secrets this loopback
 * stack does not have (and changes nothing of memory).
 */
function imageEnvironment(): Record<string, string> {
  const dockerfile = readFileSync(join(projectRoot, 'scripts/container/Dockerfile'), 'utf8');
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const pairs = [...finalStage.matchAll(/^ENV (.+)$/gm)].flatMap((m) => m[1]!.trim().split(/\s+/)).map((pair) => pair.split('=') as [string, string]);
  return Object.fromEntries(pairs.filter(([name]) => name !== 'NODE_ENV'));
}

/** The V8 heap and the memory outside it, from a process's Prometheus metrics (prom-client's defaults). */
async function heapFigures(port: number): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN) / 1048576;
  const spaces = [...text.matchAll(/^nodejs_heap_space_size_used_bytes\{space="(\w+)"[^}]*\} (\S+)$/gm)].map((m) => `${m[1]} ${(Number(m[2]) / 1048576).toFixed(1)}`);
  return `resident ${value('process_resident_memory_bytes').toFixed(1)} MiB; V8 heap used ${value('nodejs_heap_size_used_bytes').toFixed(1)} of ${value('nodejs_heap_size_total_bytes').toFixed(1)} (${spaces.join(', ')}); external ${value('nodejs_external_memory_bytes').toFixed(1)}`;
}

/**
 * A service's command line in docker-compose.yml (the image's), as arguments of this Node: its
 * V8 flags and preloads kept, the resolver found in the project, and the entry replaced.
 */
function composeCommand(service: 'api' | 'worker', entry: string): string[] {
  const compose = parse(readFileSync(join(projectRoot, 'docker-compose.yml'), 'utf8')) as { services: Record<string, { command: string[] }> };
  const [node, ...args] = compose.services[service]!.command;
  if (node !== 'node' || !/^dist\/.+\.js$/.test(args.at(-1) ?? '')) throw new Error(`unexpected command of ${service} in docker-compose.yml: ${JSON.stringify(compose.services[service]!.command)}`);
  const override = V8_FLAGS[service]?.split(/\s+/).filter(Boolean);
  // The heap flags replaced when asked; the preloads and the entry as the file has them.
  const kept = override ? [...override, ...args.slice(0, -1).filter((arg) => !/^--max-(semi|old)-space-size=/.test(arg))] : args.slice(0, -1);
  return [...kept.map((arg) => (arg === './scripts/container/extensionless.mjs' ? pathToFileURL(join(projectRoot, 'scripts/container/extensionless.mjs')).href : arg)), entry];
}

await withSelfContainedStack('bench_memory', async () => {
  const { Client, Connection } = await import('@temporalio/client');
  const { StripeFake } = await import('../scripts/sandboxes/stripe-fake');
  const { RetryingClient } = await import('../scripts/harness/retrying-client');
  const { approveQuote } = await import('../scripts/harness/crash-workload');
  const { ownerPool, sandboxUser } = await import('../scripts/harness/owner-db');
  const { TokenService } = await import('../api/auth/tokens');
  const { approvalWorkflowId } = await import('../infra/temporal/contracts');

  const compiled = compileAsTheImage();
  const fake = new StripeFake({ apiKeys: [KEY] });
  const { url: paymentsUrl, close: closeFake } = await fake.start();
  const owner = ownerPool();
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const temporal = new Client({ connection, namespace: process.env.TEMPORAL_NAMESPACE ?? 'default' });
  const issue = new TokenService(process.env.AUTH_TOKEN_SECRET!);
  const token = async (email: string) => {
    const user = await sandboxUser(owner, 'sandbox', email);
    return issue.issue({ userId: user.id, organizationId: user.organizationId, role: user.role });
  };
  const tokens = { sales: await token('sales@sandbox.test'), admin: await token('admin@sandbox.test') };

  const modes = ([
    {
      name: 'compiled (as the image)',
      cwd: compiled.root,
      // The command lines of docker-compose.yml's api and worker services (the heap sizes, the
      // extensionless resolver, the tracing preload), with the API's loopback-only entry.
      env: imageEnvironment(),
      args: (entry) => composeCommand(entry === 'worker/main' ? 'worker' : 'api', `dist/${entry}.js`),
    },
    { name: 'tsx (npm start)', cwd: projectRoot, args: (entry) => [...SERVICE_NODE_ARGS, `${entry}.ts`] },
  ] as Mode[]).filter((mode) => !process.env.BENCH_COMPILED_ONLY || mode.cwd === compiled.root);

  const measure = async (mode: Mode): Promise<Figures> => {
    const [apiPort, workerMetricsPort, apiMetricsPort] = [await freePort(), await freePort(), await freePort()];
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_OPTIONS: '',
      TEMPORAL_TASK_QUEUE: `bench-memory-${randomBytes(4).toString('hex')}`,
      PAYMENTS_SECRET_KEY: KEY,
      PAYMENTS_API_BASE_URL: paymentsUrl,
      LOG_LEVEL: 'warn',
    };
    const start = (entry: string, extra: NodeJS.ProcessEnv): ChildProcess =>
      spawn(process.execPath, mode.args(entry), { cwd: mode.cwd, env: { ...env, ...mode.env, ...extra }, stdio: ['ignore', 'inherit', 'inherit'] });
    const worker = start('worker/main', { WORKER_METRICS_PORT: String(workerMetricsPort), METRICS_HOST: '127.0.0.1' });
    const api = start('scripts/harness/api-process', { PORT: String(apiPort), METRICS_PORT: String(apiMetricsPort), METRICS_HOST: '127.0.0.1', TRUST_PROXY_HOPS: '1' });
    const stop = async (child: ChildProcess) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    };
    try {
      // The worker serves its metrics port once built (workflows bundled), just before it polls.
      const exited = (child: ChildProcess, role: string) =>
        new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`the ${mode.name} ${role} exited while starting (${signal ?? code})`))));
      await Promise.race([
        Promise.all([waitForPort(workerMetricsPort, '127.0.0.1', 180_000), waitForPort(apiPort, '127.0.0.1', 120_000)]),
        exited(worker, 'worker'),
        exited(api, 'API'),
      ]);
      // Settled at ready: a moment for start-up garbage to be collected as it would be idle.
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      const apiReadyKiB = residentKiB(api.pid!)!;
      const workerReadyKiB = residentKiB(worker.pid!)!;

      const client = new RetryingClient(`http://127.0.0.1:${apiPort}`);
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < approvals) {
            const i = next++;
            const quote = await approveQuote(client, tokens, { name: `Memory Customer ${i}`, email: `memory-${i}-${randomBytes(3).toString('hex')}@example.test` }, 'calculate', `memory-${i}`);
            // Each approval to its end (invoice finalised at the fake), so the worker did all of it.
            await temporal.workflow.getHandle(approvalWorkflowId(quote.quoteId)).result();
          }
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      // Where the resident memory is, as each process's own metrics tell it.
      for (const [role, port] of [['API', apiMetricsPort], ['worker', workerMetricsPort]] as const) {
        console.log(`${mode.name} ${role} after: ${await heapFigures(port)}`);
      }
      return {
        apiReadyKiB,
        workerReadyKiB,
        apiAfterKiB: residentKiB(api.pid!)!,
        workerAfterKiB: residentKiB(worker.pid!)!,
        apiPeakKiB: peakResidentKiB(api.pid!)!,
        workerPeakKiB: peakResidentKiB(worker.pid!)!,
        seconds,
      };
    } finally {
      await Promise.all([stop(api), stop(worker)]);
    }
  };

  try {
    const results: [Mode, Figures][] = [];
    // BENCH_TSX_FIRST=1 runs the tsx processes first: the mode that runs first meets the colder
    // database and Temporal server, so a close throughput comparison is worth making both ways.
    for (const mode of process.env.BENCH_TSX_FIRST ? [...modes].reverse() : modes) {
      console.log(`\n${mode.name}: starting the API and the worker, then ${approvals} approvals, ${concurrency} at a time${mode.cwd === compiled.root ? ` (${composeCommand('api', 'x').slice(0, -1).filter((a) => a.startsWith('--max')).join(' ')} / ${composeCommand('worker', 'x').slice(0, -1).filter((a) => a.startsWith('--max')).join(' ')})` : ''}`);
      const figures = await measure(mode);
      console.log(`${mode.name}: ${approvals} approvals in ${figures.seconds.toFixed(1)} s (${(approvals / figures.seconds).toFixed(2)} approvals/s)`);
      results.push([mode, figures]);
    }
    const report = memoryReport(results.map(([mode, f]): ModeFigures => ({ name: mode.name, compiled: mode.cwd === compiled.root, approvals, ...f })));
    console.log(`\n${report.lines.join('\n')}`);
    if (!report.met) process.exitCode = 1;
  } finally {
    await connection.close();
    await closeFake();
    await owner.end();
    compiled.cleanup();
  }
});
