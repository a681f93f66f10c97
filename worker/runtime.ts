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
    // No signal handlers of the SDK's own: worker/main.ts owns shutdown (relay first, then the
    // worker), and an embedding process (tests) owns its signals.
    Runtime.install({ logger: new DefaultLogger('WARN'), shutdownSignals: [] });
  } catch {
    // Already installed by the embedding process; its logger stays.
  }
}
