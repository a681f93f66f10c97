/**
 * The smallest workflow there is: no activities, no timers. `npm start` runs it once to prove
 * the worker is polling before it says the stack is up, and bench/approval uses it as the
 * baseline round trip of the server.
 */
export interface RoundTripInput {
  sentAt: string;
}

export async function roundTrip(input: RoundTripInput): Promise<RoundTripInput> {
  return input;
}
