/**
 * Pins processes to CPUs (`--broker-cpus`, `--client-cpus`) with util-linux `taskset`.
 *
 * Why: on a small machine the broker and a CPU-hungry client (100 Java consumers in one JVM
 * take ~1.8 of 2 cores) compete for the same cores, and a group's timings then follow the
 * scheduler more than the broker: a one-thread broker (Brook) and a many-thread one (Kafka)
 * fare differently under that contention. Giving brokers and clients their own cores
 * compares the brokers, not the scheduler.
 *
 * `taskset -a` sets every existing thread of a process; threads and child processes created
 * later inherit their creator's set, so pinning the harness before it spawns anything pins
 * the clients it starts (and the Brook clients it runs in-process), and pinning a broker once
 * it accepts requests pins the threads it starts afterwards.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** A CPU list as taskset and the kernel write it: `0`, `0,2`, `1-3`. */
const CPU_LIST = /^\d+(-\d+)?(,\d+(-\d+)?)*$/;

export function parseCpuList(text: string | undefined, option: string): string | null {
  if (text === undefined) return null;
  if (!CPU_LIST.test(text)) throw new Error(`${option} takes a CPU list such as 0 or 0-1 or 1,3, got ${text}`);
  return text;
}

/** The CPU numbers of a list, ascending: `5,0-2` is 0, 1, 2, 5. */
export function cpusOf(list: string): number[] {
  const cpus = new Set(list.split(',').flatMap((range) => {
    const [from, to = from] = range.split('-').map(Number) as [number, number?];
    return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  }));
  return [...cpus].sort((a, b) => a - b);
}

/**
 * Pins every thread of `pid` to `cpus`; throws when it cannot. The result is read back from
 * /proc, because `taskset -a -p` exits 0 for a process that does not exist.
 */
export function pinProcess(pid: number, cpus: string): void {
  const fail = (why: string): never => { throw new Error(`cannot pin process ${pid} to CPUs ${cpus}: ${why}`); };
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    fail((err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message);
  }
  let status = '';
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    fail('no such process');
  }
  const allowed = /^Cpus_allowed_list:\s*(\S+)$/m.exec(status)?.[1];
  if (allowed === undefined || cpusOf(allowed).join(',') !== cpusOf(cpus).join(',')) fail(`it runs on CPUs ${allowed ?? '?'}`);
}
