/**
 * How long the two test loops take on this machine, measured as a developer runs them: `npm run
 * test:unit` (nothing started; target: under 60 s) and, with `--full`, `npm test` (the whole
 * suite; target: no slower than the 439 s of Jest the suite took before the pure tests moved
 * to `domain/`, on the same kind of 2-core machine). Each loop runs `--runs` times (default 3)
 * one after another; the bench prints every run, the median, and PASS or FAIL against the target,
 * and exits 1 when a target is missed or a run fails.
 *
 *   npm run bench:test-loop
 *   npm run bench:test-loop -- --full --runs 1
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../scripts/infra/paths';

const args = process.argv.slice(2);
const full = args.includes('--full');
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs takes a whole number of at least 1');

interface Loop {
  name: string;
  command: string[];
  /** The target, in seconds, and what it is measured on. */
  targetSeconds: number;
  measure: 'wall' | 'jest';
}

const LOOPS: Loop[] = [
  { name: 'npm run test:unit', command: ['scripts/bootstrap.mjs', 'unit'], targetSeconds: 60, measure: 'wall' },
  ...(full ? [{ name: 'npm test', command: ['scripts/bootstrap.mjs', 'test'], targetSeconds: 439, measure: 'jest' } satisfies Loop] : []),
];

/** Runs one loop; answers its wall time and the time Jest reports ("Time: 419.2 s"). */
function timed(loop: Loop): Promise<{ wallSeconds: number; jestSeconds: number | null; code: number }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, loop.command, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PATH: `${join(projectRoot, 'node_modules', '.bin')}:${process.env.PATH ?? ''}` } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const wallSeconds = Number(process.hrtime.bigint() - started) / 1e9;
      const jest = /^Time:\s+([\d.]+) s/m.exec(output);
      if (code !== 0) process.stdout.write(output.slice(-4000));
      resolve({ wallSeconds, jestSeconds: jest ? Number(jest[1]) : null, code: code ?? 1 });
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
let failed = false;
for (const loop of LOOPS) {
  const figures: number[] = [];
  for (let run = 1; run <= runs; run += 1) {
    const result = await timed(loop);
    const figure = loop.measure === 'wall' ? result.wallSeconds : result.jestSeconds;
    console.log(`${loop.name}, run ${run}: ${result.code === 0 ? 'passed' : `FAILED (exit ${result.code})`}, wall ${result.wallSeconds.toFixed(1)} s, jest ${result.jestSeconds?.toFixed(1) ?? '?'} s`);
    if (result.code !== 0 || figure === null) failed = true;
    else figures.push(figure);
  }
  if (figures.length === 0) continue;
  const middle = median(figures);
  const verdict = middle <= loop.targetSeconds ? 'PASS' : 'FAIL';
  if (verdict === 'FAIL') failed = true;
  console.log(`${loop.name}: median ${loop.measure} time ${middle.toFixed(1)} s over ${figures.length} run${figures.length === 1 ? '' : 's'}; target at most ${loop.targetSeconds} s: ${verdict}`);
}
process.exit(failed ? 1 : 0);
