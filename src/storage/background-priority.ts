/**
 * Lowers the calling thread's CPU priority for background work (the log cleaner's worker).
 *
 * Linux: SCHED_IDLE, the policy for work that should run only on a core nothing else wants.
 * A thread of normal priority that wakes up preempts it at once, where a merely niced thread
 * may first finish its time slice (a few ms: the commit tail, BENCHMARKS.md scenario 7b).
 * Node has no sched_setscheduler, so this runs `chrt --idle -p 0 <tid>` (util-linux, present
 * on every usual distribution) once per thread. Going back is not permitted unprivileged,
 * which is why it is only for threads that never run anything else.
 * The price: on a machine whose cores are all busy with normal work the thread gets a tiny
 * share (weight 3 against 1024 for nice 0), so background work waits for idle time.
 *
 * Elsewhere, or where chrt is missing or refused: nice 10 for the thread (on Linux a thread's
 * nice value is its own; on macOS and Windows setpriority would renice the whole process, so
 * there nothing changes).
 */
import { spawnSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

const NICE = 10;

/** This thread's id (Linux): /proc/thread-self links to `<pid>/task/<tid>`. */
function threadId(): string | null {
  try {
    return readlinkSync('/proc/thread-self').split('/').pop() ?? null;
  } catch {
    return null;
  }
}

export function lowerThreadPriority(): void {
  if (process.platform !== 'linux') return;
  const tid = threadId();
  if (tid !== null && spawnSync('chrt', ['--idle', '-p', '0', tid], { stdio: 'ignore', timeout: 5000 }).status === 0) return;
  try {
    setPriority(NICE);
  } catch {
    // Not permitted here: the thread keeps the process's priority.
  }
}
