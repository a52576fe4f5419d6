/**
 * What a parked long-poll Fetch costs Brook's broker: C connections (500) each fetch the end
 * of an empty partition over and over with maxWaitMs W (20), as idle consumers do, for S
 * seconds (5) per window; reported per window: fetches answered per second and the broker's
 * main-thread CPU (its event loop) per fetch.
 *   node dist/bench/fetch-park.js [--connections C] [--max-wait-ms W] [--seconds S] [--windows N] [--baseline DIR]
 * --baseline DIR (another built checkout) measures that checkout's broker too, right before
 * this one's, so before and after come from the same run. Not part of npm test: timings
 * depend on the machine.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { KafkaConnection } from '../src/client/connection.js';
import { Api } from '../src/protocol/messages/index.js';
import { startBrookBroker } from './lib/brokers.js';
import { connect } from './lib/commits.js';
import { mainThreadCpuMsOf } from './lib/cpu-time.js';
import { createTopic } from './lib/topics.js';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '500' },
    'max-wait-ms': { type: 'string', default: '20' },
    seconds: { type: 'string', default: '5' },
    windows: { type: 'string', default: '3' },
    baseline: { type: 'string' },
  },
});
const connections = Number(values.connections);
const maxWaitMs = Number(values['max-wait-ms']);
const windowMs = Number(values.seconds) * 1000;
const windows = Number(values.windows);

function fetchRequest(topic: string) {
  return {
    replicaId: -1, maxWaitMs, minBytes: 1, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: 0n, logStartOffset: -1n, partitionMaxBytes: 1 << 20 }] }],
    forgottenTopicsData: [], rackId: '',
  };
}

async function measure(label: string, root: string | undefined): Promise<void> {
  const broker = await startBrookBroker(root === undefined ? {} : { root });
  const conns: KafkaConnection[] = [];
  try {
    await createTopic(broker.bootstrap, 'parked', 1);
    for (let i = 0; i < connections; i++) conns.push(await connect(broker.bootstrap, 'brook-bench-fetch-park'));
    const request = fetchRequest('parked');
    let answered = 0;
    let stop = false;
    const loops = conns.map(async (c) => {
      while (!stop) {
        await c.request(Api.Fetch, request, { version: 12 });
        answered++;
      }
    });
    await new Promise((r) => setTimeout(r, 1000));
    for (let w = 1; w <= windows; w++) {
      const n0 = answered;
      const cpu0 = mainThreadCpuMsOf(broker.pid);
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, windowMs));
      const seconds = (performance.now() - t0) / 1000;
      const fetches = answered - n0;
      const cpuUs = (mainThreadCpuMsOf(broker.pid) - cpu0) * 1000;
      process.stdout.write(`${label} window ${w}: ${(fetches / seconds).toFixed(0)} fetches/s, ${(cpuUs / fetches).toFixed(1)} us of main-thread CPU per fetch (load ${loadavg()[0]!.toFixed(1)})\n`);
    }
    stop = true;
    for (const c of conns) c.close();
    await Promise.allSettled(loops);
  } finally {
    for (const c of conns) c.close();
    await broker.stop();
  }
}

process.stdout.write(`${connections} connections, each fetching an empty partition's end with maxWaitMs ${maxWaitMs}\n`);
if (values.baseline !== undefined) await measure('baseline', values.baseline);
await measure('this build', undefined);
