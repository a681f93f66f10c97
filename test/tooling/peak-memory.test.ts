import { describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { peakMemoryLines, peakResidentKiB } from '../../scripts/infra/peak-memory';

// The benchmarks' peak-memory figures come from the kernel's high-water mark.
describe('peak resident memory of a benchmark process', () => {
  it('reads this process\'s high-water mark, at least its current resident set', () => {
    const peak = peakResidentKiB(process.pid);
    expect(peak).toBeDefined();
    expect(peak! * 1024).toBeGreaterThanOrEqual(process.memoryUsage().rss * 0.9);
  });

  it('keeps the peak after the memory is let go', () => {
    const residentBefore = process.memoryUsage().rss;
    let big: Buffer | undefined = Buffer.alloc(64 * 1024 * 1024, 1);
    expect(big[big.length - 1]).toBe(1);
    big = undefined;
    expect(peakResidentKiB()! * 1024).toBeGreaterThanOrEqual(residentBefore + 48 * 1024 * 1024);
  });

  it('says so for a process that has exited, instead of a number', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    const pid = child.pid!;
    await new Promise((resolve) => child.once('close', resolve));
    expect(peakResidentKiB(pid)).toBeUndefined();
    expect(peakMemoryLines([{ role: 'worker', pid }])).toEqual([`peak resident memory, worker (pid ${pid}): not readable (the process has exited)`]);
    expect(peakMemoryLines([{ role: 'API', pid: process.pid }])[0]).toMatch(new RegExp(`^peak resident memory, API \\(pid ${process.pid}\\): \\d+\\.\\d MiB$`));
  });
});
