import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

/** What every activity may use; the worker builds it (worker/main.ts). */
export interface ActivityDependencies {
  em: EntityManager;
  logger: Logger;
}

/**
 * All activities, built from their dependencies (Temporal's dependency-injection pattern):
 * workflows import only the type of this object.
 */
export function createActivities(_deps: ActivityDependencies) {
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
