// Ruin and recreate after Christiaens and Vanden Berghe's SISR (slack induction by string
// removals, Transportation Science 2020): remove strings of consecutive stops from a few routes
// that lie near each other, so the routes around a seed lose the same stretch of the map and gain
// the slack to be rebuilt differently; then reinsert the removed jobs one by one, each at its
// cheapest place, skipping a place now and then ("blinks") so the search does not always rebuild
// the same answer.
import type { Random } from './random';
import type { RouteState } from './state';

export interface RuinParameters {
  /** Mean number of jobs removed. */
  averageRemoved: number;
  /** Longest string removed from one route. */
  maxString: number;
  /** Probability of a split string (a stretch kept inside the removed one). */
  splitRate: number;
  /** Probability of skipping each candidate place when recreating. */
  blinkRate: number;
  /**
   * Probability of emptying a whole route instead (the shorter of two drawn at random): the move
   * that takes a vehicle away, which pays when routes cost (`perVehicle`).
   */
  routeRemovalRate: number;
}

export const DEFAULT_RUIN: RuinParameters = { averageRemoved: 10, maxString: 10, splitRate: 0.5, blinkRate: 0.01, routeRemovalRate: 0.01 };

export function ruin(state: RouteState, rng: Random, parameters: RuinParameters): number[] {
  const ws = state.ws;
  const removed: number[] = state.unassigned;
  state.unassigned = [];
  let assigned = 0;
  let used = 0;
  for (const route of state.routes) {
    assigned += route.length;
    if (route.length > 0) used++;
  }
  if (assigned === 0) return removed;
  if (used >= 2 && rng.next() < parameters.routeRemovalRate) {
    const crew = shorterOfTwoRoutes(state, used, rng);
    for (const job of state.own(crew).splice(0)) {
      state.routeOf[job] = -1;
      removed.push(job);
    }
    state.refresh(crew);
    return removed;
  }
  const meanLength = assigned / used;
  const maxString = Math.min(parameters.maxString, meanLength);
  const maxStrings = (4 * parameters.averageRemoved) / (1 + maxString) - 1;
  const strings = Math.floor(rng.next() * maxStrings) + 1;
  let seed = Math.floor(rng.next() * ws.jobCount);
  while (state.routeOf[seed]! < 0) seed = (seed + 1) % ws.jobCount;
  const ruined: number[] = [];
  const neighbours = ws.neighbours[seed]!;
  for (let k = -1; k < neighbours.length && ruined.length < strings; k++) {
    const job = k < 0 ? seed : neighbours[k]!;
    const crew = state.routeOf[job]!;
    if (crew < 0 || ruined.includes(crew)) continue;
    const route = state.routes[crew]!;
    const stringLength = Math.floor(rng.next() * Math.min(route.length, maxString)) + 1;
    const position = state.positionOf[job]!;
    if (stringLength < route.length && rng.next() < parameters.splitRate) removeSplitString(state, crew, position, stringLength, rng, removed);
    else removeString(state, crew, position, stringLength, rng, removed);
    ruined.push(crew);
  }
  for (const crew of ruined) state.repair(crew, removed);
  return removed;
}

function shorterOfTwoRoutes(state: RouteState, used: number, rng: Random): number {
  const nthUsed = (n: number): number => {
    for (let crew = 0, seen = 0; crew < state.routes.length; crew++) {
      if (state.routes[crew]!.length > 0 && seen++ === n) return crew;
    }
    throw new RangeError(`no used route number ${n}`);
  };
  const a = nthUsed(Math.floor(rng.next() * used));
  const b = nthUsed(Math.floor(rng.next() * used));
  return state.routes[b]!.length < state.routes[a]!.length ? b : a;
}

function removeString(state: RouteState, crew: number, position: number, length: number, rng: Random, removed: number[]): void {
  const route = state.own(crew);
  const first = clampStart(position - Math.floor(rng.next() * length), length, route.length);
  for (const job of route.splice(first, length)) {
    state.routeOf[job] = -1;
    removed.push(job);
  }
}

/** Removes `length` jobs of a string of `length + kept` around `position`, keeping `kept` in the middle. */
function removeSplitString(state: RouteState, crew: number, position: number, length: number, rng: Random, removed: number[]): void {
  const route = state.own(crew);
  let kept = 1;
  while (length + kept < route.length && rng.next() > 0.5) kept++;
  const span = length + kept;
  const first = clampStart(position - Math.floor(rng.next() * span), span, route.length);
  const keepAt = first + Math.floor(rng.next() * (length + 1));
  const taken = route.splice(first, span);
  const back = taken.splice(keepAt - first, kept);
  route.splice(first, 0, ...back);
  for (const job of taken) {
    state.routeOf[job] = -1;
    removed.push(job);
  }
}

function clampStart(first: number, length: number, routeLength: number): number {
  return Math.max(0, Math.min(first, routeLength - length));
}

type Order = (a: number, b: number) => number;

export function recreate(state: RouteState, removed: number[], rng: Random, parameters: RuinParameters): void {
  const ws = state.ws;
  const orders: [number, Order][] = [
    [4, () => 0],
    [4, (a, b) => ws.demand[b]! - ws.demand[a]!],
    [2, (a, b) => depotDistance(state, b) - depotDistance(state, a)],
    [1, (a, b) => depotDistance(state, a) - depotDistance(state, b)],
    [2, (a, b) => ws.windowEnd[a]! - ws.windowStart[a]! - (ws.windowEnd[b]! - ws.windowStart[b]!)],
    [2, (a, b) => ws.windowEnd[a]! - ws.windowEnd[b]!],
  ];
  shuffle(removed, rng);
  let pick = rng.next() * orders.reduce((sum, [weight]) => sum + weight, 0);
  for (const [weight, order] of orders) {
    pick -= weight;
    if (pick < 0) {
      removed.sort(order);
      break;
    }
  }
  const blink = () => rng.next();
  for (const job of removed) {
    let best = Infinity;
    let bestCrew = -1;
    let bestPosition = -1;
    for (let crew = 0; crew < ws.crewCount; crew++) {
      state.bestInsertion(job, crew, best, blink, parameters.blinkRate);
      if (state.foundPosition >= 0) {
        best = state.foundDelta;
        bestCrew = crew;
        bestPosition = state.foundPosition;
      }
    }
    if (bestCrew < 0) state.unassigned.push(job);
    else state.insert(job, bestCrew, bestPosition);
  }
}

function depotDistance(state: RouteState, job: number): number {
  return state.ws.t(state.ws.depot[0] ?? 0, state.ws.location[job]!);
}

function shuffle(items: number[], rng: Random): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    const swap = items[i]!;
    items[i] = items[j]!;
    items[j] = swap;
  }
}
