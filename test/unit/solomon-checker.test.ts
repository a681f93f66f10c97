import { describe, expect, it } from '@jest/globals';
import { checkSolomon, parseSolomon, solomonProblem } from '../../scripts/harness/solomon';

// The routes benchmark's own checker (D23), independent of the solver: it must catch each way an
// answer can be wrong, since the bench's verdicts rest on it.
const INSTANCE = `NAME : TINY
TYPE : CVRPTW
DIMENSION : 4
VEHICLES : 2
CAPACITY : 10
SERVICE_TIME : 5
SCALE : 10
EDGE_WEIGHT_TYPE : FLOOR_2D
NODE_COORD_SECTION
1 0 0
2 3 4
3 6 8
4 0 1.5
DEMAND_SECTION
1 0
2 4
3 4
4 6
TIME_WINDOW_SECTION
1 0 100
2 0 10
3 0 20
4 0 3
DEPOT_SECTION
1
-1
EOF
`;

describe('the Solomon checker of bench:routes (D23)', () => {
  const instance = parseSolomon(INSTANCE);

  it('reads the instance as the README describes it', () => {
    expect(instance).toMatchObject({ name: 'TINY', vehicles: 2, capacity: 10, scale: 10 });
    expect(instance.nodes[1]).toEqual({ node: 2, x: 3, y: 4, demand: 4, ready: 0, due: 10, service: 5 });
    expect(instance.nodes[0]!.service).toBe(0);
    const problem = solomonProblem(instance);
    expect(problem.jobs.map((job) => job.id)).toEqual(['2', '3', '4']);
    expect(problem.travel[0]![1]).toBe(5);
  });

  it('accepts a feasible answer and sums floor(10 x distance) per edge', () => {
    // 1->2->3->1: 5 + 5 + 10 = 20 -> 200; 1->4->1: 1.5 + 1.5 -> 15 + 15.
    expect(checkSolomon(instance, [[2, 3], [4]])).toEqual({ feasible: true, faults: [], vehicles: 2, scaledDistance: 230 });
  });

  it('finds a late arrival, a load over capacity, a customer missed or served twice, and too many routes', () => {
    expect(checkSolomon(instance, [[3, 2], [4]]).faults).toEqual(['route 1 reaches customer 2 at 20.000, after its window closes at 10']);
    expect(checkSolomon(instance, [[4, 3, 2]]).faults).toContain('route 1 carries 14, more than the capacity 10');
    expect(checkSolomon(instance, [[2], [4]]).faults).toEqual(['customer 3 is visited 0 times']);
    expect(checkSolomon(instance, [[2, 3], [4, 2]]).faults).toContain('customer 2 is visited 2 times');
    expect(checkSolomon(instance, [[2], [3], [4]]).faults).toEqual(['3 routes, more than the 2 vehicles of the best-known answer']);
    expect(checkSolomon(instance, [[2, 3, 1], [4]]).faults).toEqual(['route 1 visits 1, which is not a customer']);
  });
});
