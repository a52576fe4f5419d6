/**
 * A bare fdatasync loop: what the disk under the broker's data dir gives without any broker.
 * Each step appends a few hundred bytes to one file and fdatasyncs it, as one group-commit
 * round of the broker does for a commit, and times the fdatasync alone. Two paces: back to
 * back (the disk's own latency), and one step started every `intervalMs` whether or not the
 * previous one is done (the broker at 1,000 commits/s starts about one round per ms, and the
 * disk behaves differently when syncs overlap).
 */
import * as fs from 'node:fs';
import { join } from 'node:path';
import { percentile } from './stats.js';

export interface FdatasyncOptions {
  /** Directory on the file system to measure (a temp file is created and removed there). */
  dir: string;
  /** Number of fdatasyncs. */
  count: number;
  /** Bytes appended before each fdatasync. */
  bytes: number;
  /** 0: back to back; else start one step every `intervalMs` (open loop, a 1 ms timer like the commit generator's). */
  intervalMs: number;
}

export interface FdatasyncResult {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

const fdatasync = (fd: number): Promise<void> => new Promise((resolve, reject) => fs.fdatasync(fd, (err) => (err ? reject(err) : resolve())));

export async function fdatasyncLoop(options: FdatasyncOptions): Promise<FdatasyncResult> {
  const path = join(options.dir, `fdatasync-loop-${process.pid}-${Date.now()}.tmp`);
  const fd = fs.openSync(path, 'a');
  const data = Buffer.alloc(options.bytes, 0x61);
  const times: number[] = [];
  const step = async (): Promise<void> => {
    fs.writeSync(fd, data);
    const start = performance.now();
    await fdatasync(fd);
    times.push(performance.now() - start);
  };
  try {
    if (options.intervalMs <= 0) {
      for (let i = 0; i < options.count; i++) await step();
    } else {
      const pending: Promise<void>[] = [];
      const start = performance.now();
      let i = 0;
      while (i < options.count) {
        while (i < options.count && start + i * options.intervalMs <= performance.now()) {
          pending.push(step());
          i++;
        }
        await new Promise((r) => setTimeout(r, 1));
      }
      await Promise.all(pending);
    }
  } finally {
    fs.closeSync(fd);
    fs.rmSync(path, { force: true });
  }
  return { count: times.length, p50: percentile(times, 50), p99: percentile(times, 99), max: percentile(times, 100) };
}

/** A probe's fdatasync at or over this long is a stall of the disk (this disk's own max is 5-10 ms when quiet). */
export const DISK_STALL_MS = 20;

export interface DiskProbeResult {
  count: number;
  max: number;
  /** fdatasyncs that took DISK_STALL_MS or more: when each started (ms since the epoch) and how long it took. */
  stalls: { at: number; ms: number }[];
}

/**
 * A light probe beside a measurement: one 200 B append + fdatasync of its own file every
 * `intervalMs`, one at a time, timing each. On a shared virtual disk the host stalls every
 * fsync now and then for 50-500 ms, which sets any commit p99 it falls into whatever the
 * broker does; the probe says which runs had one. Run beside both the case under test and its
 * control, its counts also show whether the case itself stalls the disk.
 */
export function startDiskProbe(dir: string, intervalMs = 20): { stop(): Promise<DiskProbeResult> } {
  const path = join(dir, `disk-probe-${process.pid}-${Date.now()}.tmp`);
  const fd = fs.openSync(path, 'a');
  const data = Buffer.alloc(200, 0x61);
  const times: number[] = [];
  const stalls: { at: number; ms: number }[] = [];
  let stopped = false;
  const loop = (async (): Promise<void> => {
    while (!stopped) {
      fs.writeSync(fd, data);
      const at = Date.now();
      const start = performance.now();
      await fdatasync(fd);
      const ms = performance.now() - start;
      times.push(ms);
      if (ms >= DISK_STALL_MS) stalls.push({ at, ms });
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    async stop(): Promise<DiskProbeResult> {
      stopped = true;
      try {
        await loop;
      } finally {
        fs.closeSync(fd);
        fs.rmSync(path, { force: true });
      }
      return { count: times.length, max: times.length ? Math.max(...times) : NaN, stalls };
    },
  };
}
