/**
 * Brook's consumer group under failures, against Brook's broker over real sockets: a member
 * that dies without LeaveGroup (its sockets destroyed, heartbeats stopped) has its partitions
 * moved after the session timeout; a broker killed with SIGKILL and restarted on the same
 * port and data directory under running consumers makes them skip no record.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnBrook, startBrook, tempDir } from '../support/brook.js';
import { Consumer, type ConsumerOptions } from '../../src/index.js';
import { createTopic, produceSpread, valueOf } from '../support/consumer-helpers.js';

function consumer(bootstrap: string, extra: Partial<ConsumerOptions> = {}): Consumer {
  return new Consumer({
    bootstrapServers: bootstrap, groupId: 'gf', assignors: ['range'], autoOffsetReset: 'earliest',
    heartbeatIntervalMs: 200, sessionTimeoutMs: 6_000, fetchMaxWaitMs: 100, autoCommitIntervalMs: 500, ...extra,
  });
}

/** A hard kill: sockets destroyed, timers stopped, no LeaveGroup, no commit. */
function crash(c: Consumer): void {
  const internals = c as unknown as { membership: { stopBackground(): void; close(): void }; fetcher: { close(): void }; autoCommit: { stop(): void } | null; cluster: { close(): void } };
  internals.autoCommit?.stop();
  internals.membership.stopBackground();
  internals.membership.close();
  internals.fetcher.close();
  internals.cluster.close();
}

async function pollUntil(consumers: Consumer[], done: () => boolean, sink: string[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await Promise.all(consumers.map(async (c) => {
    while (!done() && Date.now() < deadline) {
      for (const r of await c.poll({ timeoutMs: 100 })) sink.push(valueOf(r));
    }
  }));
}

test('a member that dies without LeaveGroup loses its partitions after the session timeout', async () => {
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 200 });
  try {
    await createTopic(broker.bootstrap, 'tk', 6);
    const [a, b] = [consumer(broker.bootstrap), consumer(broker.bootstrap)];
    a.subscribe(['tk']);
    b.subscribe(['tk']);
    const seen: string[] = [];
    await pollUntil([a, b], () => a.assignment().length === 3 && b.assignment().length === 3, seen, 20_000);
    assert.equal(a.assignment().length, 3);
    const crashedAt = Date.now();
    crash(b);
    await pollUntil([a], () => a.assignment().length === 6, seen, 20_000);
    const movedAfter = Date.now() - crashedAt;
    assert.equal(a.assignment().length, 6);
    assert.ok(movedAfter >= 4_000, `moved after ${movedAfter} ms, i.e. only once the 6 s session timed out`);
    const values = await produceSpread(broker.bootstrap, 'tk', 6, 50);
    await pollUntil([a], () => values.every((v) => seen.includes(v)), seen, 15_000);
    assert.deepEqual(new Set(seen), new Set(values));
    await a.close();
  } finally {
    await broker.stop();
  }
});

test('broker killed (SIGKILL) and restarted on the same port and data dir: running consumers skip no record', async () => {
  const dir = tempDir();
  let broker = await spawnBrook(['--host', '127.0.0.1', '--port', '0', '--data-dir', dir.path, '--group-initial-rebalance-delay-ms', '100']);
  const port = broker.port;
  const consumers = [consumer(broker.bootstrap, { groupId: 'gr' }), consumer(broker.bootstrap, { groupId: 'gr' })];
  try {
    await createTopic(broker.bootstrap, 'tr', 4);
    for (const c of consumers) c.subscribe(['tr']);
    const seen: string[] = [];
    const before = await produceSpread(broker.bootstrap, 'tr', 4, 100, 'a');
    await pollUntil(consumers, () => before.every((v) => seen.includes(v)), seen, 20_000);
    let stop = false;
    const polling = pollUntil(consumers, () => stop, seen, 60_000);
    await broker.kill();
    await new Promise((r) => setTimeout(r, 500));
    broker = await spawnBrook(['--host', '127.0.0.1', '--port', String(port), '--data-dir', dir.path, '--group-initial-rebalance-delay-ms', '100']);
    const after = await produceSpread(broker.bootstrap, 'tr', 4, 100, 'b');
    const deadline = Date.now() + 40_000;
    while (!after.every((v) => seen.includes(v)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    stop = true;
    await polling;
    const missing = [...before, ...after].filter((v) => !seen.includes(v));
    assert.deepEqual(missing, [], 'no record skipped');
  } finally {
    for (const c of consumers) await c.close().catch(() => undefined);
    await broker.stop();
    dir.remove();
  }
});
