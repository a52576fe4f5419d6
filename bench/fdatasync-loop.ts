/**
 * The bare fdatasync loop on its own (bench/lib/fdatasync.ts): what this machine's disk gives
 * a group commit without a broker, to set beside the commit latencies.
 *
 *   node dist/bench/fdatasync-loop.js [--dir DIR] [--count N] [--bytes B] [--interval-ms MS]
 *
 * Defaults: the OS temp dir (where the harness puts the brokers' data dirs), 10,000 syncs of
 * 200 bytes, back to back and then one started every 1 ms.
 */
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { fdatasyncLoop } from './lib/fdatasync.js';

const { values } = parseArgs({
  options: {
    dir: { type: 'string', default: tmpdir() },
    count: { type: 'string', default: '10000' },
    bytes: { type: 'string', default: '200' },
    'interval-ms': { type: 'string' },
  },
});
const paces = values['interval-ms'] !== undefined ? [Number(values['interval-ms'])] : [0, 1];
for (const intervalMs of paces) {
  const r = await fdatasyncLoop({ dir: values.dir!, count: Number(values.count), bytes: Number(values.bytes), intervalMs });
  const pace = intervalMs === 0 ? 'back to back' : `one every ${intervalMs} ms`;
  process.stdout.write(`fdatasync ${values.bytes} B appends in ${values.dir}, ${pace}: n=${r.count} p50 ${r.p50.toFixed(3)} ms, p99 ${r.p99.toFixed(3)} ms, max ${r.max.toFixed(3)} ms\n`);
}
