// The problem laid out for speed: flat typed arrays instead of objects, a flat travel matrix, and
// each job's neighbours sorted by travel time. Built once per solve; never changed.
import type { RoutingProblem } from '../problem';

export class Workspace {
  readonly jobCount: number;
  readonly crewCount: number;
  /** Side of the travel matrix. */
  readonly size: number;
  readonly travel: Float64Array;
  readonly location: Int32Array;
  readonly windowStart: Float64Array;
  readonly windowEnd: Float64Array;
  readonly service: Float64Array;
  readonly demand: Float64Array;
  readonly depot: Int32Array;
  readonly shiftStart: Float64Array;
  /** shiftEnd + overtimeCap: the latest return. */
  readonly latestReturn: Float64Array;
  readonly capacity: Float64Array;
  /**
   * Crews whose cost or feasibility the fast checks cannot settle alone (a break, or overtime
   * that costs): every candidate that passes the fast checks is confirmed by scheduleRoute.
   */
  readonly exact: Uint8Array;
  /** allowed[job * crewCount + crew]. */
  readonly allowed: Uint8Array;
  /** Every crew may take every job: moves between routes need no `allowed` check. */
  readonly allowedEverywhere: boolean;
  /** For each job, the other jobs, nearest first (travel both ways). */
  readonly neighbours: Int32Array[];
  readonly perVehicle: number;
  readonly perTravel: number;
  readonly perOvertime: number;

  constructor(readonly problem: RoutingProblem) {
    const { jobs, crews, travel, allowed, objective } = problem;
    this.jobCount = jobs.length;
    this.crewCount = crews.length;
    this.size = travel.length;
    this.perVehicle = objective.perVehicle;
    this.perTravel = objective.perTravel;
    this.perOvertime = objective.perOvertime;
    this.travel = new Float64Array(this.size * this.size);
    travel.forEach((row, a) => {
      if (row.length !== this.size) throw new RangeError(`travel row ${a} has ${row.length} entries, expected ${this.size}`);
      this.travel.set(row, a * this.size);
    });
    this.location = Int32Array.from(jobs, (job) => checkedIndex(job.location, this.size, `job ${job.id}'s location`));
    this.windowStart = Float64Array.from(jobs, (job) => job.windowStart);
    this.windowEnd = Float64Array.from(jobs, (job) => job.windowEnd);
    this.service = Float64Array.from(jobs, (job) => job.serviceTime);
    this.demand = Float64Array.from(jobs, (job) => job.demand);
    this.depot = Int32Array.from(crews, (crew) => checkedIndex(crew.depot, this.size, `crew ${crew.id}'s depot`));
    this.shiftStart = Float64Array.from(crews, (crew) => crew.shiftStart);
    this.latestReturn = Float64Array.from(crews, (crew) => crew.shiftEnd + crew.overtimeCap);
    this.capacity = Float64Array.from(crews, (crew) => crew.capacity);
    this.exact = Uint8Array.from(crews, (crew) => (crew.breakTime > 0 || (crew.overtimeCap > 0 && objective.perOvertime !== 0) ? 1 : 0));
    this.allowed = new Uint8Array(this.jobCount * this.crewCount);
    for (let job = 0; job < this.jobCount; job++) {
      for (let crew = 0; crew < this.crewCount; crew++) this.allowed[job * this.crewCount + crew] = allowed[job]?.[crew] ? 1 : 0;
    }
    this.allowedEverywhere = this.allowed.every((allowed) => allowed === 1);
    this.neighbours = [];
    for (let job = 0; job < this.jobCount; job++) {
      const from = this.location[job]!;
      const closeness = (other: number): number => this.t(from, this.location[other]!) + this.t(this.location[other]!, from);
      const others = Array.from({ length: this.jobCount }, (_, other) => other).filter((other) => other !== job);
      others.sort((a, b) => closeness(a) - closeness(b) || a - b);
      this.neighbours.push(Int32Array.from(others));
    }
  }

  t(from: number, to: number): number {
    return this.travel[from * this.size + to]!;
  }

  isAllowed(job: number, crew: number): boolean {
    return this.allowed[job * this.crewCount + crew] === 1;
  }
}

function checkedIndex(index: number, size: number, what: string): number {
  if (!Number.isInteger(index) || index < 0 || index >= size) throw new RangeError(`${what} ${index} is not an index of the travel matrix`);
  return index;
}
