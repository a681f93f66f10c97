import { spawn, type ChildProcess } from 'node:child_process';
import { projectRoot } from '../infra/paths';

/**
 * Worker processes (worker/main.ts) that a crash test starts, SIGKILLs mid-work and replaces; any
 * still running are killed at the end. `env` is read at each start (a test may learn a fake's
 * address after creating this).
 */
export class WorkerProcesses {
  private readonly children: ChildProcess[] = [];

  constructor(private readonly env: () => NodeJS.ProcessEnv) {}

  start(): ChildProcess {
    const child = spawn(process.execPath, ['--import', 'tsx', 'worker/main.ts'], {
      cwd: projectRoot,
      // Jest's --experimental-vm-modules is the test runner's, not the worker's.
      env: { ...process.env, LOG_LEVEL: 'warn', ...this.env(), NODE_OPTIONS: '' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    this.children.push(child);
    return child;
  }

  /** SIGKILL, as a crash or an OOM kill; resolves once the process is gone. */
  async crash(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  /** The most recently started worker that is still running, if any. */
  latestRunning(): ChildProcess | undefined {
    return this.children.filter((child) => child.exitCode === null && child.signalCode === null).at(-1);
  }

  /** SIGKILLs every worker still running, without waiting. */
  killAll(): void {
    for (const child of this.children) if (child.exitCode === null) child.kill('SIGKILL');
  }
}
