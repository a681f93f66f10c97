import type { EntityManager } from '@mikro-orm/postgresql';
import { migrations } from './migrations';

/**
 * Rolling deploys (docs/operations.md): the old and the new release run side by side for a while,
 * so migrations are written expand-then-contract. A *contract* migration (it drops or narrows what
 * an older release still reads) names the last migration of the release that stopped reading it
 * (`static readonly contractAfter`); `migrate` refuses it while a process of an older release is
 * recorded as running here. A process records itself at start, refreshes its row every
 * HEARTBEAT_SECONDS and removes it when it stops; a row not refreshed for STALE_AFTER_SECONDS is
 * a process that died without saying so, and no longer counts.
 */

/** The schema this code was built for: the last of its migrations. */
export const SCHEMA_VERSION = migrations.map((migration) => migration.name).sort().at(-1)!;

export const HEARTBEAT_SECONDS = 30;
export const STALE_AFTER_SECONDS = 3 * HEARTBEAT_SECONDS;

export interface ContractMigration {
  name: string;
  /** Safe once every running process knows at least this migration. */
  contractAfter: string;
}

export async function recordRunning(em: EntityManager, release: { processId: string; role: 'api' | 'worker'; schemaVersion?: string }): Promise<void> {
  await em.execute(
    `insert into running_releases (process_id, role, schema_version) values (?, ?, ?)
     on conflict (process_id) do update set last_seen_at = now(), schema_version = excluded.schema_version`,
    [release.processId, release.role, release.schemaVersion ?? SCHEMA_VERSION],
  );
}

export async function recordStopped(em: EntityManager, processId: string): Promise<void> {
  await em.execute('delete from running_releases where process_id = ?', [processId]);
}

export interface OlderRelease {
  process_id: string;
  role: string;
  schema_version: string;
  last_seen_at: Date;
}

/** The live processes built for a schema older than `version`. */
export async function releasesOlderThan(em: EntityManager, version: string): Promise<OlderRelease[]> {
  return em.execute<OlderRelease[]>(
    `select process_id, role, schema_version, last_seen_at from running_releases
      where schema_version < ? and last_seen_at > now() - make_interval(secs => ?) order by schema_version, process_id`,
    [version, STALE_AFTER_SECONDS],
  );
}
