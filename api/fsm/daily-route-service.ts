import type { EntityManager } from '@mikro-orm/postgresql';
import { inTenant } from '../../db/tenant-scope';
import { conflict, forbidden, notFound, providerUnavailable, validationFailed } from '../../domain/errors/errors';
import { withCrewStatus } from '../../domain/dispatch/dispatch-update';
import { instantToLocal } from '../../domain/organizations/local-time';
import { organizationSettings } from '../../db/organizations';
import { recordDispatchUpdates } from '../../db/fsm/dispatch-events';
import type { Caller } from '../http/request-context';
import { crewById, crewPage } from '../../db/fsm/crews';
import { dayJobRows, lockRouteDay, routeDay, routesOfDay, storeRoute, type StoredRoute } from '../../db/fsm/routes';
import { handRoute, type PlannedRoute } from '../../domain/routing/plan';
import { TravelTimesUnavailable } from '../../domain/routing/travel/source';
import { providerFailed } from '../../domain/errors/errors';
import { applyRoutesWithEvents, loadDay, type TravelConfig } from '../../infra/routing/routing-day';
import type { EventDispatcher } from '../../infra/events/dispatcher';
import type { RoutePlans } from '../../infra/temporal/route-plans';
import type { CrewStatusBody, HandRouteBody, PlanAnswer, PlanBody, Route, RoutesDay } from './routing-schemas';

function storedToRoute(date: string, row: StoredRoute): Route {
  return {
    id: row.id,
    date,
    crewId: row.crew_id,
    assigneeId: row.assignee_id,
    shift: { start: row.shift_start, end: row.shift_end },
    totalDriveMinutes: row.total_drive_minutes,
    overtimeMinutes: row.overtime_minutes,
    stops: row.stops,
    violations: row.violations,
    travelTimeSource: row.travel_time_source as Route['travelTimeSource'],
    revision: row.revision,
  };
}

function plannedToRoute(date: string, route: PlannedRoute, source: Route['travelTimeSource'], stored?: { id: string; revision: number }): Route {
  return { id: stored?.id ?? null, date, ...route, travelTimeSource: source, revision: stored?.revision ?? null };
}

/**
 * D23: the routes of a day in the caller's tenant transaction, for REST and GraphQL alike: every
 * route and the day's unassigned jobs (with the last plan's reasons) and exclusions; a TECHNICIAN
 * gets only the routes of their crews (D10).
 */
export async function routesDayWithin(tx: EntityManager, caller: Caller, date: string): Promise<RoutesDay> {
  const crewIds = caller.role === 'TECHNICIAN' ? (await crewPage(tx, { memberId: caller.userId })).map((c) => c.id) : undefined;
  const routes = await routesOfDay(tx, date, crewIds);
  if (crewIds) return { date, data: routes.map((r) => storedToRoute(date, r)), unassigned: [] };
  const held = new Set(routes.flatMap((r) => r.stops.map((s) => s.jobId)));
  const planned = await routeDay(tx, date);
  const unassigned = (await dayJobRows(tx, date))
    .filter((job) => !held.has(job.job_id))
    .map((job) => ({ jobId: job.job_id, reasons: planned?.unassigned.find((u) => u.jobId === job.job_id)?.reasons ?? [] }));
  return { date, data: routes.map((r) => storedToRoute(date, r)), unassigned, exclusions: planned?.exclusions ?? [] };
}

/** D23: the routes of a day, plans (through the routing workflow) and hand sequences. */
export class DailyRouteService {
  constructor(
    private readonly em: EntityManager,
    private readonly options: { plans?: RoutePlans | undefined; travel: TravelConfig; events?: EventDispatcher | undefined },
  ) {}

  /** ADMIN and SALES see every route of the day; a TECHNICIAN only their crews' (D10), and no unassigned jobs. */
  list(caller: Caller, date: string): Promise<RoutesDay> {
    return inTenant(this.em, caller.organizationId, (tx) => routesDayWithin(tx, caller, date));
  }

  get(caller: Caller, date: string, crewId: string): Promise<Route> {
    return inTenant(this.em, caller.organizationId, async (tx) => {
      if (caller.role === 'TECHNICIAN' && !(await crewPage(tx, { memberId: caller.userId })).some((c) => c.id === crewId)) throw notFound('No route of that crew on that date.');
      const [route] = await routesOfDay(tx, date, [crewId]);
      if (!route) throw notFound('No route of that crew on that date.');
      return storedToRoute(date, route);
    });
  }

  /** D23: runs the plan workflow and answers its result, or, while a plan of that day runs, its stage. */
  async plan(caller: Caller, date: string, body: PlanBody): Promise<{ running: true; stage: string; workflowId: string } | { running: false; answer: PlanAnswer }> {
    if (!this.options.plans) throw providerUnavailable('Route planning needs the Temporal worker; this deployment has none configured.');
    const outcome = await this.options.plans.run({ organizationId: caller.organizationId, date, mode: body.mode, keepAssignments: body.keep_assignments, dryRun: body.dry_run, userId: caller.userId });
    if (outcome.status === 'running') return { running: true, stage: outcome.stage, workflowId: outcome.workflowId };
    const { plan, applied } = outcome.result;
    let stored = new Map<string, { id: string; revision: number }>();
    if (applied) {
      stored = await inTenant(this.em, caller.organizationId, async (tx) => new Map((await routesOfDay(tx, date)).map((r) => [r.crew_id, { id: r.id, revision: applied.find((a) => a.crewId === r.crew_id)?.revision ?? r.revision }])));
    }
    return {
      running: false,
      answer: {
        date,
        mode: plan.mode,
        dry_run: body.dry_run,
        applied: applied !== null,
        travelTimeSource: plan.travelTimeSource,
        solver: plan.solver,
        data: plan.routes.map((route) => plannedToRoute(date, route, plan.travelTimeSource, stored.get(route.crewId))),
        unassigned: plan.unassigned,
        exclusions: plan.exclusions,
      },
    };
  }

  /**
   * D23: a crew reports its status on today's route (the workspace's date): the crew's
   * technicians or an ADMIN (another crew's technician is 403); a crew without a route today is
   * 409; a job not on the route is 422 at `jobId`. The stops' statuses change, the route's
   * revision rises and `dispatch.updated` (`technician_status`) fires; the same report again
   * changes nothing and fires nothing.
   */
  async crewStatus(caller: Caller, crewId: string, body: CrewStatusBody, now: Date = new Date()): Promise<Route> {
    const { route, events } = await inTenant(this.em, caller.organizationId, async (tx) => {
      if (!(await crewById(tx, crewId))) throw notFound('No such crew in this workspace.');
      if (caller.role !== 'ADMIN' && !(await crewPage(tx, { memberId: caller.userId })).some((c) => c.id === crewId)) {
        throw forbidden("Only the crew's own technicians or an ADMIN set a crew's status.");
      }
      const date = instantToLocal(now, (await organizationSettings(tx)).time_zone).slice(0, 10);
      await lockRouteDay(tx, date);
      const before = await routesOfDay(tx, date);
      const current = before.find((r) => r.crew_id === crewId);
      if (!current || current.stops.length === 0) throw conflict(`The crew has no route on ${date} (the workspace's today): plan or set its stops first.`);
      // Stored stops carry the reported status beside the planned ones (D23).
      const stops = withCrewStatus(current.stops, body.status, body.jobId) as StoredRoute['stops'] | null;
      if (!stops) throw validationFailed({ jobId: `Not a job on this crew's route of ${date}.` });
      await storeRoute(
        tx,
        date,
        { crewId, assigneeId: current.assignee_id, shift: { start: current.shift_start, end: current.shift_end }, totalDriveMinutes: current.total_drive_minutes, overtimeMinutes: current.overtime_minutes, stops, violations: current.violations },
        current.travel_time_source,
        current,
      );
      const after = await routesOfDay(tx, date);
      const events = await recordDispatchUpdates(tx, date, before, after);
      return { route: storedToRoute(date, after.find((r) => r.crew_id === crewId)!), events };
    });
    await this.options.events?.tryDispatchAll(events);
    return route;
  }

  /**
   * D23: a crew's stops set by hand, in one transaction: each job moves to the crew (leaving any
   * other route), the route is stored with its ETAs and every violation, reported, not refused.
   */
  async setHand(caller: Caller, date: string, crewId: string, body: HandRouteBody): Promise<Route> {
    const { route, events } = await inTenant(this.em, caller.organizationId, async (tx) => {
      if (!(await crewById(tx, crewId))) throw notFound('No such crew in this workspace.');
      const jobs = new Set((await dayJobRows(tx, date)).map((j) => j.job_id));
      const errors: Record<string, string> = {};
      body.stops.forEach((id, i) => {
        if (!jobs.has(id)) errors[`stops.${i}`] = `Not a job of this workspace scheduled on ${date} and not finished.`;
      });
      if (Object.keys(errors).length > 0) throw validationFailed(errors);
      let day;
      try {
        day = await loadDay(tx, date, this.options.travel);
      } catch (error) {
        if (error instanceof TravelTimesUnavailable) throw providerFailed(`${error.message} Nothing was applied.`);
        throw error;
      }
      const route = handRoute(day, crewId, body.stops);
      const { events } = await applyRoutesWithEvents(tx, { date, userId: caller.userId, routes: [route], source: day.travelTimeSource, emptyOthers: false });
      const [stored] = await routesOfDay(tx, date, [crewId]);
      return { route: storedToRoute(date, stored!), events };
    });
    // D23: after the commit (the outbox relay covers a failure here).
    await this.options.events?.tryDispatchAll(events);
    return route;
  }
}
