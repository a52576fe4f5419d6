/**
 * CPU time a process has used (user + system), read from /proc (Linux). The difference over
 * an interval is the work a broker did for it, which — unlike wall time — does not depend on
 * how fast the client was: the group scenarios report it next to their times.
 */
import { readFileSync } from 'node:fs';

/** USER_HZ, the unit of utime/stime in /proc/<pid>/stat: 100 on every Linux we run on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** CPU time (user + system, ms) `pid` used so far; NaN when it is gone or /proc is unavailable. */
export function cpuMsOf(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    // Fields after the command name (which may hold spaces, so split after its ") ").
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** The machine's CPU time so far, by kind (jiffies summed over all CPUs, /proc/stat's "cpu" line). */
export interface MachineCpu {
  readonly total: number;
  /** Time the hypervisor ran something else while this machine's CPUs wanted to run. */
  readonly steal: number;
}

/** A snapshot for hostSteal; null where /proc/stat is unavailable. */
export function machineCpu(): MachineCpu | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal guest guest_nice (guest time is inside user)
    const f = line.trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: f.reduce((a, b) => a + b, 0), steal: f[7] ?? 0 };
  } catch {
    return null;
  }
}

/**
 * The share of the machine's CPU time stolen by the hypervisor between two snapshots, in %.
 * On a shared virtual machine a latency percentile says as much about the neighbours as about
 * the program: runs with steal are the host's, and the benchmarks print it beside their figures.
 */
export function hostSteal(before: MachineCpu | null, after: MachineCpu | null): number {
  if (!before || !after || after.total <= before.total) return NaN;
  return (100 * (after.steal - before.steal)) / (after.total - before.total);
}

/**
 * CPU time (user + system, ms) of `pid`'s main thread only: for a Node broker, its event loop,
 * which is what one request costs there (libuv's pool threads and V8's helpers run beside it).
 */
export function mainThreadCpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}
