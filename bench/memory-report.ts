/**
 * What `npm run bench:memory` prints once both modes ran, and whether the sizing holds: each
 * mode's resident memory beside its throughput, the compiled processes' peaks against the targets
 * (docs/operations.md, "Memory per replica"), and the compiled throughput against the tsx one
 * (production is never slower than development). Pure: the bench measures, this judges.
 */
export const TARGET_MB = { API: 200, worker: 300 } as const;

export interface ModeFigures {
  name: string;
  /** Whether these are the processes a deployment runs (the image's). */
  compiled: boolean;
  apiReadyKiB: number;
  apiAfterKiB: number;
  apiPeakKiB: number;
  workerReadyKiB: number;
  workerAfterKiB: number;
  workerPeakKiB: number;
  approvals: number;
  seconds: number;
}

export interface MemoryReport {
  lines: string[];
  /** Every target met: memory at or under the targets, and the compiled throughput at least the tsx one. */
  met: boolean;
}

const mib = (kib: number) => kib / 1024;
/** Decimal megabytes, as the targets are given. */
const megabytes = (kib: number) => (kib * 1024) / 1_000_000;
const throughput = (f: ModeFigures) => f.approvals / f.seconds;

export function memoryReport(results: readonly ModeFigures[]): MemoryReport {
  const compiled = results.find((r) => r.compiled);
  if (!compiled) throw new Error('no compiled mode among the results');
  const approvals = compiled.approvals;
  const cell = (text: string) => text.padStart(12);
  const lines = [
    `resident memory (MiB) and throughput, ${approvals} approvals through one API and one worker`,
    '',
    `${''.padEnd(26)}${['API ready', 'API after', 'API peak', 'wkr ready', 'wkr after', 'wkr peak', 'seconds', 'approvals/s'].map(cell).join('')}`,
    ...results.map(
      (f) =>
        `${f.name.padEnd(26)}${[f.apiReadyKiB, f.apiAfterKiB, f.apiPeakKiB, f.workerReadyKiB, f.workerAfterKiB, f.workerPeakKiB].map((kib) => cell(mib(kib).toFixed(1))).join('')}${cell(f.seconds.toFixed(1))}${cell(throughput(f).toFixed(2))}`,
    ),
    '',
  ];
  let met = true;
  for (const [role, peakKiB] of [['API', compiled.apiPeakKiB], ['worker', compiled.workerPeakKiB]] as const) {
    const ok = megabytes(peakKiB) <= TARGET_MB[role];
    met &&= ok;
    lines.push(`target: compiled ${role} peak at most ${TARGET_MB[role]} MB: ${ok ? 'met' : 'missed'} (${megabytes(peakKiB).toFixed(1)} MB)`);
  }
  const development = results.find((r) => !r.compiled);
  if (development) {
    const ok = throughput(compiled) >= throughput(development);
    met &&= ok;
    lines.push(
      `target: compiled throughput at least the tsx one: ${ok ? 'met' : 'missed'} (${throughput(compiled).toFixed(2)} against ${throughput(development).toFixed(2)} approvals/s, ${compiled.seconds.toFixed(1)} s against ${development.seconds.toFixed(1)} s)`,
    );
  } else {
    lines.push('target: compiled throughput at least the tsx one: not measured (BENCH_COMPILED_ONLY)');
  }
  return { lines, met };
}
