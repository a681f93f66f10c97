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
  /** Load carried up to and including each stop. */
  prefixLoad: number[][];
  load: Float64Array;
  travel: Float64Array;
  cost: Float64Array;
  routeOf: Int32Array;
  positionOf: Int32Array;
  unassigned: number[];
  /**
   * Copy on write: a clone shares its source's sequences and copies one only before changing it
   * (`own`); passes are never changed in place, only replaced by `refresh`. Most moves touch a
   * few routes, so a clone costs little.
   */
  readonly #owned: Uint8Array;

  constructor(readonly ws: Workspace, source?: RouteState) {
    this.#owned = new Uint8Array(ws.crewCount);
    if (source) {
      // Neither side may now change a shared sequence in place.
      source.#owned.fill(0);
      this.routes = source.routes.slice();
      this.departure = source.departure.slice();
      this.latestStart = source.latestStart.slice();
      this.prefixLoad = source.prefixLoad.slice();
      this.load = source.load.slice();
      this.travel = source.travel.slice();
      this.cost = source.cost.slice();
      this.routeOf = source.routeOf.slice();
      this.positionOf = source.positionOf.slice();
      this.unassigned = source.unassigned.slice();
      return;
    }
    const crews = ws.crewCount;
    this.#owned.fill(1);
    this.routes = Array.from({ length: crews }, () => []);
    this.departure = Array.from({ length: crews }, () => []);
    this.latestStart = Array.from({ length: crews }, () => []);
    this.prefixLoad = Array.from({ length: crews }, () => []);
    this.load = new Float64Array(crews);
    this.travel = new Float64Array(crews);
    this.cost = new Float64Array(crews);
    this.routeOf = new Int32Array(ws.jobCount).fill(-1);
    this.positionOf = new Int32Array(ws.jobCount).fill(-1);
    this.unassigned = [];
  }

  /** The route's sequence, this state's own copy, for changing in place. */
  own(crew: number): number[] {
    if (!this.#owned[crew]) {
      this.routes[crew] = this.routes[crew]!.slice();
      this.#owned[crew] = 1;
    }
    return this.routes[crew]!;
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
    const prefixLoad = new Array<number>(length);
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
      prefixLoad[position] = load;
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
    this.prefixLoad[crew] = prefixLoad;
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
    const start = arrival < ws.windowStart[job]! ? ws.windowStart[job]! : arrival;
    if (start > ws.windowEnd[job]!) return Infinity;
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

  /** Where `bestInsertion` found the cheapest place, and its cost change. */
  foundPosition = -1;
  foundDelta = Infinity;

  /**
   * The cheapest place for `job` in `crew`'s route that beats `bound`: sets `foundPosition`
   * (-1 when none) and `foundDelta`. One pass over the route with the O(1) checks of
   * `insertionDelta` written out, as this is the solver's innermost loop; a place whose verdict
   * needs scheduleRoute (a crew with a break, a tight fit) goes through `insertionDelta`. With a
   * `blink` source, each would-be best place is skipped with probability `blinkRate`.
   */
  bestInsertion(job: number, crew: number, bound: number, blink: (() => number) | null, blinkRate: number): void {
    const ws = this.ws;
    this.foundPosition = -1;
    this.foundDelta = bound;
    if (!ws.isAllowed(job, crew) || this.load[crew]! + ws.demand[job]! > ws.capacity[crew]!) return;
    const travel = ws.travel;
    const size = ws.size;
    const location = ws.location;
    const route = this.routes[crew]!;
    const departure = this.departure[crew]!;
    const latest = this.latestStart[crew]!;
    const length = route.length;
    const here = location[job]!;
    const opens = ws.windowStart[job]!;
    const closes = ws.windowEnd[job]!;
    const service = ws.service[job]!;
    if (opens > closes) return;
    const depot = ws.depot[crew]!;
    const exact = ws.exact[crew] === 1;
    const perTravel = ws.perTravel;
    const opening = length === 0 ? ws.perVehicle : 0;
    let prev = depot;
    let leave = ws.shiftStart[crew]!;
    for (let position = 0; position <= length; position++) {
      if (leave > closes) break;
      const next = position === length ? depot : location[route[position]!]!;
      const toHere = travel[prev * size + here]!;
      const arrival = leave + toHere;
      if (arrival <= closes) {
        const fromHere = travel[here * size + next]!;
        const arrivalNext = (arrival < opens ? opens : arrival) + service + fromHere;
        const latestNext = position === length ? ws.latestReturn[crew]! : latest[position]!;
        if (arrivalNext <= latestNext + TIGHT) {
          let delta = perTravel * (toHere + fromHere - travel[prev * size + next]!) + opening;
          if (delta < this.foundDelta && (exact || arrivalNext > latestNext - TIGHT)) delta = this.insertionDelta(job, crew, position, this.foundDelta);
          if (delta < this.foundDelta && (blink === null || blink() >= blinkRate)) {
            this.foundDelta = delta;
            this.foundPosition = position;
          }
        }
      }
      if (position < length) leave = departure[position]!;
      prev = next;
    }
  }

  /** Gives a route a new sequence (a fresh array, owned from now on). */
  replace(crew: number, jobs: number[]): boolean {
    this.routes[crew] = jobs;
    this.#owned[crew] = 1;
    return this.refresh(crew);
  }

  insert(job: number, crew: number, position: number): void {
    this.own(crew).splice(position, 0, job);
    this.refresh(crew);
  }

  /** Takes a job out of its route without refreshing it (the caller refreshes once per route). */
  detach(job: number): number {
    const crew = this.routeOf[job]!;
    const route = this.own(crew);
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
