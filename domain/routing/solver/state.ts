// A solution under construction, with what makes a move cheap to check: for each stop its
// departure time (the forward pass) and the latest time its service may start for the rest of the
// route to stay feasible (the backward pass, the stop's "slack" against later windows and the
// return). Inserting a job between two stops is then checked in O(1): the job must start within
// its window, and the next stop must be reached by its latest start. Both passes leave the break
// out (a break only ever delays), so for crews with a break or a priced overtime the O(1) check is
// a filter, and scheduleRoute, the one evaluation, confirms the candidate.
import { scheduleRoute } from '../route-schedule';
import type { Workspace } from './workspace';

/** Slack under which a fast verdict is confirmed by scheduleRoute, for rounding's sake. */
const TIGHT = 1e-7;

export class RouteState {
  routes: number[][];
  departure: number[][];
  latestStart: number[][];
  load: Float64Array;
  travel: Float64Array;
  cost: Float64Array;
  routeOf: Int32Array;
  positionOf: Int32Array;
  unassigned: number[];

  constructor(readonly ws: Workspace, source?: RouteState) {
    if (source) {
      this.routes = source.routes.map((route) => route.slice());
      this.departure = source.departure.map((times) => times.slice());
      this.latestStart = source.latestStart.map((times) => times.slice());
      this.load = source.load.slice();
      this.travel = source.travel.slice();
      this.cost = source.cost.slice();
      this.routeOf = source.routeOf.slice();
      this.positionOf = source.positionOf.slice();
      this.unassigned = source.unassigned.slice();
      return;
    }
    const crews = ws.crewCount;
    this.routes = Array.from({ length: crews }, () => []);
    this.departure = Array.from({ length: crews }, () => []);
    this.latestStart = Array.from({ length: crews }, () => []);
    this.load = new Float64Array(crews);
    this.travel = new Float64Array(crews);
    this.cost = new Float64Array(crews);
    this.routeOf = new Int32Array(ws.jobCount).fill(-1);
    this.positionOf = new Int32Array(ws.jobCount).fill(-1);
    this.unassigned = [];
  }

  clone(): RouteState {
    return new RouteState(this.ws, this);
  }

  totalCost(): number {
    let total = 0;
    for (let crew = 0; crew < this.cost.length; crew++) total += this.cost[crew]!;
    return total;
  }

  usedRoutes(): number {
    return this.routes.reduce((used, route) => used + (route.length > 0 ? 1 : 0), 0);
  }

  /**
   * Recomputes a route's passes, load and cost after its sequence changed; says whether the
   * route keeps its windows and its return without a break (for a crew without one, whether it
   * is feasible on time).
   */
  refresh(crew: number): boolean {
    const ws = this.ws;
    const route = this.routes[crew]!;
    const length = route.length;
    const departure = new Array<number>(length);
    const latest = new Array<number>(length);
    let at = ws.depot[crew]!;
    let clock = ws.shiftStart[crew]!;
    let load = 0;
    let travel = 0;
    let onTime = true;
    for (let position = 0; position < length; position++) {
      const job = route[position]!;
      const to = ws.location[job]!;
      const leg = ws.t(at, to);
      const arrival = clock + leg;
      const start = arrival < ws.windowStart[job]! ? ws.windowStart[job]! : arrival;
      if (start > ws.windowEnd[job]!) onTime = false;
      clock = start + ws.service[job]!;
      departure[position] = clock;
      load += ws.demand[job]!;
      travel += leg;
      at = to;
      this.routeOf[job] = crew;
      this.positionOf[job] = position;
    }
    let next = ws.depot[crew]!;
    let latestNext = ws.latestReturn[crew]!;
    for (let position = length - 1; position >= 0; position--) {
      const job = route[position]!;
      const here = ws.location[job]!;
      const byNext = latestNext - ws.t(here, next) - ws.service[job]!;
      latestNext = byNext < ws.windowEnd[job]! ? byNext : ws.windowEnd[job]!;
      latest[position] = latestNext;
      next = here;
    }
    if (length > 0) {
      const back = ws.t(at, ws.depot[crew]!);
      travel += back;
      if (clock + back > ws.latestReturn[crew]!) onTime = false;
    }
    this.departure[crew] = departure;
    this.latestStart[crew] = latest;
    this.load[crew] = load;
    this.travel[crew] = travel;
    this.cost[crew] = length === 0 ? 0 : ws.exact[crew] ? this.exactCost(crew, route) : ws.perVehicle + ws.perTravel * travel;
    return onTime;
  }

  /** The objective's cost of a sequence by scheduleRoute; Infinity when it is infeasible. */
  exactCost(crew: number, route: number[]): number {
    if (route.length === 0) return 0;
    const schedule = scheduleRoute(this.ws.problem, crew, route);
    if (schedule.violations.length > 0) return Infinity;
    return this.ws.perVehicle + this.ws.perTravel * schedule.travel + this.ws.perOvertime * schedule.overtime;
  }

  /**
   * The change of cost when `job` goes into `crew`'s route before `position`, or Infinity when it
   * cannot. Candidates whose travel alone costs at least `bound` are not confirmed (their
   * returned cost is a lower bound), since a caller looking for the cheapest has no use for them.
   */
  insertionDelta(job: number, crew: number, position: number, bound: number): number {
    const ws = this.ws;
    const route = this.routes[crew]!;
    const length = route.length;
    const prev = position === 0 ? ws.depot[crew]! : ws.location[route[position - 1]!]!;
    const next = position === length ? ws.depot[crew]! : ws.location[route[position]!]!;
    const here = ws.location[job]!;
    const arrival = (position === 0 ? ws.shiftStart[crew]! : this.departure[crew]![position - 1]!) + ws.t(prev, here);
    if (arrival > ws.windowEnd[job]!) return Infinity;
    const start = arrival < ws.windowStart[job]! ? ws.windowStart[job]! : arrival;
    const arrivalNext = start + ws.service[job]! + ws.t(here, next);
    const latestNext = position === length ? ws.latestReturn[crew]! : this.latestStart[crew]![position]!;
    if (arrivalNext > latestNext + TIGHT) return Infinity;
    const delta = ws.perTravel * (ws.t(prev, here) + ws.t(here, next) - ws.t(prev, next)) + (length === 0 ? ws.perVehicle : 0);
    if (delta >= bound) return delta;
    if (ws.exact[crew] || arrivalNext > latestNext - TIGHT) {
      const candidate = route.slice();
      candidate.splice(position, 0, job);
      const cost = ws.exact[crew] ? this.exactCost(crew, candidate) : scheduleRoute(ws.problem, crew, candidate).violations.length > 0 ? Infinity : delta;
      return ws.exact[crew] ? cost - this.cost[crew]! : cost;
    }
    return delta;
  }

  insert(job: number, crew: number, position: number): void {
    this.routes[crew]!.splice(position, 0, job);
    this.refresh(crew);
  }

  /** Takes a job out of its route without refreshing it (the caller refreshes once per route). */
  detach(job: number): number {
    const crew = this.routeOf[job]!;
    const route = this.routes[crew]!;
    route.splice(route.indexOf(job), 1);
    this.routeOf[job] = -1;
    this.positionOf[job] = -1;
    return crew;
  }

  /**
   * Makes a route feasible again after removals (only a travel matrix that breaks the triangle
   * inequality can make a shorter route late): drops the first late job until none is.
   */
  repair(crew: number, dropped: number[]): void {
    if (this.refresh(crew) && !this.ws.exact[crew]) return;
    for (;;) {
      const route = this.routes[crew]!;
      if (route.length === 0) break;
      const schedule = scheduleRoute(this.ws.problem, crew, route);
      const first = schedule.violations[0];
      if (!first) break;
      this.detach(first.jobIndex);
      dropped.push(first.jobIndex);
    }
    this.refresh(crew);
  }
}
