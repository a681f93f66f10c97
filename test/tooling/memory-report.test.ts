import { describe, expect, it } from '@jest/globals';
import { memoryReport, type ModeFigures } from '../../bench/memory-report';

/**
 * `npm run bench:memory` prints each mode's throughput beside its memory, and the sizing holds
 * only when both hold: the compiled processes' peaks at or under the targets, and their throughput
 * at least the tsx processes' (151 s against 96.5 s for 1,000 approvals was a miss it did not say).
 */
const MiB = 1024;
const figures = (name: string, compiled: boolean, seconds: number, peaks = { api: 180, worker: 250 }): ModeFigures => ({
  name,
  compiled,
  apiReadyKiB: 150 * MiB,
  apiAfterKiB: peaks.api * MiB,
  apiPeakKiB: peaks.api * MiB,
  workerReadyKiB: 190 * MiB,
  workerAfterKiB: peaks.worker * MiB,
  workerPeakKiB: peaks.worker * MiB,
  approvals: 1000,
  seconds,
});

describe('bench:memory report', () => {
  it('prints the throughput of both modes beside their memory', () => {
    const { lines } = memoryReport([figures('compiled (as the image)', true, 80), figures('tsx (npm start)', false, 100)]);
    const header = lines.find((l) => l.includes('API peak'))!;
    expect(header).toContain('approvals/s');
    expect(lines.find((l) => l.startsWith('compiled (as the image)'))).toMatch(/\s80\.0\s+12\.50$/);
    expect(lines.find((l) => l.startsWith('tsx (npm start)'))).toMatch(/\s100\.0\s+10\.00$/);
  });

  it('misses when the compiled processes are slower than the tsx ones, even with the memory targets met (151 s against 96.5 s)', () => {
    const report = memoryReport([figures('compiled (as the image)', true, 151), figures('tsx (npm start)', false, 96.5)]);
    expect(report.lines).toContain('target: compiled API peak at most 200 MB: met (188.7 MB)');
    expect(report.lines.find((l) => l.startsWith('target: compiled throughput'))).toBe(
      'target: compiled throughput at least the tsx one: missed (6.62 against 10.36 approvals/s, 151.0 s against 96.5 s)',
    );
    expect(report.met).toBe(false);
  });

  it('holds when both hold, and misses on memory alone', () => {
    expect(memoryReport([figures('compiled', true, 90), figures('tsx', false, 96.5)]).met).toBe(true);
    const heavy = memoryReport([figures('compiled', true, 90, { api: 195, worker: 250 }), figures('tsx', false, 96.5)]);
    expect(heavy.lines).toContain('target: compiled API peak at most 200 MB: missed (204.5 MB)');
    expect(heavy.met).toBe(false);
  });
});
