import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { trace } from '@opentelemetry/api';
import { createLogger } from '../../infra/runtime/logger';
import { runWithLogContext } from '../../infra/runtime/log-context';
import { activeTracing, serviceName, startTracing } from '../../infra/runtime/tracing';
import { PinoTemporalLogger, expectedWarningsAsInfo } from '../../worker/temporal-logger';

/** The pieces of logs and traces that need no server. */
function captured() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('trace', new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(JSON.parse(chunk.toString())), done()) }));
  return { lines, logger };
}

describe('tracing switch', () => {
  it('is off without OTEL_EXPORTER_OTLP_ENDPOINT: no provider is installed', () => {
    expect(startTracing({ serviceName: 'shade-office-test', endpoint: undefined })).toBeUndefined();
    expect(activeTracing()).toBeUndefined();
    // The global tracer is the API's no-op one: spans are never recorded.
    expect(trace.getTracer('x').startSpan('nothing').isRecording()).toBe(false);
  });

  it('names each process\'s service after its entry point unless OTEL_SERVICE_NAME says otherwise', () => {
    expect(serviceName({}, '/app/api/main.ts')).toBe('shade-office-api');
    expect(serviceName({}, '/app/dist/worker/main.js')).toBe('shade-office-worker');
    expect(serviceName({ OTEL_SERVICE_NAME: 'custom' }, '/app/api/main.ts')).toBe('custom');
  });
});

describe('log lines', () => {
  it('inside an activity\'s log context carry its fields, except those a child logger already binds', () => {
    const { lines, logger } = captured();
    runWithLogContext({ fields: { workflow_id: 'quote-approval-q1', run_id: 'r1', quote_id: 'q1' } }, () => logger.child({ quote_id: 'q1' }).info('inside'));
    logger.info('outside');
    expect(lines[0]).toMatchObject({ msg: 'inside', workflow_id: 'quote-approval-q1', run_id: 'r1', quote_id: 'q1' });
    expect(JSON.stringify(lines[0]).match(/"quote_id"/g)).toHaveLength(1);
    expect(lines[1]).not.toHaveProperty('workflow_id');
  });

  it('of the Temporal SDK go through pino at their level, under our field names', () => {
    const { lines, logger } = captured();
    const sdk = new PinoTemporalLogger(logger);
    sdk.warn('Activity failed', { sdkComponent: 'worker', workflowId: 'w1', workflowRunId: 'r1', activityType: 'writePaymentsInvoice', error: new Error('refused'), [Symbol('time')]: 1n });
    sdk.debug('Workflow completed', { sdkComponent: 'worker', workflowId: 'w1', runId: 'r1', request_id: 'req-1' });
    expect(lines[0]).toMatchObject({ level: 'warn', msg: 'Activity failed', sdk_component: 'worker', workflow_id: 'w1', run_id: 'r1', activity_type: 'writePaymentsInvoice', err: { message: 'refused' } });
    expect(lines[1]).toMatchObject({ level: 'debug', msg: 'Workflow completed', workflow_id: 'w1', run_id: 'r1', request_id: 'req-1' });
  });

  it("tells the SDK's warning about a worker without workflows (the routing queue's, by design) at info, through the runtime's logger", () => {
    const { lines, logger } = captured();
    const sdk = expectedWarningsAsInfo(new PinoTemporalLogger(logger));
    sdk.warn('No workflows registered, not polling for workflow tasks', { sdkComponent: 'worker', taskQueue: 'routing' });
    sdk.warn('Workflow task failed', { sdkComponent: 'worker', taskQueue: 'main' });
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ['info', 'No workflows registered, not polling for workflow tasks'],
      ['warn', 'Workflow task failed'],
    ]);
  });
});
