import type { RoundTripInput, RoundTripWorkflow } from '../infra/temporal/contracts';

/**
 * The smallest workflow there is: no activities, no timers. `npm start` runs it once to prove
 * the worker is polling before it says the stack is up, and bench/approval uses it as the
 * baseline round trip of the server.
 */
export const roundTrip: RoundTripWorkflow = async function roundTrip(input: RoundTripInput) {
  return input;
};
