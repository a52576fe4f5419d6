/**
 * The process's own metrics, under the names Prometheus client libraries give them
 * (`process_*`, and prom-client's `nodejs_*`): CPU, memory, and the event loop's delay,
 * which is the broker's saturation signal (one thread runs every connection, the group
 * coordinator and the appends).
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import type { Exposition } from './exposition.js';

/** How often the event loop delay is sampled (prom-client's default). */
const LOOP_RESOLUTION_MS = 10;

export class ProcessMetrics {
  private readonly loop: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  private readonly startTimeSeconds = Date.now() / 1000 - process.uptime();

  constructor() {
    this.loop.enable();
  }

  render(e: Exposition): void {
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    e.single('process_cpu_seconds_total', 'counter', 'User and system CPU time the process spent, in seconds.', (cpu.user + cpu.system) / 1e6);
    e.single('process_resident_memory_bytes', 'gauge', 'Resident memory size in bytes.', mem.rss);
    e.single('process_start_time_seconds', 'gauge', 'Start time of the process since the Unix epoch, in seconds.', this.startTimeSeconds);
    e.single('nodejs_heap_size_total_bytes', 'gauge', 'V8 heap size in bytes.', mem.heapTotal);
    e.single('nodejs_heap_size_used_bytes', 'gauge', 'V8 heap in use, in bytes.', mem.heapUsed);
    e.single('nodejs_external_memory_bytes', 'gauge', 'Memory outside the V8 heap (buffers) in bytes.', mem.external);
    // Since the previous scrape (then reset, as prom-client does). Node's samples include the
    // sampling interval itself, which is taken off.
    const loop = this.loop;
    const delay = (ns: number): number => (loop.count === 0 ? 0 : Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS) / 1000);
    e.single('nodejs_eventloop_lag_p50_seconds', 'gauge', 'Median event loop delay since the previous scrape, in seconds.', delay(loop.percentile(50)));
    e.single('nodejs_eventloop_lag_p99_seconds', 'gauge', '99th percentile of the event loop delay since the previous scrape, in seconds.', delay(loop.percentile(99)));
    e.single('nodejs_eventloop_lag_max_seconds', 'gauge', 'Longest event loop delay since the previous scrape, in seconds.', delay(loop.max));
    loop.reset();
  }

  close(): void {
    this.loop.disable();
  }
}
