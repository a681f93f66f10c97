// The second implementation of the route solver (D23): the problem sent to a VROOM server
// (vroom-express) through VROOM's documented JSON API, for an operator who outgrows the built-in
// solver. Used when ROUTING_VROOM_URL is set (`routeSolver`, solver.ts).
//
// The mapping:
// - times: VROOM counts whole seconds, so each time is multiplied by `secondsPerUnit` (60: the
//   problem is in minutes) and rounded the safe way: travel, service, window and shift starts up,
//   window and shift ends down. An answer feasible in VROOM's integers is then feasible in ours.
// - `allowed` becomes skills: the jobs that share one pattern of allowed crews share one skill,
//   which exactly the allowed crews have; a job every crew may take needs none. A job no crew may
//   take, or whose window closes within a second of opening, is not sent: it comes back unassigned.
// - the break: one VROOM break of `breakTime` that starts between the middle of the shift and the
//   latest return; the overtime cap is the vehicle's time window end.
// - demand and capacity: one delivery dimension when any crew has a finite capacity.
// - each route VROOM answers is scheduled again by scheduleRoute (our break rule is not VROOM's),
//   and a job it finds late leaves the route for `unassigned`, so the plan never holds a route our
//   own evaluation calls infeasible.
// Failures name the source: an unreachable or slow server, or one that closes the connection
// without answering, is `provider_unavailable`, an answer that is an error or not a VROOM solution
// is `provider_failed`; nothing falls back silently. A route plan answers either as a 502 problem,
// nothing applied (activities/routing/index.ts, infra/temporal/route-plans.ts).
import { z } from 'zod';
import { providerFailed, providerUnavailable } from '../../domain/errors/errors';
import type { RoutingProblem, RoutingSolution, SolveOptions, Solver } from '../../domain/routing/problem';
import { breakPoint, scheduleRoute } from '../../domain/routing/route-schedule';

export interface VroomSolverOptions {
  /** vroom-express's base URL; the problem is POSTed to it. */
  url: string;
  /** VROOM seconds per unit of the problem's times: 60 when the problem counts minutes. */
  secondsPerUnit?: number;
  /** How long to wait for the answer. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** Rounding noise of the unit conversion (e.g. 0.1 * 60) that must not push a value up a whole second. */
const NOISE = 1e-6;

export interface VroomRequest {
  body: {
    jobs: { id: number; location_index: number; service: number; skills?: number[]; delivery?: number[]; time_windows: [number, number][] }[];
    vehicles: {
      id: number;
      profile: 'car';
      start_index: number;
      end_index: number;
      time_window: [number, number];
      skills?: number[];
      capacity?: number[];
      breaks?: { id: number; time_windows: [number, number][]; service: number }[];
      costs?: { fixed: number };
    }[];
    matrices: { car: { durations: number[][] } };
  };
  /** Jobs not sent (no crew may take them, or their window is empty in whole seconds). */
  notSent: number[];
}

export function vroomRequest(problem: RoutingProblem, secondsPerUnit: number): VroomRequest {
  const starts = [...problem.crews.map((crew) => crew.shiftStart), ...problem.jobs.map((job) => job.windowStart)];
  const origin = Math.min(0, ...starts);
  const up = (value: number) => Math.max(0, Math.ceil((value - origin) * secondsPerUnit - NOISE));
  const down = (value: number) => Math.max(0, Math.floor((value - origin) * secondsPerUnit + NOISE));
  const span = (value: number) => Math.max(0, Math.ceil(value * secondsPerUnit - NOISE));
  const patterns = new Map<string, number>();
  const crewSkills: number[][] = problem.crews.map(() => []);
  const withCapacity = problem.crews.some((crew) => Number.isFinite(crew.capacity));
  const totalDemand = problem.jobs.reduce((sum, job) => sum + Math.ceil(job.demand), 0);
  const notSent: number[] = [];
  const jobs: VroomRequest['body']['jobs'] = [];
  problem.jobs.forEach((job, index) => {
    const row = problem.crews.map((_, crew) => problem.allowed[index]?.[crew] === true);
    const windowStart = up(job.windowStart);
    const windowEnd = down(job.windowEnd);
    if (!row.some(Boolean) || windowEnd < windowStart) {
      notSent.push(index);
      return;
    }
    let skill: number | undefined;
    if (!row.every(Boolean)) {
      const key = row.map((allowed) => (allowed ? '1' : '0')).join('');
      skill = patterns.get(key);
      if (skill === undefined) {
        skill = patterns.size + 1;
        patterns.set(key, skill);
        row.forEach((allowed, crew) => allowed && crewSkills[crew]!.push(skill!));
      }
    }
    jobs.push({
      id: index + 1,
      location_index: job.location,
      service: span(job.serviceTime),
      ...(skill === undefined ? {} : { skills: [skill] }),
      ...(withCapacity ? { delivery: [Math.ceil(job.demand)] } : {}),
      time_windows: [[windowStart, windowEnd]],
    });
  });
  const { perVehicle, perTravel } = problem.objective;
  const vehicles: VroomRequest['body']['vehicles'] = problem.crews.map((crew, index) => {
    const latestReturn = down(crew.shiftEnd + crew.overtimeCap);
    const breakStart = up(breakPoint(crew.shiftStart, crew.shiftEnd));
    return {
      id: index + 1,
      profile: 'car',
      start_index: crew.depot,
      end_index: crew.depot,
      time_window: [Math.min(up(crew.shiftStart), latestReturn), latestReturn],
      ...(crewSkills[index]!.length > 0 ? { skills: crewSkills[index]! } : {}),
      ...(withCapacity ? { capacity: [Number.isFinite(crew.capacity) ? Math.max(0, Math.floor(crew.capacity)) : totalDemand] } : {}),
      ...(crew.breakTime > 0 && breakStart <= latestReturn ? { breaks: [{ id: 1, time_windows: [[breakStart, latestReturn]], service: span(crew.breakTime) }] } : {}),
      ...(perVehicle > 0 && perTravel > 0 ? { costs: { fixed: Math.round((perVehicle / perTravel) * secondsPerUnit) } } : {}),
    };
  });
  return { body: { jobs, vehicles, matrices: { car: { durations: problem.travel.map((row) => row.map(span)) } } }, notSent };
}

const VroomAnswer = z.object({
  code: z.literal(0),
  routes: z.array(z.object({ vehicle: z.number().int().nonnegative(), steps: z.array(z.object({ type: z.enum(['start', 'job', 'pickup', 'delivery', 'break', 'end']), id: z.number().int().nonnegative().optional() })) })),
  unassigned: z.array(z.object({ id: z.number().int().nonnegative() })),
});
const VroomError = z.object({ code: z.number().int(), error: z.string() });

export class VroomSolver implements Solver {
  readonly name = 'vroom';
  readonly #url: string;
  readonly #source: string;
  readonly #secondsPerUnit: number;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: VroomSolverOptions) {
    this.#url = options.url;
    // The origin alone: credentials in the URL never reach a message.
    this.#source = `VROOM at ${new URL(options.url).origin}`;
    this.#secondsPerUnit = options.secondsPerUnit ?? 60;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#fetch = options.fetch ?? fetch;
  }

  async solve(problem: RoutingProblem, _options: SolveOptions): Promise<RoutingSolution> {
    const { body, notSent } = vroomRequest(problem, this.#secondsPerUnit);
    if (body.jobs.length === 0 || body.vehicles.length === 0) return { routes: [], unassigned: problem.jobs.map((job) => job.id) };
    const answer = await this.#post(body);
    return this.#read(problem, answer, body.jobs.map((job) => job.id - 1), notSent);
  }

  async #post(body: VroomRequest['body']): Promise<unknown> {
    let response: Response;
    try {
      response = await this.#fetch(this.#url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      if (timedOut(error)) throw providerUnavailable(`${this.#source} did not answer within ${this.#timeoutMs} ms.`);
      if (closedWithoutAnswer(error)) throw providerUnavailable(`${this.#source} closed the connection without an answer.`);
      throw providerUnavailable(`${this.#source} is unreachable (${networkCause(error)}).`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (timedOut(error)) throw providerUnavailable(`${this.#source} did not finish its answer within ${this.#timeoutMs} ms.`);
      throw providerUnavailable(`${this.#source} broke off its answer (${networkCause(error)}).`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw providerFailed(`${this.#source} answered HTTP ${response.status} with something that is not JSON.`);
    }
    const failure = VroomError.safeParse(parsed);
    if (failure.success && failure.data.code !== 0) throw providerFailed(`${this.#source} answered HTTP ${response.status}, VROOM code ${failure.data.code}: ${failure.data.error.slice(0, 300)}`);
    if (!response.ok) throw providerFailed(`${this.#source} answered HTTP ${response.status}.`);
    return parsed;
  }

  #read(problem: RoutingProblem, answer: unknown, sent: number[], notSent: number[]): RoutingSolution {
    const parsed = VroomAnswer.safeParse(answer);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw providerFailed(`${this.#source} answered something that is not a VROOM solution (${issue ? `${issue.path.join('.') || 'the body'}: ${issue.message}` : 'unreadable'}).`);
    }
    const garbage = (what: string) => providerFailed(`${this.#source} answered a plan that ${what}.`);
    const expected = new Set(sent);
    const placed = new Set<number>();
    const take = (id: number): number => {
      const job = id - 1;
      if (!expected.has(job)) throw garbage(`names job ${id}, which was not sent`);
      if (placed.has(job)) throw garbage(`holds job ${id} twice`);
      placed.add(job);
      return job;
    };
    const usedVehicles = new Set<number>();
    const routes: RoutingSolution['routes'] = [];
    const unassigned = [...notSent];
    for (const route of parsed.data.routes) {
      const crew = route.vehicle - 1;
      if (!problem.crews[crew] || usedVehicles.has(crew)) throw garbage(problem.crews[crew] ? `names vehicle ${route.vehicle} twice` : `names vehicle ${route.vehicle}, which was not sent`);
      usedVehicles.add(crew);
      const jobs = route.steps.flatMap((step) => {
        if (step.type === 'pickup' || step.type === 'delivery') throw garbage('holds shipment steps, which were not sent');
        if (step.type !== 'job') return [];
        if (step.id === undefined) throw garbage('has a job step without its id');
        return [take(step.id)];
      });
      for (const job of jobs) if (!problem.allowed[job]?.[crew]) throw garbage(`gives job ${job + 1} to vehicle ${route.vehicle}, which lacks its skill`);
      const kept = keepFeasible(problem, crew, jobs, unassigned);
      if (kept.length > 0) routes.push({ crewId: problem.crews[crew]!.id, jobIds: kept.map((job) => problem.jobs[job]!.id) });
    }
    for (const { id } of parsed.data.unassigned) unassigned.push(take(id));
    if (placed.size !== expected.size) throw garbage(`leaves ${expected.size - placed.size} job(s) neither in a route nor unassigned`);
    return { routes, unassigned: unassigned.sort((a, b) => a - b).map((job) => problem.jobs[job]!.id) };
  }
}

/** Drops, one at a time, the first job scheduleRoute finds in violation. */
function keepFeasible(problem: RoutingProblem, crew: number, jobs: number[], unassigned: number[]): number[] {
  let kept = jobs;
  for (;;) {
    const first = scheduleRoute(problem, crew, kept).violations[0];
    if (!first) return kept;
    unassigned.push(first.jobIndex);
    kept = kept.filter((job) => job !== first.jobIndex);
  }
}

// Errors are read by shape, not `instanceof`: fetch's errors may come from another realm.
type ErrorLike = { name?: unknown; message?: unknown; code?: unknown; cause?: unknown };
const asErrorLike = (value: unknown): ErrorLike => (typeof value === 'object' && value !== null ? (value as ErrorLike) : {});

function timedOut(error: unknown): boolean {
  const { name } = asErrorLike(error);
  return name === 'TimeoutError' || name === 'AbortError';
}

/** undici's SocketError ("other side closed"): the server took the connection and closed it before answering. */
function closedWithoutAnswer(error: unknown): boolean {
  return asErrorLike(asErrorLike(error).cause).code === 'UND_ERR_SOCKET';
}

/** undici's `fetch failed` carries the socket's error code (ECONNREFUSED, ...) as its cause. */
function networkCause(error: unknown): string {
  const cause = asErrorLike(asErrorLike(error).cause);
  if (typeof cause.code === 'string') return cause.code;
  if (typeof cause.message === 'string') return cause.message;
  const { message } = asErrorLike(error);
  return typeof message === 'string' ? message : String(error);
}
