import type { PointsBucket, ThrottleStatus } from '../../api/graphql/throttle';

/** A bucket far larger than any test needs, counting what it was asked to take and given back. */
export class CountingBucket implements PointsBucket {
  taken = 0;
  refunded = 0;
  private available = 1_000_000;
  private readonly maximum = 1_000_000;

  private state(): ThrottleStatus {
    return { maximumAvailable: this.maximum, currentlyAvailable: this.available, restoreRate: 1000 };
  }

  async status(): Promise<ThrottleStatus> {
    return this.state();
  }

  async take(_organizationId: string, points: number) {
    if (points > this.available) return { taken: false, status: this.state(), waitSeconds: 1 };
    this.available -= points;
    this.taken += points;
    return { taken: true, status: this.state(), waitSeconds: 0 };
  }

  async refund(_organizationId: string, points: number): Promise<ThrottleStatus> {
    this.available = Math.min(this.maximum, this.available + points);
    this.refunded += points;
    return this.state();
  }
}
