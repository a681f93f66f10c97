import { performance } from 'node:perf_hooks';

/** Set-up messages for humans: short, prefixed, on stderr so stdout stays for the service. */
let openLine = false;

export function say(message: string): void {
  // A step still waiting for its time on this line gets its own line first.
  if (openLine) {
    process.stderr.write('\n');
    openLine = false;
  }
  process.stderr.write(`[setup] ${message}\n`);
}

export function seconds(sinceMs: number): string {
  const s = (performance.now() - sinceMs) / 1000;
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}

/**
 * One line per set-up step, ending with how long it took: `[setup] PostgreSQL ... 1.2 s`. On a
 * terminal the label shows while the step runs and its time is appended when it ends; elsewhere
 * (logs, CI) the whole line is written once the step is done. `describe` can name what the step
 * produced (`embedded, 127.0.0.1:54329`). A failure ends the line with `failed`.
 */
export async function step<T>(label: string, work: () => Promise<T>, describe?: (result: T) => string): Promise<T> {
  const started = performance.now();
  const live = process.stderr.isTTY === true;
  if (live) {
    process.stderr.write(`[setup] ${label} ...`);
    openLine = true;
  }
  const finish = (text: string) => {
    if (live && openLine) process.stderr.write(` ${text}\n`);
    else process.stderr.write(`[setup] ${label} ... ${text}\n`);
    openLine = false;
  };
  try {
    const result = await work();
    const detail = describe?.(result);
    finish(`${detail ? `${detail}, ` : ''}${seconds(started)}`);
    return result;
  } catch (error) {
    finish(`failed after ${seconds(started)}`);
    throw error;
  }
}
