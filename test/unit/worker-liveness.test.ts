import { afterEach, describe, expect, it } from '@jest/globals';
import { Registry } from 'prom-client';
import { serveMetrics, type MetricsServer } from '../../infra/runtime/metrics';
import { WorkerLiveness, type PollingWorker } from '../../worker/liveness';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createLogger } from '../../infra/runtime/logger';
import { activityInterceptors } from '../../worker/activity-interceptors';

/** A Temporal worker as liveness reads it, its state and counts set by the test. */
class FakeWorker implements PollingWorker {
  state = 'RUNNING';
  workflowPollerState = 'POLLING';
  activityPollerState = 'POLLING';
  numInFlightActivities = 0;
  numInFlightWorkflowActivations = 0;
  getState() {
    return this.state;
  }
  getStatus() {
    return { workflowPollerState: this.workflowPollerState, activityPollerState: this.activityPollerState, numInFlightActivities: this.numInFlightActivities, numInFlightWorkflowActivations: this.numInFlightWorkflowActivations };
  }
}

const MAX_AGE = 60_000;
function setUp() {
  let now = 1_000_000;
  const clock = { advance: (ms: number) => (now += ms) };
  const liveness = new WorkerLiveness({ maxTaskAgeMs: MAX_AGE, now: () => now });
  const main = new FakeWorker();
  // The routing queue's worker runs activities only: its workflow poller is shut down by design.
  const routing = new FakeWorker();
  routing.workflowPollerState = 'SHUTDOWN';
  liveness.watch(main);
  liveness.watchActivitiesOnly(routing);
  return { liveness, main, routing, clock };
}

describe("a worker replica's own liveness (docker-compose.yml's health check)", () => {
  it('is live while idle, however long since its last task', () => {
    const { liveness, clock } = setUp();
    clock.advance(10 * MAX_AGE);
    expect(liveness.report()).toMatchObject({ live: true, problems: [], in_flight: 0 });
  });

  it('fails when work is in flight and no task completed within the limit (a hung replica), and recovers on the next completion', () => {
    const { liveness, main, clock } = setUp();
    liveness.report();
    main.numInFlightActivities = 2;
    clock.advance(MAX_AGE - 1);
    expect(liveness.report().live).toBe(true);
    clock.advance(2);
    const stale = liveness.report();
    expect(stale).toMatchObject({ live: false, in_flight: 2, last_task_age_ms: MAX_AGE + 1 });
    expect(stale.problems).toEqual([expect.stringContaining('2 tasks in flight and none completed for 60 s')]);
    liveness.taskCompleted();
    expect(liveness.report()).toMatchObject({ live: true, last_task_age_ms: 0 });
  });

  it('fails when a worker stopped running or one of its pollers failed', () => {
    const { liveness, main, routing } = setUp();
    routing.activityPollerState = 'FAILED';
    expect(liveness.report().problems).toEqual(["worker 1's activity poller is FAILED"]);
    routing.activityPollerState = 'POLLING';
    main.state = 'DRAINING';
    expect(liveness.report()).toMatchObject({ live: false, problems: ['worker 0 is DRAINING'] });
    main.state = 'RUNNING';
    main.workflowPollerState = 'SHUTDOWN';
    expect(liveness.report()).toMatchObject({ live: false, problems: ["worker 0's workflow poller is SHUTDOWN"] });
  });

  it("does not count the activity-only worker's workflow poller, shut down from the start", () => {
    const { liveness, routing } = setUp();
    expect(routing.getStatus().workflowPollerState).toBe('SHUTDOWN');
    expect(liveness.report()).toMatchObject({ live: true, problems: [] });
  });

  it('fails before any worker is watched (still starting)', () => {
    expect(new WorkerLiveness().report()).toMatchObject({ live: false, problems: ['no Temporal worker created yet'] });
  });
});

describe('what counts as a completed task', () => {
  it('is every activity the worker runs that ends, succeeded or failed (the activity interceptor tells liveness)', async () => {
    const { liveness, main, clock } = setUp();
    liveness.report();
    main.numInFlightActivities = 1;
    const run = (fn: () => Promise<unknown>) =>
      new MockActivityEnvironment({ activityType: 'deliverWebhookBatch' }, { logger: new DefaultLogger('ERROR'), interceptors: [activityInterceptors({ logger: createLogger('silent'), liveness })] }).run(fn);
    clock.advance(MAX_AGE + 1);
    expect(liveness.report().live).toBe(false);
    await run(async () => 'done');
    expect(liveness.report()).toMatchObject({ live: true, last_task_age_ms: 0 });
    clock.advance(MAX_AGE + 1);
    await expect(run(async () => { throw new Error('receiver refused'); })).rejects.toThrow('receiver refused');
    expect(liveness.report()).toMatchObject({ live: true, last_task_age_ms: 0 });
  });
});

describe('/healthz beside /metrics on the metrics port', () => {
  let server: MetricsServer | undefined;
  afterEach(async () => server?.close());

  it('answers 200 with the report while live and 503 once stale', async () => {
    const { liveness, main, clock } = setUp();
    server = await serveMetrics(new Registry(), { host: '127.0.0.1', port: 0, health: () => ({ ...liveness.report() }) });
    const healthz = server.url.replace(/\/metrics$/, '/healthz');
    const live = await fetch(healthz);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ live: true });
    main.numInFlightWorkflowActivations = 1;
    liveness.report();
    clock.advance(MAX_AGE + 1);
    const stale = await fetch(healthz);
    expect(stale.status).toBe(503);
    expect(await stale.json()).toMatchObject({ live: false, in_flight: 1 });
    // The metrics themselves are still served.
    expect((await fetch(server.url)).status).toBe(200);
  });
});
