import { route, type RouteHost } from '../http/route';
import { ADMIN_ONLY, FIELD } from '../http/roles';
import { CrewIdParams } from './schemas';
import { PROBLEM_CONTENT_TYPE, ProblemSchema, problemExample } from '../v1/problem';
import type { DailyRouteService } from './daily-route-service';
import { CrewStatusBody, HandRouteBody, PlanAnswer, PlanBody, PlanRunning, Route, RouteCrewParams, RouteDateParams, RoutesDay, RoutesQuery } from './routing-schemas';

const TAGS = ['Routes'];
const problem = (status: number, description: string, type?: Parameters<typeof problemExample>[3]) => ({
  description,
  schema: ProblemSchema,
  contentType: PROBLEM_CONTENT_TYPE,
  example: problemExample(status, description, undefined, type),
});

const CREW = '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f';
const OTHER_CREW = '4d5e6f7a-8b9c-4d0e-9f1a-2b3c4d5e6f7a';
const JOB_A = '7b1e4c2a-9d3f-4e8b-a6c5-1f2e3d4c5b6a';
const JOB_B = '8c2f5d3b-0e4a-4f9c-b7d6-2a3b4c5d6e7f';
const JOB_C = '9d3a6e4c-1f5b-4a0d-8e7f-3b4c5d6e7f8a';
const ROUTE_EXAMPLE: Route = {
  id: '6f7a8b9c-0d1e-4f2a-9b3c-4d5e6f7a8b9c',
  date: '2026-12-03',
  crewId: CREW,
  assigneeId: '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a',
  shift: { start: '08:00', end: '17:00' },
  totalDriveMinutes: 74,
  overtimeMinutes: 0,
  stops: [
    { sequence: 1, jobId: JOB_A, etaLocal: '2026-12-03T08:21', departLocal: '2026-12-03T10:06', windowStart: '08:00', windowEnd: '17:00', driveMinutesFromPrevious: 21, status: 'planned' },
    { sequence: 2, jobId: JOB_B, etaLocal: '2026-12-03T10:24', departLocal: '2026-12-03T12:24', windowStart: '10:00', windowEnd: '12:00', driveMinutesFromPrevious: 18, status: 'planned' },
  ],
  violations: [],
  travelTimeSource: 'great_circle',
  revision: 3,
};
const REASONS = [
  { code: 'SKILL_MISSING' as const, detail: 'Requires [motorisation]; the crew has []; missing [motorisation].' },
  { code: 'TIME_WINDOW_UNREACHABLE' as const, detail: 'Earliest arrival 08:41 (leaving the depot at 08:00); the window is 07:00-08:30.' },
];

/** D23: routes of a day, plans and hand sequences. */
export function dailyRoutes(host: RouteHost, deps: { routes: DailyRouteService }): void {
  route(host, {
    method: 'get',
    path: '/v1/fsm/routes',
    operationId: 'listDailyRoutes',
    summary: 'The routes of a day, and its jobs no route holds',
    description:
      'ADMIN and SALES see every crew\'s route and the day\'s unassigned jobs (not complete or cancelled, on no route) with the reasons of the last plan, and its exclusions; ' +
      'a TECHNICIAN sees only the routes of their crews. Times are local to the workspace.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    query: RoutesQuery,
    responses: { 200: { description: 'The day', schema: RoutesDay, example: { date: '2026-12-03', data: [ROUTE_EXAMPLE], unassigned: [{ jobId: JOB_C, reasons: [{ ...REASONS[0]!, crewId: OTHER_CREW }] }], exclusions: [{ jobId: JOB_C, crewId: OTHER_CREW, reasons: [REASONS[0]!] }] } } },
    handler: async ({ res, caller, query }) => {
      res.json(await deps.routes.list(caller, query.date));
    },
  });

  route(host, {
    method: 'get',
    path: '/v1/fsm/routes/:date/:crew_id',
    operationId: 'getDailyRoute',
    summary: 'One crew\'s route of a day',
    description: '404 when the crew holds no route that day (or, for a TECHNICIAN, is not one of their crews).',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    params: RouteCrewParams,
    responses: { 200: { description: 'The route', schema: Route, example: ROUTE_EXAMPLE }, 404: problem(404, 'No route of that crew on that date', 'not-found') },
    handler: async ({ res, caller, params }) => {
      res.json(await deps.routes.get(caller, params.date, params.crew_id));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/fsm/routes/:date/plan',
    operationId: 'planDailyRoutes',
    summary: 'Plan a day\'s routes (ADMIN): optimize or check, answered once the plan ends',
    description:
      'Runs as the Temporal workflow `route-plan-<organizationId>-<date>` on the routing task queue. `optimize` assigns the day\'s scheduled and dispatched jobs to crews and sequences every crew\'s day, ' +
      'minimising drive time, then overtime; `keep_assignments` keeps each dispatched job with its crew; `check` computes ETAs and violations of the routes as they are (nothing stored). ' +
      '`dry_run` answers the plan without applying it; applying changes job crews and sequences in one transaction (with job history) and raises each changed route\'s `revision`. ' +
      'Every job no route holds is in `unassigned` with its reasons, and every job and crew that could not take it in `exclusions` (codes: SKILL_MISSING, OUTSIDE_SHIFT, ON_TIME_OFF, ' +
      'TIME_WINDOW_UNREACHABLE, OVERTIME_CAP, SITE_NOT_LOCATED, PLAN_ROUTE_LIMIT; docs/routes.md). A date without jobs is an empty plan. While a plan of the same date runs, a second request ' +
      'answers 202 with its stage. A travel-time source that fails (ROUTING_OSRM_URL) is a 502 problem naming it, with nothing applied; a workspace without a depot is 409.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: RouteDateParams,
    body: PlanBody,
    bodyExample: { mode: 'optimize', keep_assignments: true, dry_run: false },
    responses: {
      200: {
        description: 'The plan',
        schema: PlanAnswer,
        example: {
          date: '2026-12-03',
          mode: 'optimize',
          dry_run: false,
          applied: true,
          travelTimeSource: 'great_circle',
          solver: 'built-in',
          data: [ROUTE_EXAMPLE],
          unassigned: [{ jobId: JOB_C, reasons: [{ ...REASONS[0]!, crewId: OTHER_CREW }, { ...REASONS[1]!, crewId: CREW }] }],
          exclusions: [{ jobId: JOB_C, crewId: OTHER_CREW, reasons: [REASONS[0]!] }, { jobId: JOB_C, crewId: CREW, reasons: [REASONS[1]!] }],
        },
      },
      202: { description: 'A plan of this date is running: its stage', schema: PlanRunning, example: { status: 'running', stage: 'solving', workflow_id: 'route-plan-0f1e2d3c-4b5a-4697-8877-665544332211-2026-12-03' } },
      409: problem(409, 'The workspace has no depot', 'conflict'),
      502: problem(502, 'Travel times from osrm failed: http://127.0.0.1:5000 answered NoTable. Nothing was applied.', 'internal-error'),
    },
    handler: async ({ res, caller, params, body }) => {
      const outcome = await deps.routes.plan(caller, params.date, body);
      if (outcome.running) res.status(202).json({ status: 'running', stage: outcome.stage, workflow_id: outcome.workflowId });
      else res.json(outcome.answer);
    },
  });

  route(host, {
    method: 'put',
    path: '/v1/fsm/routes/:date/:crew_id',
    operationId: 'setDailyRoute',
    summary: 'Set a crew\'s stops by hand (ADMIN): ETAs and violations, reported, not refused',
    description:
      '`stops` are job ids of that date, in order; each job moves to this crew (leaving any other route). The answer carries the ETAs and every violation ' +
      '(`TIME_WINDOW_UNREACHABLE` and `OVERTIME_CAP` with their minutes, and a constraint the crew breaks, such as SKILL_MISSING, with 0). A job not of that date is 422 at `stops.N`.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: ADMIN_ONLY,
    params: RouteCrewParams,
    body: HandRouteBody,
    bodyExample: { stops: [JOB_B, JOB_A] },
    responses: {
      200: {
        description: 'The route, stored',
        schema: Route,
        example: { ...ROUTE_EXAMPLE, revision: 4, violations: [{ jobId: JOB_B, code: 'TIME_WINDOW_UNREACHABLE', minutes: 25 }] },
      },
      404: problem(404, 'No such crew', 'not-found'),
      502: problem(502, 'Travel times from osrm failed: http://127.0.0.1:5000 no answer within 10000 ms. Nothing was applied.', 'internal-error'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.routes.setHand(caller, params.date, params.crew_id, body));
    },
  });

  route(host, {
    method: 'post',
    path: '/v1/fsm/crews/:crew_id/status',
    operationId: 'setCrewStatus',
    summary: 'A crew reports its status on today\'s route (its technicians or ADMIN)',
    description:
      '`status` is `en_route`, `on_site`, `on_break` or `off_duty`, set on the stop of `jobId`, or without it on the crew\'s current stop (the last with a reported status, else the first). ' +
      'Any order is allowed (on_site before en_route); `off_duty` also marks every later stop still planned. The route\'s revision rises and `dispatch.updated` fires with `changeReason` ' +
      '`technician_status`; the same report again changes nothing. Today is the workspace\'s date in its time zone. Another crew\'s technician is 403; a crew without a route today is 409; ' +
      'a job not on the route is 422 at `jobId`.',
    tags: TAGS,
    auth: 'bearer',
    metering: 'request',
    roles: FIELD,
    params: CrewIdParams,
    body: CrewStatusBody,
    bodyExample: { status: 'on_site', jobId: JOB_A },
    responses: {
      200: {
        description: 'The route with the status on its stop',
        schema: Route,
        example: { ...ROUTE_EXAMPLE, revision: 4, stops: ROUTE_EXAMPLE.stops.map((s, i) => (i === 0 ? { ...s, status: 'on_site' } : s)) },
      },
      403: problem(403, "Only the crew's own technicians or an ADMIN set a crew's status.", 'forbidden'),
      404: problem(404, 'No such crew', 'not-found'),
      409: problem(409, "The crew has no route on 2026-12-03 (the workspace's today): plan or set its stops first.", 'conflict'),
    },
    handler: async ({ res, caller, params, body }) => {
      res.json(await deps.routes.crewStatus(caller, params.crew_id, body));
    },
  });
}
