// Local search, run on each new best answer of the ruin-and-recreate search to finish it off:
// - 2-opt* (Potvin and Rousseau, 1995): two routes swap their tails, which untangles routes that
//   cross; checked in O(1) per cut pair with the forward departures, the backward latest starts
//   and the prefix loads of state.ts;
// - relocate: a job moves to its cheapest place in any route when that saves more than its
//   removal costs.
// Each pass applies its best (2-opt*) or every (relocate) improving move, until neither improves.
import type { RouteState } from './state';

/** Smallest saving counted as one, so that rounding noise never loops. */
const IMPROVEMENT = 1e-9;
/** Timing slack under which a 2-opt* is refused rather than confirmed: the move is only an intensifier. */
const TIGHT = 1e-7;
const MAX_PASSES = 50;

export function localSearch(state: RouteState): void {
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const crossed = twoOptStar(state);
    const moved = relocate(state);
    if (!crossed && !moved) return;
  }
}

function twoOptStar(state: RouteState): boolean {
  const ws = state.ws;
  const travel = ws.travel;
  const size = ws.size;
  const location = ws.location;
  let bestDelta = -IMPROVEMENT;
  let bestA = -1;
  let bestB = -1;
  let bestI = 0;
  let bestJ = 0;
  for (let a = 0; a < ws.crewCount; a++) {
    if (ws.exact[a]) continue;
    const routeA = state.routes[a]!;
    const lengthA = routeA.length;
    for (let b = a + 1; b < ws.crewCount; b++) {
      // Tails keep their latest starts only between crews with the same depot and latest return.
      if (ws.exact[b] || ws.depot[b] !== ws.depot[a] || ws.latestReturn[b] !== ws.latestReturn[a]) continue;
      const routeB = state.routes[b]!;
      const lengthB = routeB.length;
      if (lengthA + lengthB === 0) continue;
      const depot = ws.depot[a]!;
      const usedBefore = (lengthA > 0 ? 1 : 0) + (lengthB > 0 ? 1 : 0);
      for (let i = -1; i < lengthA; i++) {
        const prevA = i < 0 ? depot : location[routeA[i]!]!;
        const nextA = i + 1 < lengthA ? location[routeA[i + 1]!]! : depot;
        const leaveA = i < 0 ? ws.shiftStart[a]! : state.departure[a]![i]!;
        const headLoadA = i < 0 ? 0 : state.prefixLoad[a]![i]!;
        for (let j = -1; j < lengthB; j++) {
          if ((i === lengthA - 1 && j === lengthB - 1) || (i === -1 && j === -1)) continue;
          const prevB = j < 0 ? depot : location[routeB[j]!]!;
          const nextB = j + 1 < lengthB ? location[routeB[j + 1]!]! : depot;
          const usedAfter = (i + 1 + lengthB - j - 1 > 0 ? 1 : 0) + (j + 1 + lengthA - i - 1 > 0 ? 1 : 0);
          const delta = ws.perTravel * (travel[prevA * size + nextB]! + travel[prevB * size + nextA]! - travel[prevA * size + nextA]! - travel[prevB * size + nextB]!) + ws.perVehicle * (usedAfter - usedBefore);
          if (delta >= bestDelta) continue;
          const headLoadB = j < 0 ? 0 : state.prefixLoad[b]![j]!;
          if (headLoadA + state.load[b]! - headLoadB > ws.capacity[a]! || headLoadB + state.load[a]! - headLoadA > ws.capacity[b]!) continue;
          const latestB = j + 1 < lengthB ? state.latestStart[b]![j + 1]! : ws.latestReturn[a]!;
          if (leaveA + travel[prevA * size + nextB]! > latestB - TIGHT) continue;
          const leaveB = j < 0 ? ws.shiftStart[b]! : state.departure[b]![j]!;
          const latestA = i + 1 < lengthA ? state.latestStart[a]![i + 1]! : ws.latestReturn[b]!;
          if (leaveB + travel[prevB * size + nextA]! > latestA - TIGHT) continue;
          if (!ws.allowedEverywhere && (!tailAllowed(state, routeB, j + 1, a) || !tailAllowed(state, routeA, i + 1, b))) continue;
          bestDelta = delta;
          bestA = a;
          bestB = b;
          bestI = i;
          bestJ = j;
        }
      }
    }
  }
  if (bestA < 0) return false;
  const routeA = state.routes[bestA]!;
  const routeB = state.routes[bestB]!;
  const before = state.totalCost();
  const onTimeA = state.replace(bestA, [...routeA.slice(0, bestI + 1), ...routeB.slice(bestJ + 1)]);
  const onTimeB = state.replace(bestB, [...routeB.slice(0, bestJ + 1), ...routeA.slice(bestI + 1)]);
  if (onTimeA && onTimeB && state.totalCost() < before) return true;
  state.replace(bestA, routeA);
  state.replace(bestB, routeB);
  return false;
}

function tailAllowed(state: RouteState, route: number[], from: number, crew: number): boolean {
  for (let position = from; position < route.length; position++) if (!state.ws.isAllowed(route[position]!, crew)) return false;
  return true;
}

function relocate(state: RouteState): boolean {
  const ws = state.ws;
  let improved = false;
  for (let job = 0; job < ws.jobCount; job++) {
    const from = state.routeOf[job]!;
    if (from < 0) continue;
    const position = state.positionOf[job]!;
    const before = state.cost[from]!;
    state.detach(job);
    const onTime = state.refresh(from);
    const saving = before - state.cost[from]!;
    let bestCrew = -1;
    let bestPosition = -1;
    let bound = saving - IMPROVEMENT;
    if (onTime && Number.isFinite(saving)) {
      for (let crew = 0; crew < ws.crewCount; crew++) {
        state.bestInsertion(job, crew, bound, null, 0);
        if (state.foundPosition >= 0) {
          bound = state.foundDelta;
          bestCrew = crew;
          bestPosition = state.foundPosition;
        }
      }
    }
    if (bestCrew < 0) {
      state.insert(job, from, position);
      continue;
    }
    state.insert(job, bestCrew, bestPosition);
    improved = true;
  }
  return improved;
}
