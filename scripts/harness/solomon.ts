// Solomon's VRPTW instances in LKH-3's CVRPTW format (../shared/benchmarks/solomon-100/README.md),
// as a RoutingProblem for any Solver, and a checker of answers written from the README alone: it
// shares nothing with the solver (not scheduleRoute, not its travel matrix), so a solver bug that
// both sides would agree on cannot hide behind it.
import type { RoutingProblem } from '../../domain/routing/problem';

export interface SolomonNode {
  /** The node number of the file (1 is the depot). */
  node: number;
  x: number;
  y: number;
  demand: number;
  ready: number;
  due: number;
  service: number;
}

export interface SolomonInstance {
  name: string;
  vehicles: number;
  capacity: number;
  scale: number;
  /** nodes[0] is the depot. */
  nodes: SolomonNode[];
}

export function parseSolomon(text: string): SolomonInstance {
  const header = new Map<string, string>();
  const sections = new Map<string, string[][]>();
  let section: string[][] | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line === 'EOF') continue;
    const pair = /^([A-Z_]+)\s*:\s*(.*)$/.exec(line);
    if (pair) {
      header.set(pair[1]!, pair[2]!.trim());
      section = null;
      continue;
    }
    if (/^[A-Z_]+_SECTION$/.test(line)) {
      section = [];
      sections.set(line, section);
      continue;
    }
    section?.push(line.split(/\s+/));
  }
  const number = (key: string): number => {
    const value = Number(header.get(key));
    if (!Number.isFinite(value)) throw new Error(`the instance has no ${key}`);
    return value;
  };
  const rows = (name: string): Map<number, number[]> => {
    const found = sections.get(name);
    if (!found) throw new Error(`the instance has no ${name}`);
    return new Map(found.map((cells) => [Number(cells[0]), cells.slice(1).map(Number)]));
  };
  const coordinates = rows('NODE_COORD_SECTION');
  const demands = rows('DEMAND_SECTION');
  const windows = rows('TIME_WINDOW_SECTION');
  const depot = Number(sections.get('DEPOT_SECTION')?.[0]?.[0] ?? 1);
  if (depot !== 1) throw new Error(`expected node 1 as the depot, not ${depot}`);
  const service = number('SERVICE_TIME');
  const dimension = number('DIMENSION');
  const nodes: SolomonNode[] = [];
  for (let node = 1; node <= dimension; node++) {
    const [x, y] = coordinates.get(node) ?? [];
    const [demand] = demands.get(node) ?? [];
    const [ready, due] = windows.get(node) ?? [];
    if ([x, y, demand, ready, due].some((value) => value === undefined || !Number.isFinite(value))) throw new Error(`node ${node} is incomplete`);
    nodes.push({ node, x: x!, y: y!, demand: demand!, ready: ready!, due: due!, service: node === 1 ? 0 : service });
  }
  return { name: header.get('NAME') ?? 'unnamed', vehicles: number('VEHICLES'), capacity: number('CAPACITY'), scale: number('SCALE'), nodes };
}

function euclidean(a: SolomonNode, b: SolomonNode): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/**
 * The instance as a RoutingProblem: matrix index i is node i + 1, job i - 1 is node i + 1; one
 * crew per vehicle of the best-known answer; travel time is the Euclidean distance; the objective
 * is the distance driven (README: at most `vehicles` routes, compared on distance).
 */
export function solomonProblem(instance: SolomonInstance): RoutingProblem {
  const [depot, ...customers] = instance.nodes;
  if (!depot) throw new Error('the instance has no depot');
  return {
    jobs: customers.map((node, index) => ({ id: String(node.node), location: index + 1, windowStart: node.ready, windowEnd: node.due, serviceTime: node.service, demand: node.demand })),
    crews: Array.from({ length: instance.vehicles }, (_, vehicle) => ({
      id: `vehicle-${vehicle + 1}`,
      depot: 0,
      shiftStart: depot.ready,
      shiftEnd: depot.due,
      breakTime: 0,
      overtimeCap: 0,
      capacity: instance.capacity,
    })),
    travel: instance.nodes.map((from) => instance.nodes.map((to) => euclidean(from, to))),
    allowed: customers.map(() => Array.from({ length: instance.vehicles }, () => true)),
    objective: { perVehicle: 0, perTravel: 1, perOvertime: 0 },
  };
}

export interface SolomonVerdict {
  feasible: boolean;
  /** What makes it infeasible, in words. */
  faults: string[];
  vehicles: number;
  /** Sum over the edges driven of floor(scale × Euclidean distance) (FLOOR_2D). */
  scaledDistance: number;
}

/** Rounding slack of the time checks, far below any unit of the instances. */
const SLACK = 1e-6;

/** Checks routes given as node numbers of the file, the depot left out. */
export function checkSolomon(instance: SolomonInstance, routes: number[][]): SolomonVerdict {
  const faults: string[] = [];
  const depot = instance.nodes[0]!;
  const byNumber = new Map(instance.nodes.map((node) => [node.node, node]));
  const seen = new Map<number, number>();
  let scaledDistance = 0;
  const nonEmpty = routes.filter((route) => route.length > 0);
  if (nonEmpty.length > instance.vehicles) faults.push(`${nonEmpty.length} routes, more than the ${instance.vehicles} vehicles of the best-known answer`);
  nonEmpty.forEach((route, index) => {
    let at = depot;
    let clock = depot.ready;
    let load = 0;
    for (const number of route) {
      const node = byNumber.get(number);
      if (!node || number === depot.node) {
        faults.push(`route ${index + 1} visits ${number}, which is not a customer`);
        return;
      }
      seen.set(number, (seen.get(number) ?? 0) + 1);
      scaledDistance += Math.floor(instance.scale * euclidean(at, node));
      const arrival = clock + euclidean(at, node);
      if (arrival > node.due + SLACK) faults.push(`route ${index + 1} reaches customer ${number} at ${arrival.toFixed(3)}, after its window closes at ${node.due}`);
      clock = Math.max(arrival, node.ready) + node.service;
      load += node.demand;
      at = node;
    }
    scaledDistance += Math.floor(instance.scale * euclidean(at, depot));
    const back = clock + euclidean(at, depot);
    if (back > depot.due + SLACK) faults.push(`route ${index + 1} is back at ${back.toFixed(3)}, after the depot closes at ${depot.due}`);
    if (load > instance.capacity) faults.push(`route ${index + 1} carries ${load}, more than the capacity ${instance.capacity}`);
  });
  for (const node of instance.nodes.slice(1)) {
    const visits = seen.get(node.node) ?? 0;
    if (visits !== 1) faults.push(`customer ${node.node} is visited ${visits} times`);
  }
  return { feasible: faults.length === 0, faults, vehicles: nonEmpty.length, scaledDistance };
}
