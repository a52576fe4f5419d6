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
