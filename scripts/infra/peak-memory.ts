/**
 * Every benchmark prints the peak resident memory of the API and the worker processes.
 * Linux keeps each process's high-water mark of resident memory (VmHWM in /proc/<pid>/status),
 * so one read at the end gives the peak over the whole run, however short the spike was.
 */
import { readFileSync } from 'node:fs';

export interface MeasuredProcess {
  /** What the process hosted in this run, e.g. "API", "worker", "API + worker (one process)". */
  role: string;
  pid: number;
}

/** The peak resident set of `pid` in KiB, or undefined once the process is gone. */
export function peakResidentKiB(pid: number = process.pid): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** The resident set of `pid` in KiB now (VmRSS), or undefined once the process is gone. */
export function residentKiB(pid: number = process.pid): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Lines of the form "peak resident memory, worker (pid 123): 182.4 MiB", read now. */
export function peakMemoryLines(processes: readonly MeasuredProcess[]): string[] {
  return processes.map(({ role, pid }) => {
    const kib = peakResidentKiB(pid);
    const figure = kib === undefined ? 'not readable (the process has exited)' : `${(kib / 1024).toFixed(1)} MiB`;
    return `peak resident memory, ${role} (pid ${pid}): ${figure}`;
  });
}

/** Prints the peak memory lines; call it before the measured processes are stopped. */
export function printPeakMemory(processes: readonly MeasuredProcess[]): void {
  console.log('');
  for (const line of peakMemoryLines(processes)) console.log(line);
}
