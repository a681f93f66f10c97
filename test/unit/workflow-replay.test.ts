import { beforeAll, describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Worker, type WorkflowBundle } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Resource } from '@opentelemetry/resources';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry';
import { WORKFLOWS_PATH, workflowInterceptorModules } from '../../worker/create-worker';
import { installQuietRuntime } from '../../worker/runtime';
import { projectRoot } from '../../scripts/infra/paths';
import { WORKFLOW_TYPES } from '../../infra/temporal/contracts';

/**
 * Determinism: recorded histories of real runs (test/histories, made by
 * `npm run record-histories`) replay against today's workflow code. A change that would make
 * running workflows take another path fails here. They replay as the worker runs them, with its
 * workflow interceptors (ours, and OpenTelemetry's as when tracing is on), bundled once for
 * every history: webpack's build, not the replay, is what takes the time.
 */
const folder = join(projectRoot, 'test', 'histories');
const files = readdirSync(folder).filter((f) => f.endsWith('.json'));
let bundle: WorkflowBundle;

beforeAll(async () => {
  installQuietRuntime();
  bundle = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH, workflowInterceptorModules: workflowInterceptorModules(true), logger: new DefaultLogger('WARN') });
}, 120_000);

describe('workflow replay', () => {
  it('has a recorded history of every workflow type of the contracts', () => {
    const recorded = new Set(
      files.map((file) => {
        const history = historyFromJSON(JSON.parse(readFileSync(join(folder, file), 'utf8')));
        return history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name;
      }),
    );
    for (const type of Object.values(WORKFLOW_TYPES)) expect([type, recorded.has(type)]).toEqual([type, true]);
  });

  it.each(files)('%s replays without non-determinism', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(join(folder, file), 'utf8')));
    const options = {
      workflowBundle: bundle,
      replayName: file,
      sinks: { exporter: makeWorkflowExporter(new SimpleSpanProcessor(new InMemorySpanExporter()), new Resource({})) },
    };
    await expect(Worker.runReplayHistory(options, history, file)).resolves.toBeUndefined();
  }, 60_000);
});
