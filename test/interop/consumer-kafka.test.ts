/**
 * Brook's consumer against Apache Kafka 4.4.0 (single-node KRaft): three Brook consumers
 * split a 6-partition topic and consume every record exactly once, commits included; and a
 * mixed group on Brook's broker: a Java KafkaConsumer (kafka-clients 4.4.0) next to two
 * Brook consumers with 'range'; every record (partition:offset) is read once across them.
 * Needs: java 17+ (test/support/kafka and test/support/java built).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startKafka } from '../support/kafka/kafka-broker.js';
import { startBrook } from '../support/brook.js';
import { javaAvailable, javaJar } from '../support/clients/java.js';
import { runProcess } from '../support/clients/run.js';
import { Consumer } from '../../src/index.js';
import { createTopic, produceSpread, valueOf } from '../support/consumer-helpers.js';

/** One consumed record: its identity in the log and its value. */
interface Seen { partition: number; offset: number; value: string }

async function pollAll(consumers: Consumer[], stop: () => boolean, sink: Seen[][], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  await Promise.all(consumers.map(async (c, i) => {
    while (!stop() && Date.now() < deadline) {
      for (const r of await c.poll({ timeoutMs: 200 })) sink[i]!.push({ partition: r.partition, offset: Number(r.offset), value: valueOf(r) });
    }
  }));
}

/**
 * Loss and duplication checked apart (a count alone lets one lost and one duplicated record
 * cancel out): the expected identities never read, those read more than once, and those read
 * but never expected.
 */
function readOnce(expected: readonly string[], read: readonly string[]): { missing: string[]; duplicated: string[]; unexpected: string[] } {
  const times = new Map<string, number>();
  for (const id of read) times.set(id, (times.get(id) ?? 0) + 1);
  const wanted = new Set(expected);
  return {
    missing: expected.filter((id) => !times.has(id)),
    duplicated: [...times].filter(([, n]) => n > 1).map(([id, n]) => `${id} x${n}`),
    unexpected: [...times.keys()].filter((id) => !wanted.has(id)),
  };
}

/** "partition:offset" of offsets 0..perPartition-1 of every partition: a new topic after `perPartition` records each. */
function allOffsets(partitions: number, perPartition: number): string[] {
  return Array.from({ length: partitions }, (_, p) => Array.from({ length: perPartition }, (_, o) => `${p}:${o}`)).flat();
}

test('Apache Kafka 4.4.0: three Brook consumers split a 6-partition topic, every record exactly once, commits land', { timeout: 120_000 }, async () => {
  const kafka = await startKafka({ config: { 'group.initial.rebalance.delay.ms': '300' } });
  const consumers: Consumer[] = [];
  try {
    await createTopic(kafka.bootstrap, 'k6', 6);
    consumers.push(...[0, 1, 2].map(() => new Consumer({
      bootstrapServers: kafka.bootstrap, groupId: 'kg', assignors: ['range'], autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
    })));
    for (const c of consumers) c.subscribe(['k6']);
    const seen: Seen[][] = [[], [], []];
    await pollAll(consumers, () => consumers.every((c) => c.assignment().length === 2), seen, 30_000);
    assert.deepEqual(consumers.map((c) => c.assignment().length), [2, 2, 2]);
    // Together they hold every partition once (2 each alone would allow a partition twice).
    assert.deepEqual(consumers.flatMap((c) => c.assignment().map((tp) => tp.partition)).sort((a, b) => a - b), [0, 1, 2, 3, 4, 5]);
    const all = await produceSpread(kafka.bootstrap, 'k6', 6, 300);
    await pollAll(consumers, () => seen.flat().length >= all.length, seen, 30_000);
    // By value (what was produced) and by position in Kafka's log (partition:offset), apart.
    const none = { missing: [], duplicated: [], unexpected: [] };
    assert.deepEqual(readOnce(all, seen.flat().map((r) => r.value)), none, 'every produced value read once, nothing else');
    assert.deepEqual(readOnce(allOffsets(6, 300), seen.flat().map((r) => `${r.partition}:${r.offset}`)), none, 'every offset read once, nothing else');
    // Coming back for more (nothing is left) finishes the last batch; commitSync() without
    // offsets then commits it.
    for (const c of consumers) assert.deepEqual(await c.poll({ timeoutMs: 0 }), []);
    for (const c of consumers) await c.commitSync();
    // Every partition, not only one member's assignment (an empty map would check nothing):
    // each member committed its consumed offset, 300 = the records produced to each partition.
    const partitions = [0, 1, 2, 3, 4, 5].map((partition) => ({ topic: 'k6', partition }));
    const committed = await consumers[1]!.committed(partitions);
    assert.deepEqual([...committed.keys()].sort(), partitions.map((tp) => `k6:${tp.partition}`));
    assert.deepEqual(committed, new Map(partitions.map((tp) => [`k6:${tp.partition}`, 300n])));
    for (const c of consumers) await c.close();
  } finally {
    // Also after a failed assertion: open consumers' timers would keep the run from ending.
    await Promise.all(consumers.map((c) => c.close().catch(() => undefined)));
    await kafka.stop();
  }
});

test('mixed group on Brook: a Java KafkaConsumer and two Brook consumers with range share the topic, each record once', { timeout: 120_000 }, async () => {
  // The interop suite's contract is that its peers are installed (.ci/run does it): no silent skips.
  assert.ok(javaAvailable(), 'java 17+ and Maven are needed for the interop suite');
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 1_000 });
  const consumers: Consumer[] = [];
  try {
    await createTopic(broker.bootstrap, 'mx', 6);
    const total = 600;
    consumers.push(...[0, 1].map(() => new Consumer({
      bootstrapServers: broker.bootstrap, groupId: 'mixed', assignors: ['range'], autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
      autoCommitIntervalMs: 500,
    })));
    for (const c of consumers) c.subscribe(['mx']);
    const java = runProcess('java', ['-cp', javaJar(), 'brook.conformance.GroupConsumer', broker.bootstrap, 'mx', 'mixed', 'range', String(total), '30000'], { timeoutMs: 60_000 });
    const seen: Seen[][] = [[], []];
    let javaDone = false;
    void java.then(() => { javaDone = true; });
    // Produce once the Java member is in: the Brook members then hold 2 partitions each.
    await pollAll(consumers, () => javaDone || consumers.every((c) => c.assignment().length === 2), seen, 40_000);
    assert.deepEqual(consumers.map((c) => c.assignment().length), [2, 2], 'range over three members: 2 partitions each');
    await produceSpread(broker.bootstrap, 'mx', 6, total / 6);
    await pollAll(consumers, () => javaDone, seen, 50_000);
    const result = await java;
    const line = result.stdout.split('\n').find((l) => l.startsWith('{'));
    assert.ok(line, `java member: ${result.stderr.slice(-2000)}`);
    const summary = JSON.parse(line) as { records: [number, number][]; errors: string[] };
    assert.deepEqual(summary.errors, []);
    // Per record (partition:offset), not a count: a record lost by one member and one read
    // twice would still add up to `total`. No duplicate is allowed: the group settles before
    // anything is produced, and the Java member leaves only once every partition's committed
    // offset is its end offset, so no rebalance hands over an uncommitted position.
    const brookIds = seen.flat().map((r) => `${r.partition}:${r.offset}`);
    const javaIds = summary.records.map(([p, o]) => `${p}:${o}`);
    const { missing, duplicated, unexpected } = readOnce(allOffsets(6, total / 6), [...brookIds, ...javaIds]);
    assert.deepEqual(missing, [], 'no record missing');
    assert.deepEqual(duplicated, [], 'no record read twice (by one member or by two)');
    assert.deepEqual(unexpected, [], 'nothing but the produced offsets read');
    assert.ok(javaIds.length > 0 && brookIds.length > 0, `both kinds of member consumed: Brook ${brookIds.length}, Java ${javaIds.length}`);
    for (const c of consumers) await c.close();
  } finally {
    await Promise.all(consumers.map((c) => c.close().catch(() => undefined)));
    await broker.stop();
  }
});
