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
  return formatSeconds(performance.now() - sinceMs);
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return s < 10 ? `${s.toFixed(1)} s` : `${Math.round(s)} s`;
}

/** When the user's command began, on this process's `performance.now()` clock, and how long its install took. */
export interface Launch {
  startedAt: number;
  installMs: number;
}

/**
 * The launch `npm start`'s ready time counts from: bootstrap.mjs's start (it passes the moment in
 * SHADE_OFFICE_LAUNCHED_AT, epoch ms, and its `npm ci` time in SHADE_OFFICE_INSTALL_MS), so the
 * figure is what the user waited, install included. Without them (this launcher started
 * directly), `now`. Both are taken out of `env`: processes started from here are not launches.
 */
export function launchedAt(env: NodeJS.ProcessEnv, now: number): Launch {
  const epoch = Number(env.SHADE_OFFICE_LAUNCHED_AT);
  const installMs = Number(env.SHADE_OFFICE_INSTALL_MS);
  delete env.SHADE_OFFICE_LAUNCHED_AT;
  delete env.SHADE_OFFICE_INSTALL_MS;
  const startedAt = epoch - performance.timeOrigin;
  // Not a moment of this run (a value left in a shell, a clock that jumped): count from now.
  if (!Number.isFinite(startedAt) || startedAt > now || now - startedAt > 86_400_000) return { startedAt: now, installMs: 0 };
  return { startedAt, installMs: Number.isFinite(installMs) && installMs > 0 ? installMs : 0 };
}

/** How long start-up took, for the banner: `48 s`, or `131 s, 83 s of it installing dependencies`. */
export function readyIn(launch: Launch, now: number): string {
  const total = formatSeconds(now - launch.startedAt);
  return launch.installMs > 0 ? `${total}, ${formatSeconds(launch.installMs)} of it installing dependencies` : total;
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
