import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformInt } from 'pure-rand/distribution/uniformInt';

/**
 * Draws of a seeded generator (pure-rand's xoroshiro128+), so a crash campaign's kill moments,
 * pauses and order of work are the same for the same seed: a run that found a duplicate can be
 * run again with its printed seed.
 */
export class SeededRandom {
  private readonly rng;

  constructor(readonly seed: number) {
    this.rng = xoroshiro128plus(seed);
  }

  /** An integer in [min, max], both included. */
  between(min: number, max: number): number {
    return uniformInt(this.rng, Math.round(min), Math.round(max));
  }

  /** The items in a shuffled order (Fisher-Yates). */
  shuffled<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.between(0, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}
