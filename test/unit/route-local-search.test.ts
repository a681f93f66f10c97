import { describe, expect, it } from '@jest/globals';
import type { RoutingProblem } from '../../domain/routing/problem';
import { localSearch } from '../../domain/routing/solver/local-search';
import { RouteState } from '../../domain/routing/solver/state';
import { Workspace } from '../../domain/routing/solver/workspace';

// D23: the built-in solver's local search. Four jobs on a line either side of the depot (place 0
// at x = 0), two crews; routes that cross the depot are untangled by swapping their tails (2-opt*).
const xs = [0, -1, 2, 1, -2];
const lineProblem = (allowed: boolean[][]): RoutingProblem => ({
  jobs: xs.slice(1).map((_, index) => ({ id: `j${index + 1}`, location: index + 1, windowStart: 0, windowEnd: 100, serviceTime: 0, demand: 1 })),
  crews: [0, 1].map((crew) => ({ id: `c${crew + 1}`, depot: 0, shiftStart: 0, shiftEnd: 100, breakTime: 0, overtimeCap: 0, capacity: 2 })),
  travel: xs.map((a) => xs.map((b) => Math.abs(a - b))),
  allowed,
  objective: { perVehicle: 0, perTravel: 1, perOvertime: 0 },
});

function crossed(problem: RoutingProblem): RouteState {
  const state = new RouteState(new Workspace(problem));
  // c1: x = -1 then +2; c2: x = +1 then -2. Each route drives 1 + 3 + 2 = 6.
  state.replace(0, [0, 1]);
  state.replace(1, [2, 3]);
  return state;
}

describe('the solver\'s local search (D23)', () => {
  it('untangles two crossing routes into one per side of the depot', () => {
    const state = crossed(lineProblem([[true, true], [true, true], [true, true], [true, true]]));
    expect(state.totalCost()).toBe(12);
    localSearch(state);
    expect(state.totalCost()).toBe(8);
    expect(state.routes.map((route) => [...route].sort()).sort()).toEqual([[0, 3], [1, 2]]);
  });

  it('moves nothing to a crew the constraint checker excluded, even when it would be shorter', () => {
    // Each job may stay only with the crew that has it: the crossing cannot be undone.
    const state = crossed(lineProblem([[true, false], [true, false], [false, true], [false, true]]));
    localSearch(state);
    expect(state.routes.map((route) => [...route].sort())).toEqual([[0, 1], [2, 3]]);
    expect(state.totalCost()).toBe(12);
  });
});
