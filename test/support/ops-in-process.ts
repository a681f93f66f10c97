import { runOps } from '../../scripts/ops/ops-commands';

/**
 * `npm run ops -- <args>` run in this process, against this run's database and Temporal: the
 * code scripts/ops.ts runs, without a process of its own to start (a few seconds each on a busy
 * machine). Answers the exit code and every line written, in order. The files that show the
 * command itself as an operator types it (tenants, unseeded-tenant) still start it.
 */
export function opsInProcess(...args: string[]): Promise<{ code: number; out: string }> {
  return opsOn(process.env.TEMPORAL_TASK_QUEUE ?? 'shade-office', args);
}

/**
 * The same, starting any workflow it starts on `taskQueue` (a test harness's worker's queue): the
 * repair that prices a completion invoice waiting for prices starts its invoice workflow.
 */
export function opsInProcessOn(taskQueue: string): (...args: string[]) => Promise<{ code: number; out: string }> {
  return (...args) => opsOn(taskQueue, args);
}

async function opsOn(taskQueue: string, args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await runOps(args, {
    databaseUrl: process.env.DATABASE_URL!,
    temporalAddress: process.env.TEMPORAL_ADDRESS!,
    namespace: process.env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue,
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
  });
  return { code, out: lines.map((line) => `${line}\n`).join('') };
}
