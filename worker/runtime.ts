import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { Logger } from 'pino';
import { PinoTemporalLogger, expectedWarningsAsInfo } from './temporal-logger';

let installed = false;

export interface RuntimeOptions {
  /** The SDK's log lines go through this pino logger; the SDK's own format otherwise. */
  logger?: Logger;
  /**
   * `host:port` of the SDK runtime's own Prometheus metrics (task latencies, slots, polls, sticky
   * cache), loopback only: worker/metrics.ts serves them with ours at WORKER_METRICS_PORT.
   */
  prometheusBindAddress?: string;
}

/**
 * The Temporal runtime of this process, installed once, before the first worker: its logger and
 * its metrics. The SDK's own chatter (webpack's bundle report, state changes) only from warnings
 * up unless the logger's level says more.
 */
export function installRuntime(options: RuntimeOptions = {}): void {
  if (installed) return;
  installed = true;
  try {
    // No signal handlers of the SDK's own: worker/main.ts owns shutdown (relay first, then the
    // worker), and an embedding process (tests) owns its signals.
    Runtime.install({
      logger: expectedWarningsAsInfo(options.logger ? new PinoTemporalLogger(options.logger) : new DefaultLogger('WARN')),
      shutdownSignals: [],
      ...(options.logger || options.prometheusBindAddress
        ? {
            telemetryOptions: {
              ...(options.logger ? { logging: { forward: {}, filter: { core: 'WARN' as const, other: 'ERROR' as const } } } : {}),
              ...(options.prometheusBindAddress ? { metrics: { prometheus: { bindAddress: options.prometheusBindAddress, countersTotalSuffix: true, useSecondsForDurations: true } } } : {}),
            },
          }
        : {}),
    });
  } catch {
    // Already installed by the embedding process; its logger stays.
  }
}

/** The runtime tests and tools use: the SDK's own logger, from warnings up. */
export function installQuietRuntime(): void {
  installRuntime();
}
