/**
 * How many random cases a property test draws. `npm test` draws every case the test names (the
 * full proof, e.g. 100,000 requests through both pricing engines); `npm run test:unit` sets
 * PROPERTY_RUNS=sampled and draws the first `1/SAMPLE_DIVISOR` of them. fast-check's runs are
 * seeded, so the sample is exactly the opening cases of the full run: a failure the quick loop
 * finds, the full run finds too, with the same counterexample.
 */
export const SAMPLED_PROPERTY_RUNS = 'PROPERTY_RUNS';
const SAMPLE_DIVISOR = 20;

export function propertyRuns(full: number): number {
  return process.env[SAMPLED_PROPERTY_RUNS] === 'sampled' ? Math.max(1, Math.ceil(full / SAMPLE_DIVISOR)) : full;
}
