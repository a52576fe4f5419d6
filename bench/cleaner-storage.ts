/**
 * The log cleaner at the storage level, without a broker: how long the event loop is held
 * (event-loop delay p99/max, 1 ms resolution) and how much CPU the process uses while one
 * clean compacts a `__consumer_offsets`-like log.
 *
 *   node dist/bench/cleaner-storage.js fill DIR               3M records of ~85 B over 1,000 keys, 1 MiB segments (~250 MB)
 *   node dist/bench/cleaner-storage.js clean DIR [--inline] [--root CHECKOUT]
 *
 * `clean` opens DIR (after a restart the whole log is dirty once) and cleans it, in the
 * worker thread or (--inline) on the event loop; --root runs another built checkout's
 * storage (before/after comparisons). It changes DIR: clean a copy of a filled one.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { projectRoot } from '../test/support/brook.js';

const NOW = 1_700_000_000_000;
const { values, positionals } = parseArgs({ allowPositionals: true, options: { inline: { type: 'boolean', default: false }, root: { type: 'string' } } });
const [mode, dir] = positionals;
if ((mode !== 'fill' && mode !== 'clean') || dir === undefined) throw new Error('usage: cleaner-storage.js fill|clean DIR [--inline] [--root CHECKOUT]');
const root = values.root ?? projectRoot;
const storageModule = await import(pathToFileURL(join(root, 'dist', 'src', 'storage', 'index.js')).href) as typeof import('../src/storage/index.js');
const { encodeRecordBatch } = await import(pathToFileURL(join(root, 'dist', 'src', 'protocol', 'records', 'index.js')).href) as typeof import('../src/protocol/records/index.js');

if (mode === 'fill') {
  rmSync(dir, { recursive: true, force: true });
  const storage = await storageModule.openFileStorage(dir, { clock: () => NOW, flush: 'never' });
  storage.createTopic('__consumer_offsets', 1, { 'cleanup.policy': 'compact', 'segment.bytes': '1048576' });
  const log = storage.partition('__consumer_offsets', 0)!;
  const value = Buffer.alloc(40, 1);
  let n = 0;
  // Batches of 100 uncompressed records, keys like the coordinator's (group, topic, partition): 10 groups x 100 partitions.
  for (let b = 0; b < 30_000; b++) {
    const records = [];
    for (let i = 0; i < 100; i++, n++) records.push({ key: Buffer.from(`group-${n % 10}-topic-bench-cleaner-12345-${Math.floor(n / 10) % 100}`), value, timestamp: NOW });
    log.append(encodeRecordBatch({ records }), { nowMs: NOW, origin: 'coordinator' });
  }
  process.stdout.write(`filled ${log.sizeInBytes} bytes in ${log.segments().length} segments\n`);
  await storage.close();
} else {
  const storage = await storageModule.openFileStorage(dir, { clock: () => NOW, flush: 'never', cleanerThread: values.inline ? 'inline' : 'worker' } as never);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  const cpu = process.cpuUsage();
  const started = performance.now();
  delay.enable();
  const stats = await storage.cleanLogs(NOW);
  delay.disable();
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({
    thread: values.inline ? 'inline' : 'worker', root, wallMs: Math.round(performance.now() - started), cpuMs: Math.round((used.user + used.system) / 1000),
    loopDelayP99Ms: Number((delay.percentile(99) / 1e6).toFixed(1)), loopDelayMaxMs: Number((delay.max / 1e6).toFixed(1)), ...stats,
  })}\n`);
  await storage.close();
}
