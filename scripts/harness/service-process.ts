import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../infra/paths';
import { SERVICE_NODE_ARGS } from '../infra/processes';
import { peakResidentKiB } from '../infra/peak-memory';

export interface ServiceProcessOptions {
  /** What it hosts ("API", "worker"), for reports. */
  role: string;
  /** The TypeScript entry point, relative to the project root. */
  entry: string;
  env: NodeJS.ProcessEnv;
  /** Resolves once the process serves (a port answers); rejects after `timeoutMs`. */
  ready: (timeoutMs: number) => Promise<void>;
  /** How long a start may take before it counts as failed (the worker bundles its workflows first). */
  readyTimeoutMs?: number;
}

/**
 * One of our service processes (API or worker) that a crash campaign kills with SIGKILL and
 * starts again, as a supervisor would. A killed process's resident high-water mark (VmHWM) goes
 * with it, so it is read just before each kill; `peakKiB` is the largest over every incarnation.
 */
export class ServiceProcess {
  private child: ChildProcess | undefined;
  private peak = 0;
  kills = 0;
  starts = 0;

  constructor(private readonly options: ServiceProcessOptions) {}

  get role(): string {
    return this.options.role;
  }

  get pid(): number | undefined {
    return this.alive ? this.child!.pid : undefined;
  }

  get alive(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async start(): Promise<void> {
    if (this.alive) throw new Error(`${this.role} is already running`);
    const child = spawn(process.execPath, [...SERVICE_NODE_ARGS, this.options.entry], {
      cwd: projectRoot,
      // Jest's --experimental-vm-modules is the test runner's, not the service's.
      env: { ...this.options.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    this.child = child;
    this.starts++;
    const exited = new Promise<never>((_, reject) => child.once('exit', (code, signal) => reject(new Error(`${this.role} exited while starting (${signal ?? code})`))));
    exited.catch(() => undefined);
    await Promise.race([this.options.ready(this.options.readyTimeoutMs ?? 120_000), exited]);
  }

  /** SIGKILL: no drain, no cleanup, as a crash or an OOM kill. Resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    this.notePeak();
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await gone;
    this.kills++;
  }

  /** A clean stop at the end (SIGTERM, SIGKILL after `graceMs`), its peak read first. */
  async stop(graceMs = 10_000): Promise<void> {
    const child = this.child;
    if (!child || !this.alive) return;
    this.notePeak();
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }

  /** The largest resident high-water mark of any incarnation so far, the live one read now. */
  peakKiB(): number {
    this.notePeak();
    return this.peak;
  }

  private notePeak(): void {
    const pid = this.pid;
    if (pid === undefined) return;
    this.peak = Math.max(this.peak, peakResidentKiB(pid) ?? 0);
  }
}
