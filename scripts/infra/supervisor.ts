import type { ChildProcess } from 'node:child_process';
import { stopService } from './processes';

export interface SupervisorOptions {
  /** What the messages call the process (`worker`, `api`). */
  name: string;
  /** Starts one instance of the process. */
  start: () => ChildProcess;
  say: (message: string) => void;
  /** Called once when the process keeps crashing; the supervisor has stopped restarting it. */
  onGiveUp: (crashes: number) => void;
  /** First restart delay; each further crash inside the window doubles it. */
  initialDelayMs?: number;
  maxDelayMs?: number;
  /** This many crashes within `windowMs` means the process cannot run: stop trying. */
  maxCrashes?: number;
  windowMs?: number;
}

/**
 * `npm start` keeps its worker and API running: a process that exits on its own is started
 * again after a backoff (1 s, 2 s, 4 s ... up to 30 s), and the terminal says so each time.
 * Only repeated crashes (five in two minutes) give up, since then something is wrong that a
 * restart will not fix. A stop asked for is never a crash.
 */
export class Supervisor {
  private child: ChildProcess | undefined;
  private crashes: number[] = [];
  private restartTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly initialDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly maxCrashes: number;
  private readonly windowMs: number;

  constructor(private readonly options: SupervisorOptions) {
    this.initialDelayMs = options.initialDelayMs ?? 1_000;
    this.maxDelayMs = options.maxDelayMs ?? 30_000;
    this.maxCrashes = options.maxCrashes ?? 5;
    this.windowMs = options.windowMs ?? 120_000;
  }

  /** The running instance, if any. */
  get current(): ChildProcess | undefined {
    return this.child;
  }

  /** Whether a restart is scheduled: with none and no running instance, nothing more will start. */
  get restartPending(): boolean {
    return this.restartTimer !== undefined;
  }

  start(): void {
    const child = this.options.start();
    this.child = child;
    child.once('exit', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (!this.stopping) this.crashed(code, signal);
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    if (this.child) await stopService(this.child);
  }

  private crashed(code: number | null, signal: NodeJS.Signals | null): void {
    const now = Date.now();
    this.crashes = [...this.crashes.filter((at) => now - at < this.windowMs), now];
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (this.crashes.length >= this.maxCrashes) {
      this.options.say(`${this.options.name} exited unexpectedly (${how}), ${this.crashes.length} times in ${Math.round(this.windowMs / 1000)} s: not restarting it again`);
      this.options.onGiveUp(this.crashes.length);
      return;
    }
    const delay = Math.min(this.maxDelayMs, this.initialDelayMs * 2 ** (this.crashes.length - 1));
    this.options.say(`${this.options.name} exited unexpectedly (${how}); restarting it in ${formatDelay(delay)} (crash ${this.crashes.length} of ${this.maxCrashes} allowed in ${Math.round(this.windowMs / 1000)} s)`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      this.start();
      this.options.say(`${this.options.name} restarted`);
    }, delay);
  }
}

const formatDelay = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(ms % 1000 ? 1 : 0)} s` : `${ms} ms`);
