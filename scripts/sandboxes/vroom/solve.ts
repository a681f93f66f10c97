// The sandbox's own planning, answered in VROOM's documented output: cheapest insertion of each
// job (earliest-closing window first) into a vehicle that has its skills, checked by simulating
// the route as VROOM times it (travel from the durations matrix, waiting for a window, service,
// breaks taken as soon as their window is open, capacity for deliveries loaded at the start).
// It makes no claim to VROOM's quality: it exists so a client can be tested against real answers.
import type { VroomBreak, VroomInput, VroomJob, VroomVehicle } from './input';

interface Step {
  type: 'start' | 'job' | 'break' | 'end';
  id?: number;
  location_index?: number;
  setup: number;
  service: number;
  waiting_time: number;
  load: number[];
  arrival: number;
  duration: number;
  violations: never[];
}

interface Simulated {
  steps: Step[];
  travel: number;
  service: number;
  waiting: number;
}

function simulate(input: VroomInput, vehicle: VroomVehicle, jobs: VroomJob[]): Simulated | null {
  const matrix = input.durations.get(vehicle.profile)!;
  const delivered = (vehicle.capacity ?? []).map((_, k) => jobs.reduce((sum, job) => sum + (job.delivery[k] ?? 0), 0));
  if (vehicle.capacity && delivered.some((amount, k) => amount > vehicle.capacity![k]!)) return null;
  const skills = new Set(vehicle.skills);
  if (jobs.some((job) => job.skills.some((skill) => !skills.has(skill)))) return null;
  const load = delivered.slice();
  let at = vehicle.start_index ?? jobs[0]?.location_index ?? vehicle.end_index!;
  let clock = vehicle.time_window[0];
  let travel = 0;
  let service = 0;
  let waiting = 0;
  const steps: Step[] = [{ type: 'start', location_index: at, setup: 0, service: 0, waiting_time: 0, load: load.slice(), arrival: clock, duration: 0, violations: [] }];
  const pending = [...vehicle.breaks].sort((a, b) => a.time_windows[0]![0] - b.time_windows[0]![0]);
  /** Takes the next break now, or as soon as its window opens. */
  const takeBreak = (pause: VroomBreak): boolean => {
    const window = pause.time_windows.find(([, end]) => end >= clock);
    if (!window) return false;
    const start = Math.max(clock, window[0]);
    steps.push({ type: 'break', id: pause.id, setup: 0, service: pause.service, waiting_time: start - clock, load: load.slice(), arrival: clock, duration: travel, violations: [] });
    waiting += start - clock;
    service += pause.service;
    clock = start + pause.service;
    pending.shift();
    return true;
  };
  for (const job of jobs) {
    while (pending.length > 0 && pending[0]!.time_windows.some(([start, end]) => start <= clock && clock <= end)) takeBreak(pending[0]!);
    if (pending.some((pause) => pause.time_windows.every(([, end]) => end < clock))) return null;
    const leg = matrix[at]![job.location_index]!;
    const arrival = clock + leg;
    const window = job.time_windows.find(([, end]) => end >= arrival);
    if (!window) return null;
    const start = Math.max(arrival, window[0]);
    travel += leg;
    job.delivery.forEach((amount, k) => (load[k] = (load[k] ?? 0) - amount));
    steps.push({ type: 'job', id: job.id, location_index: job.location_index, setup: 0, service: job.service, waiting_time: start - arrival, load: load.slice(), arrival, duration: travel, violations: [] });
    waiting += start - arrival;
    service += job.service;
    clock = start + job.service;
    at = job.location_index;
  }
  while (pending.length > 0) if (!takeBreak(pending[0]!)) return null;
  const end = vehicle.end_index ?? at;
  const leg = matrix[at]![end]!;
  travel += leg;
  const arrival = clock + leg;
  if (arrival > vehicle.time_window[1]) return null;
  steps.push({ type: 'end', location_index: end, setup: 0, service: 0, waiting_time: 0, load: load.slice(), arrival, duration: travel, violations: [] });
  return { steps, travel, service, waiting };
}

export function solveVroom(input: VroomInput, started: number, now: () => number) {
  const sequences: VroomJob[][] = input.vehicles.map(() => []);
  const costs = input.vehicles.map(() => 0);
  const unassigned: VroomJob[] = [];
  const order = [...input.jobs].sort((a, b) => a.time_windows[0]![1] - b.time_windows[0]![1] || a.id - b.id);
  for (const job of order) {
    let best: { vehicle: number; position: number; cost: number } | null = null;
    input.vehicles.forEach((vehicle, index) => {
      const sequence = sequences[index]!;
      for (let position = 0; position <= sequence.length; position++) {
        const candidate = [...sequence.slice(0, position), job, ...sequence.slice(position)];
        const simulated = simulate(input, vehicle, candidate);
        if (!simulated) continue;
        const added = simulated.travel - costs[index]!;
        if (!best || added < best.cost) best = { vehicle: index, position, cost: added };
      }
    });
    const chosen = best as { vehicle: number; position: number; cost: number } | null;
    if (!chosen) {
      unassigned.push(job);
      continue;
    }
    sequences[chosen.vehicle]!.splice(chosen.position, 0, job);
    costs[chosen.vehicle] = simulate(input, input.vehicles[chosen.vehicle]!, sequences[chosen.vehicle]!)!.travel;
  }
  const amountSize = input.vehicles[0]?.capacity?.length ?? 0;
  const zero = () => Array.from({ length: amountSize }, () => 0);
  const routes = input.vehicles.flatMap((vehicle, index) => {
    const sequence = sequences[index]!;
    if (sequence.length === 0) return [];
    const simulated = simulate(input, vehicle, sequence)!;
    const delivery = zero().map((_, k) => sequence.reduce((sum, job) => sum + (job.delivery[k] ?? 0), 0));
    return [{ vehicle: vehicle.id, cost: simulated.travel, setup: 0, service: simulated.service, duration: simulated.travel, waiting_time: simulated.waiting, priority: 0, delivery, pickup: zero(), violations: [], steps: simulated.steps }];
  });
  const sum = (pick: (route: (typeof routes)[number]) => number) => routes.reduce((total, route) => total + pick(route), 0);
  return {
    code: 0,
    summary: {
      cost: sum((route) => route.cost),
      routes: routes.length,
      unassigned: unassigned.length,
      setup: 0,
      service: sum((route) => route.service),
      duration: sum((route) => route.duration),
      waiting_time: sum((route) => route.waiting_time),
      priority: 0,
      violations: [],
      delivery: zero().map((_, k) => sum((route) => route.delivery[k] ?? 0)),
      pickup: zero(),
      computing_times: { loading: 0, solving: Math.max(0, Math.round(now() - started)), routing: 0 },
    },
    unassigned: unassigned.map((job) => ({ id: job.id, location_index: job.location_index, type: 'job' })),
    routes,
  };
}
