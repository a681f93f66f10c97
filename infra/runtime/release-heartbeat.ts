import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { HEARTBEAT_SECONDS, recordRunning, recordStopped } from '../../db/running-releases';

/**
 * This process's row in `running_releases` (db/running-releases.ts): written at start, refreshed
 * every HEARTBEAT_SECONDS, removed at a clean stop, so that `migrate` knows which schema the
 * running releases were built for. A failed refresh is logged and tried again; it never stops the
 * process (a database outage is answered elsewhere).
 */
export class ReleaseHeartbeat {
  readonly processId = randomUUID();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly em: EntityManager,
    private readonly role: 'api' | 'worker',
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => void this.beat(), HEARTBEAT_SECONDS * 1000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await recordStopped(this.em.fork(), this.processId).catch((error: unknown) => this.logger.warn({ reason: String(error) }, 'could not remove this process from running_releases'));
  }

  private async beat(): Promise<void> {
    await recordRunning(this.em.fork(), { processId: this.processId, role: this.role }).catch((error: unknown) =>
      this.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'could not record this process in running_releases'),
    );
  }
}
