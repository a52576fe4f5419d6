/**
 * Child process of the crash test: appends with durable acknowledgements to
 * `<dataDir>` (argv[2]) forever, several appends in flight at a time, printing
 * "ack <baseOffset> <value>" once each append is durable. The parent kills it with
 * SIGKILL mid-way and checks that every acknowledged batch survived.
 */
import { openFileStorage } from '../../../src/storage/index.js';
import { batch } from './helpers.js';

const IN_FLIGHT = 8;

const storage = await openFileStorage(process.argv[2]!);
if (!storage.topic('crash')) storage.createTopic('crash', 1, { 'internal.segment.bytes': '8000', 'index.interval.bytes': '500' });
const log = storage.partition('crash', 0)!;
let n = 0;
for (;;) {
  const acks: Promise<void>[] = [];
  for (let k = 0; k < IN_FLIGHT; k++) {
    const value = `c${n++}`;
    const now = Date.now();
    const result = log.append(batch({ count: 2, value, timestamp: now }), { nowMs: now });
    // stdout is a pipe: writes are synchronous on Linux, so a printed ack is out before any kill.
    acks.push(result.durable.then(() => void process.stdout.write(`ack ${result.baseOffset} ${value}\n`)));
  }
  await Promise.all(acks);
}
