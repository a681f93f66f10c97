import { DefaultLogger, Runtime } from '@temporalio/worker';

let installed = false;

/**
 * The SDK's own chatter (webpack's bundle report, state changes) only from warnings up. The
 * runtime can be installed once per process, before the first worker.
 */
export function installQuietRuntime(): void {
  if (installed) return;
  installed = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed by the embedding process; its logger stays.
  }
}
