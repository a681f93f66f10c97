/**
 * Operator-command benchmark (a script, not a test): the wall time of `npm run ops` as an operator
 * types it (npm, then plain node on the bundle scripts/ops-bundle.mjs keeps), beside the same
 * command run by tsx from the sources (how `npm run ops` ran before the bundle).
 * Targets (docs/operations.md, "Operator commands"): `--help` under 1 s and `tenant list` under
 * 2 s, on the median of BENCH_RUNS runs each; the script exits 1 when one is missed.
 *
 *   npm run bench:ops     # BENCH_RUNS (default 7)
 *
 * Self-contained: its own migrated, seeded database on the embedded PostgreSQL (or DATABASE_URL's
 * server), which `tenant list` reads; no Temporal (neither command calls it).
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { provideDatabase } from '../scripts/infra/database';
import { projectRoot } from '../scripts/infra/paths';
import { dropDatabase, migrate } from '../db/migrate';
import { seedSandbox } from '../db/seed';
import { currentOpsBundle } from '../scripts/ops-bundle.mjs';

const runs = Number(process.env.BENCH_RUNS ?? 7);
const TARGET_SECONDS = { '--help': 1, 'tenant list': 2 } as const;
type Command = keyof typeof TARGET_SECONDS;

const database = await provideDatabase({ purpose: 'test', databaseName: `shade_bench_ops_${Date.now()}` });
try {
  await migrate(database.url, { api: randomBytes(12).toString('hex'), worker: randomBytes(12).toString('hex') });
  await seedSandbox(database.url);
  // The bundle as the first call after a change would build it, so the runs measure only the calls.
  const building = performance.now();
  await currentOpsBundle();
  console.log(`bundle current in ${((performance.now() - building) / 1000).toFixed(2)} s`);

  const env = { ...process.env, NODE_OPTIONS: '', DATABASE_URL: database.url, PATH: `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` };
  const ways = {
    'npm run ops (bundle)': (args: string[]) => ['npm', ['run', '--silent', 'ops', '--', ...args]] as const,
    'node --import tsx scripts/ops.ts': (args: string[]) => [process.execPath, ['--import', 'tsx', 'scripts/ops.ts', ...args]] as const,
  };
  const time = (command: string, args: readonly string[]): number => {
    const started = performance.now();
    const run = spawnSync(command, args, { cwd: projectRoot, env, encoding: 'utf8' });
    const seconds = (performance.now() - started) / 1000;
    if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${run.status}:\n${run.stdout}${run.stderr}`);
    return seconds;
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const results: Record<string, Record<Command, number[]>> = {};
  for (const command of Object.keys(TARGET_SECONDS) as Command[]) {
    // Interleaved, so that the machine's drift falls on both ways alike.
    for (let i = 0; i < runs; i++) {
      for (const [way, line] of Object.entries(ways)) {
        const [program, args] = line(command.split(' '));
        ((results[way] ??= { '--help': [], 'tenant list': [] })[command]).push(time(program, args));
      }
    }
  }
  console.log(`\nwall time of one call (s), median of ${runs} [min-max]\n`);
  console.log(`${''.padEnd(36)}${'--help'.padStart(20)}${'tenant list'.padStart(20)}`);
  const cell = (values: number[]) => `${median(values).toFixed(2)} [${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)}]`.padStart(20);
  for (const [way, figures] of Object.entries(results)) console.log(`${way.padEnd(36)}${cell(figures['--help'])}${cell(figures['tenant list'])}`);
  console.log('');
  const bundle = results['npm run ops (bundle)']!;
  for (const command of Object.keys(TARGET_SECONDS) as Command[]) {
    const met = median(bundle[command]) < TARGET_SECONDS[command];
    console.log(`target: npm run ops -- ${command} under ${TARGET_SECONDS[command]} s: ${met ? 'met' : 'missed'} (${median(bundle[command]).toFixed(2)} s)`);
    if (!met) process.exitCode = 1;
  }
} finally {
  if (!database.embedded) await dropDatabase(database.url);
  await database.stop();
}
