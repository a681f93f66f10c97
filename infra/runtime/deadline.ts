/**
 * `work`, or a rejection once `ms` have passed (AbortSignal.timeout's timer, which never holds the
 * process open). For calls that take no signal of their own: a library's token exchange, a DNS
 * lookup, a health probe. The work itself is not cancelled; its late answer is ignored.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  const signal = AbortSignal.timeout(ms);
  const expired = new Promise<never>((_, reject) => {
    signal.addEventListener('abort', () => reject(new Error(`${what} took longer than ${ms} ms`)), { once: true });
  });
  return Promise.race([work, expired]);
}
