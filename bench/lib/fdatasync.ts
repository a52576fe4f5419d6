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
