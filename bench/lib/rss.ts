/**
 * Resident memory of processes, read from /proc (Linux). A sampler polls a process (and its
 * descendants: a JVM or python may fork helpers) and keeps the peak, so a client's or a
 * broker's memory under load can be reported next to its throughput.
 */
import { readFileSync, readdirSync } from 'node:fs';

/** VmRSS of `pid` in bytes, or null when it is gone or /proc is unavailable. */
export function rssBytes(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+) kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

function childrenOf(pid: number): number[] {
  try {
    const out: number[] = [];
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const text = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (text !== '') out.push(...text.split(/\s+/).map(Number));
    }
    return out;
  } catch {
    return [];
  }
}

/** RSS of `pid` plus all its descendants (bytes), or null when `pid` is gone. */
export function treeRssBytes(pid: number): number | null {
  const own = rssBytes(pid);
  if (own === null) return null;
  let total = own;
  for (const child of childrenOf(pid)) total += treeRssBytes(child) ?? 0;
  return total;
}

export interface RssSampler {
  /** Stops sampling; the peak in bytes (null if never sampled). */
  stop(): number | null;
  peak(): number | null;
}

/** Samples `pid`'s process tree every `intervalMs` until stop(). */
export function sampleRss(pid: number, intervalMs = 100): RssSampler {
  let peak: number | null = null;
  const take = (): void => {
    const v = treeRssBytes(pid);
    if (v !== null && (peak === null || v > peak)) peak = v;
  };
  take();
  const timer = setInterval(take, intervalMs);
  timer.unref();
  return {
    stop: () => {
      take();
      clearInterval(timer);
      return peak;
    },
    peak: () => peak,
  };
}
