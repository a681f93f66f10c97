import { startApiProcess } from '../../api/process';

/**
 * The API as a process of its own, for the crash campaign (scripts/harness/crash-campaign.ts),
 * which must be able to SIGKILL it and start it again on the same port. It is api/main.ts's
 * composition (api/process.ts) on 127.0.0.1:PORT, with one difference: HARNESS_RETRY_SCALE, when
 * set, shortens the retry and timeout intervals of the workflows this API starts (the `timing`
 * the test harnesses give the dispatcher), so the suite's small campaign does not wait out
 * production's two-minute leg timeout after each kill. Workflows the worker's outbox relay starts
 * (events a killed API committed but never started) keep production timing, as deployed.
 */
const retryScale = process.env.HARNESS_RETRY_SCALE ? Number(process.env.HARNESS_RETRY_SCALE) : undefined;
if (retryScale !== undefined && !(retryScale > 0 && retryScale <= 1)) throw new Error(`HARNESS_RETRY_SCALE must be in (0, 1], not ${process.env.HARNESS_RETRY_SCALE}`);
await startApiProcess({ host: '127.0.0.1', ...(retryScale === undefined ? {} : { dispatchTiming: { retryScale } }) });
