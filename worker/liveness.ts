/**
 * The worker replica's own liveness, served at /healthz on its metrics port (the container's
 * health check, docker-compose.yml): with several replicas, "some poller on the task queue"
 * (scripts/worker-health.ts) stays true while one replica hangs, so each replica answers for
 * itself. It is live while:
 * - every Temporal worker of the process is RUNNING and its pollers (workflow and activity, or
 *   activity only for the routing queue's worker, which runs no workflows) are not FAILED or
 *   SHUTDOWN;
 * - it makes progress: when work is in flight, a task (an activity) completed within `maxTaskAgeMs`.
 *   An idle replica (nothing in flight) is live however long ago its last task was.
 * A replica whose event loop is blocked does not answer at all, which the health check's timeout
 * counts as a failure too.
 */

/** What liveness reads of a Temporal worker (the SDK's Worker has both). */
export interface PollingWorker {
  getState(): string;
  getStatus(): {
    workflowPollerState: string;
    activityPollerState: string;
    numInFlightActivities: number;
    numInFlightWorkflowActivations: number;
  };
}

export interface LivenessReport {
  live: boolean;
  /** Why not, one line each; empty when live. */
  problems: string[];
  /** Milliseconds since the last completed task, or since start when none has completed. */
  last_task_age_ms: number;
  in_flight: number;
}

/**
 * Longer than any activity's start-to-close timeout of ours (a route plan's solve is the longest,
 * tens of seconds), so a slow task is never taken for a hang.
 */
export const DEFAULT_MAX_TASK_AGE_MS = 5 * 60_000;

export class WorkerLiveness {
  private lastProgressAt: number;
  private workers: { worker: PollingWorker; polls: readonly ('workflow' | 'activity')[] }[] = [];

  constructor(
    private readonly options: { maxTaskAgeMs?: number; now?: () => number } = {},
  ) {
    this.lastProgressAt = this.now();
  }

  private now(): number {
    return this.options.now ? this.options.now() : Date.now();
  }

  /** The process's Temporal workers, once created. */
  watch(...workers: PollingWorker[]): void {
    this.workers.push(...workers.map((worker) => ({ worker, polls: ['workflow', 'activity'] as const })));
  }

  /** Workers that run activities only: their workflow poller is shut down from the start, by design. */
  watchActivitiesOnly(...workers: PollingWorker[]): void {
    this.workers.push(...workers.map((worker) => ({ worker, polls: ['activity'] as const })));
  }

  /** A task finished (successfully or not: either is progress); called by the activity interceptor. */
  taskCompleted(): void {
    this.lastProgressAt = this.now();
  }

  report(): LivenessReport {
    const maxAge = this.options.maxTaskAgeMs ?? DEFAULT_MAX_TASK_AGE_MS;
    const problems: string[] = [];
    if (this.workers.length === 0) problems.push('no Temporal worker created yet');
    let inFlight = 0;
    this.workers.forEach(({ worker, polls }, i) => {
      const state = worker.getState();
      if (state !== 'RUNNING') problems.push(`worker ${i} is ${state}`);
      const status = worker.getStatus();
      for (const kind of polls) {
        const poller = kind === 'workflow' ? status.workflowPollerState : status.activityPollerState;
        if (poller === 'FAILED' || poller === 'SHUTDOWN') problems.push(`worker ${i}'s ${kind} poller is ${poller}`);
      }
      inFlight += status.numInFlightActivities + status.numInFlightWorkflowActivations;
    });
    // Idle is not stale: with nothing in flight, waiting for work is all there is to do.
    if (inFlight === 0) this.lastProgressAt = this.now();
    const age = this.now() - this.lastProgressAt;
    if (inFlight > 0 && age > maxAge) problems.push(`${inFlight} tasks in flight and none completed for ${Math.round(age / 1000)} s (limit ${Math.round(maxAge / 1000)} s)`);
    return { live: problems.length === 0, problems, last_task_age_ms: age, in_flight: inFlight };
  }
}
