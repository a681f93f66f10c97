/**
 * The one poller of the tests and harnesses: asks `probe` every `intervalMs` until it answers
 * something other than undefined, null or false, and answers that. Past `timeoutMs` it throws,
 * naming `what` it waited for (and `detail()`, e.g. the output of the processes involved).
 *
 * Waiting is for a positive signal (a row terminal, a workflow closed, a file written); a test
 * that must show that nothing more happens waits for such a signal first and then counts, never
 * for a fixed time.
 */
export interface WaitOptions {
  timeoutMs?: number;
  intervalMs?: number;
  /** Read once, at the timeout: what explains the wait (may query, e.g. the rows involved). */
  detail?: () => string | Promise<string>;
}

export async function waitUntil<T>(what: string, probe: () => T | undefined | null | false | Promise<T | undefined | null | false>, options: WaitOptions = {}): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 50, detail } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail ? `\n${await explain(detail)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

async function explain(detail: () => string | Promise<string>): Promise<string> {
  try {
    return await detail();
  } catch (error) {
    return `(the detail could not be read: ${String(error)})`;
  }
}
