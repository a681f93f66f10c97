import type { ServiceProcess } from './service-process';
import type { SeededRandom } from './seeded-random';

export interface KillerOptions {
  /** How long the process lives once it serves before it is killed (ms, [min, max]). */
  uptimeMs: [number, number];
  /** The pause between the kill and the next start (ms, [min, max]). */
  pauseMs: [number, number];
  /** Kills to make at least, even after `finish()`. */
  atLeast: number;
  /** Called after each kill with its number. */
  onKill?: (kills: number) => void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * SIGKILLs a service process at random moments and starts it again, as a supervisor would,
 * until `finish()` was called and it has killed it `atLeast` times (or `abort()`). Its draws come
 * from a generator of its own, so the same seed gives the same uptimes and pauses whatever the
 * rest of the campaign does meanwhile.
 */
export class ProcessKiller {
  private finishing = false;
  private aborted = false;

  constructor(
    private readonly target: ServiceProcess,
    private readonly random: SeededRandom,
    private readonly options: KillerOptions,
  ) {}

  async run(): Promise<void> {
    while (!this.done()) {
      await sleep(this.random.between(...this.options.uptimeMs));
      if (this.done()) break;
      await this.target.kill();
      this.options.onKill?.(this.target.kills);
      await sleep(this.random.between(...this.options.pauseMs));
      // Started again even when aborted: the campaign stops a live process cleanly at its end.
      await this.target.start();
    }
  }

  /** The work is all sent: stop once the kills are enough. */
  finish(): void {
    this.finishing = true;
  }

  /** The campaign failed: stop at the next moment. */
  abort(): void {
    this.aborted = true;
  }

  private done(): boolean {
    return this.aborted || (this.finishing && this.target.kills >= this.options.atLeast);
  }
}
