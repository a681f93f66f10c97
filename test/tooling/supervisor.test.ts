import { afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Supervisor } from '../../scripts/infra/supervisor';
import { waitUntil } from '../../scripts/harness/wait-until';

/**
 * A crash of the worker must not stop the whole `npm start` stack. The launcher's supervisor
 * restarts a crashed process with backoff and says so, and gives up only on repeated crashes.
 * Real child processes: each run appends a line to a file, and crashes while told to.
 */
let folder: string | undefined;
let supervisor: Supervisor | undefined;
afterEach(async () => {
  await supervisor?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/**
 * A process that records its start and exits with code 1 for its first `crashes` runs, then
 * stays up and says so (its file `up`): from then on only a stop can end it.
 */
function flaky(crashes: number) {
  folder = mkdtempSync(join(tmpdir(), 'supervisor-'));
  const log = join(folder, 'runs');
  const up = join(folder, 'up');
  const script = `
    const fs = require('node:fs');
    fs.appendFileSync(${JSON.stringify(log)}, Date.now() + '\\n');
    const runs = fs.readFileSync(${JSON.stringify(log)}, 'utf8').trim().split('\\n').length;
    if (runs <= ${crashes}) setTimeout(() => process.exit(1), 20);
    else {
      setInterval(() => undefined, 1000);
      fs.writeFileSync(${JSON.stringify(up)}, String(process.pid));
    }
  `;
  return {
    start: () => spawn(process.execPath, ['-e', script], { stdio: 'ignore' }),
    stayingUp: () => existsSync(up),
    runs: () => {
      try {
        return readFileSync(log, 'utf8').trim().split('\n').map(Number);
      } catch {
        return [];
      }
    },
  };
}


describe('the npm start supervisor (scripts/infra/supervisor.ts)', () => {
  it('restarts a crashed process after a growing delay, says so, and keeps the one that stays up', async () => {
    const process_ = flaky(3);
    const lines: string[] = [];
    let gaveUp = false;
    supervisor = new Supervisor({ name: 'worker', start: process_.start, say: (l) => lines.push(l), onGiveUp: () => (gaveUp = true), initialDelayMs: 200, maxCrashes: 5, windowMs: 60_000 });
    supervisor.start();
    // Settled: the fourth run stays up and no restart is scheduled, so nothing more can start.
    await waitUntil('the fourth run to stay up', () => process_.stayingUp(), { timeoutMs: 10_000, intervalMs: 20 });
    expect(supervisor.restartPending).toBe(false);
    expect(process_.runs()).toHaveLength(4);
    expect(supervisor.current?.exitCode).toBeNull();
    expect(gaveUp).toBe(false);
    expect(lines).toEqual([
      'worker exited unexpectedly (code 1); restarting it in 200 ms (crash 1 of 5 allowed in 60 s)',
      'worker restarted',
      'worker exited unexpectedly (code 1); restarting it in 400 ms (crash 2 of 5 allowed in 60 s)',
      'worker restarted',
      'worker exited unexpectedly (code 1); restarting it in 800 ms (crash 3 of 5 allowed in 60 s)',
      'worker restarted',
    ]);
    // The backoff is real: each restart waited at least its delay after the previous start.
    const [a, b, c, d] = process_.runs() as [number, number, number, number];
    expect(b - a).toBeGreaterThanOrEqual(200);
    expect(c - b).toBeGreaterThanOrEqual(400);
    expect(d - c).toBeGreaterThanOrEqual(800);
  }, 30_000);

  it('gives up after repeated crashes inside the window, and starts nothing more', async () => {
    const process_ = flaky(1000);
    const lines: string[] = [];
    let gaveUp = 0;
    supervisor = new Supervisor({ name: 'api', start: process_.start, say: (l) => lines.push(l), onGiveUp: (n) => (gaveUp = n), initialDelayMs: 20, maxCrashes: 3, windowMs: 60_000 });
    supervisor.start();
    await waitUntil('the supervisor to give up', () => gaveUp > 0, { timeoutMs: 10_000, intervalMs: 20 });
    // Given up: no instance runs and no restart is scheduled, so nothing more can start.
    expect(supervisor.current).toBeUndefined();
    expect(supervisor.restartPending).toBe(false);
    expect(gaveUp).toBe(3);
    expect(process_.runs()).toHaveLength(3);
    expect(lines[lines.length - 1]).toBe('api exited unexpectedly (code 1), 3 times in 60 s: not restarting it again');
  }, 30_000);

  it('a stop asked for is not a crash: the process ends and is not started again', async () => {
    const process_ = flaky(0);
    const lines: string[] = [];
    supervisor = new Supervisor({ name: 'worker', start: process_.start, say: (l) => lines.push(l), onGiveUp: () => undefined, initialDelayMs: 20 });
    supervisor.start();
    await waitUntil('the first run', () => process_.runs().length === 1, { timeoutMs: 10_000, intervalMs: 20 });
    const child = supervisor.current!;
    await supervisor.stop();
    expect(child.exitCode !== null || child.signalCode !== null).toBe(true);
    expect(supervisor.current).toBeUndefined();
    expect(supervisor.restartPending).toBe(false);
    expect(process_.runs()).toHaveLength(1);
    expect(lines).toEqual([]);
  }, 30_000);
});
