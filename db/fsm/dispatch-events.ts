import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventEnvelope } from '../../domain/events/catalogue';
import { recordEvent } from '../events/outbox';
import { dispatchChange, dispatchStops, emptyDispatchState, type DispatchState } from '../../domain/dispatch/dispatch-update';
import { clearDispatchDue, lockRouteDay, markDispatchDue, markDispatchTold, routesOfDay, type StoredRoute } from './routes';

const stateOf = (route: StoredRoute): DispatchState => ({
  assigneeId: route.assignee_id,
  totalDriveMinutes: route.total_drive_minutes,
  overtimeMinutes: route.overtime_minutes,
  stops: dispatchStops(route.stops),
});

/**
 * D23: records one `dispatch.updated` per route of the day whose shown attributes differ from
 * what it last told (else, before its first event, from `before`, read in the same transaction
 * before the change; a route that did not exist is compared with an empty day of the same
 * foreman), in the outbox of that transaction, with the route's revision and the prior values of
 * what changed. Coalescing (docs/webhooks.md): a route told less than the workspace's
 * `dispatch_coalesce_seconds` ago records nothing now; its one trailing event, with the state
 * then, is due a window after the last (`flushDueDispatches`). A route back at the state it told
 * has nothing due. Answers the envelopes, to dispatch after the commit (the relay starts the rest).
 */
export async function recordDispatchUpdates(tx: EntityManager, date: string, before: readonly StoredRoute[], after: readonly StoredRoute[]): Promise<EventEnvelope[]> {
  const recorded: EventEnvelope[] = [];
  for (const route of after) {
    const previous = before.find((r) => r.crew_id === route.crew_id);
    const told = route.dispatch_told ?? (previous ? stateOf(previous) : emptyDispatchState(route.assignee_id));
    const change = dispatchChange(told, stateOf(route));
    if (!change) {
      if (route.dispatch_pending) await clearDispatchDue(tx, route.id);
      continue;
    }
    if (route.dispatch_told_recently) {
      await markDispatchDue(tx, route.id);
      continue;
    }
    recorded.push(await tell(tx, date, route, change));
  }
  return recorded;
}

async function tell(tx: EntityManager, date: string, route: StoredRoute, change: NonNullable<ReturnType<typeof dispatchChange>>): Promise<EventEnvelope> {
  const [org] = await tx.execute<{ id: string }[]>('select app_current_organization() as id');
  const now = stateOf(route);
  const envelope = await recordEvent(tx, org!.id, 'dispatch.updated', {
    id: route.id,
    date,
    ...now,
    changeReason: change.changeReason,
    revision: route.revision,
    previousAttributes: change.previousAttributes,
  });
  await markDispatchTold(tx, route.id, now);
  return envelope;
}

/**
 * D23's trailing edge, in a tenant's transaction: each route of the day whose coalescing window
 * has ended tells, in one event, how it stands now against what it last told (nothing when it is
 * back where it was). Locks the day as every writer of its routes does. Answers the envelopes.
 */
export async function flushDueDispatches(tx: EntityManager, date: string): Promise<EventEnvelope[]> {
  await lockRouteDay(tx, date);
  const recorded: EventEnvelope[] = [];
  for (const route of await routesOfDay(tx, date)) {
    if (!route.dispatch_due) continue;
    const change = dispatchChange(route.dispatch_told ?? emptyDispatchState(route.assignee_id), stateOf(route));
    if (change) recorded.push(await tell(tx, date, route, change));
    else await clearDispatchDue(tx, route.id);
  }
  return recorded;
}
