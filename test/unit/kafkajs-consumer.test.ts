/**
 * brook/kafkajs's consumer.run() against Brook's embedded broker; what was committed is read
 * with the real KafkaJS 2.2.4 admin client (an independent reader of the group's offsets):
 * - eachMessage sees every record once, in order per partition; after each batch the next
 *   offsets are committed; GROUP_JOIN, FETCH, START/END_BATCH_PROCESS, COMMIT_OFFSETS and HEARTBEAT
 *   carry KafkaJS's payloads;
 * - at least once: the offset of a record whose handler threw is never committed; the record
 *   comes again, and a handler that keeps throwing leaves the group's offset before it;
 * - eachBatch with eachBatchAutoResolve off commits only what resolveOffset resolved, and the
 *   rest comes again to the next consumer of the group;
 * - seek, pause/paused/resume, commitOffsets, describeGroup.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel, type KafkaJSConsumer, type EachBatchPayload } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until as untilValue } from '../support/clients/run.js';

const T = { timeout: 60_000 };

/** Waits until `condition` holds (polled every 50 ms), failing after `timeoutMs`. */
function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => ((await condition()) ? true : undefined));
}

async function setup(t: { after(fn: () => unknown): void }, topic: string, partitions: number, values: string[]): Promise<{ bootstrap: string; cleanup: Cleanup; committed: (groupId: string) => Promise<string[]> }> {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const kafka = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }] });
  const producer = kafka.producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic, messages: values.map((value, i) => ({ value, partition: i % partitions })) });
  await producer.disconnect();
  const committed = async (groupId: string): Promise<string[]> =>
    (await admin.fetchOffsets({ groupId, topics: [topic] }))[0]!.partitions.map((p) => `${p.partition}:${p.offset}`);
  return { bootstrap: broker.bootstrap, cleanup, committed };
}

function consumerOf(bootstrap: string, groupId: string, cleanup: Cleanup, extra: object = {}): KafkaJSConsumer {
  const consumer = new Kafka({ brokers: [bootstrap], clientId: `c-${groupId}`, logLevel: logLevel.NOTHING }).consumer({ groupId, maxWaitTimeInMs: 100, retry: { initialRetryTime: 10, retries: 3 }, ...extra });
  cleanup.add(`consumer ${groupId}`, () => consumer.disconnect());
  return consumer;
}

test('eachMessage: every record once, offsets committed after each batch, KafkaJS event payloads', T, async (t) => {
  const values = Array.from({ length: 10 }, (_, i) => `m${i}`);
  const { bootstrap, cleanup, committed } = await setup(t, 'orders', 2, values);
  const consumer = consumerOf(bootstrap, 'g1', cleanup, { heartbeatInterval: 100 });
  const events: Record<string, unknown[]> = {};
  for (const e of ['GROUP_JOIN', 'FETCH', 'START_BATCH_PROCESS', 'END_BATCH_PROCESS', 'COMMIT_OFFSETS', 'CONNECT', 'HEARTBEAT'] as const) {
    consumer.on(consumer.events[e], (ev) => (events[e] ??= []).push(ev.payload));
  }
  await consumer.connect();
  await consumer.subscribe({ topics: ['orders'], fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ topic, partition, message }) => void seen.push(`${topic}/${partition}/${message.offset}/${String(message.value)}`) });
  await until(() => seen.length >= 10, 20_000, 'all records');
  await until(async () => (await committed('g1')).join() === '0:5,1:5', 20_000, 'offsets committed');
  await until(() => (events['HEARTBEAT'] ?? []).length > 0, 20_000, 'a heartbeat');
  await consumer.stop();
  const beat = events['HEARTBEAT']![0] as { groupId: string; memberId: string; groupGenerationId: number };
  assert.equal(beat.groupId, 'g1');
  assert.equal(beat.memberId, (events['GROUP_JOIN']![0] as { memberId: string }).memberId);
  assert.ok(beat.groupGenerationId >= 1);
  assert.deepEqual(seen.filter((s) => s.startsWith('orders/0/')).map((s) => s.split('/')[3]), ['m0', 'm2', 'm4', 'm6', 'm8']);
  assert.deepEqual(seen.filter((s) => s.startsWith('orders/1/')).map((s) => s.split('/')[2]), ['0', '1', '2', '3', '4']);
  assert.equal(seen.length, 10);
  const join = events['GROUP_JOIN']![0] as Record<string, unknown>;
  assert.deepEqual(Object.keys(join).sort(), ['duration', 'groupId', 'groupProtocol', 'isLeader', 'leaderId', 'memberAssignment', 'memberId']);
  assert.equal(join['groupProtocol'], 'RoundRobinAssigner');
  assert.equal(join['isLeader'], true);
  assert.equal(join['leaderId'], join['memberId']);
  assert.deepEqual(join['memberAssignment'], { orders: [0, 1] });
  const start = events['START_BATCH_PROCESS']![0] as Record<string, unknown>;
  assert.deepEqual(Object.keys(start).sort(), ['batchSize', 'firstOffset', 'highWatermark', 'lastOffset', 'offsetLag', 'offsetLagLow', 'partition', 'topic']);
  assert.equal(start['highWatermark'], '5');
  assert.ok((events['END_BATCH_PROCESS']![0] as { duration: number }).duration >= 0);
  const commit = events['COMMIT_OFFSETS']!.at(-1) as { groupId: string; topics: unknown[] };
  assert.equal(commit.groupId, 'g1');
  assert.ok(Array.isArray(commit.topics));
  assert.ok(events['FETCH']!.every((f) => typeof (f as { numberOfBatches: number }).numberOfBatches === 'number'));
  assert.equal(events['CONNECT']!.length, 1);
});

test('at least once: a record whose handler threw is delivered again and its offset is not committed before it succeeds', T, async (t) => {
  const values = Array.from({ length: 6 }, (_, i) => `m${i}`);
  const { bootstrap, cleanup, committed } = await setup(t, 'flaky', 1, values);
  const consumer = consumerOf(bootstrap, 'g2', cleanup);
  const commits: string[] = [];
  consumer.on(consumer.events.COMMIT_OFFSETS, (ev) => commits.push((ev.payload as { topics: { partitions: { offset: string }[] }[] }).topics[0]!.partitions[0]!.offset));
  await consumer.connect();
  await consumer.subscribe({ topic: 'flaky', fromBeginning: true });
  const seen: string[] = [];
  let failuresLeft = 2;
  await consumer.run({
    eachMessage: async ({ message }) => {
      seen.push(message.offset);
      if (message.offset === '3' && failuresLeft-- > 0) {
        // Nothing past offset 3 may have been committed while the handler of 3 has not succeeded.
        assert.ok(commits.every((o) => BigInt(o) <= 3n), `commits ${commits.join()}`);
        throw new Error('handler failed');
      }
    },
  });
  await until(() => seen.filter((o) => o === '5').length >= 1, 20_000, 'the last record');
  await until(async () => (await committed('g2')).join() === '0:6', 20_000, 'all committed');
  await consumer.stop();
  assert.deepEqual(seen, ['0', '1', '2', '3', '3', '3', '4', '5']);
  assert.ok(commits.includes('3'), 'what succeeded before the failure was committed');
});

test('at least once: a handler that keeps throwing leaves the committed offset before its record; CRASH after the retries', T, async (t) => {
  const { bootstrap, cleanup, committed } = await setup(t, 'stuck', 1, ['a', 'b', 'c']);
  const consumer = consumerOf(bootstrap, 'g3', cleanup, { retry: { initialRetryTime: 5, retries: 1, restartOnFailure: async () => false } });
  const crashes: { restart: boolean; groupId: string; error: Error }[] = [];
  consumer.on(consumer.events.CRASH, (ev) => crashes.push(ev.payload));
  await consumer.connect();
  await consumer.subscribe({ topics: ['stuck'], fromBeginning: true });
  await consumer.run({ eachMessage: async ({ message }) => { if (message.offset === '1') throw new Error('poison'); } });
  await until(() => crashes.length > 0, 20_000, 'a crash');
  assert.equal(crashes[0]!.restart, false);
  assert.equal(crashes[0]!.error.name, 'KafkaJSNumberOfRetriesExceeded');
  assert.equal(crashes[0]!.groupId, 'g3');
  await consumer.stop();
  assert.deepEqual(await committed('g3'), ['0:1']);
});

test('eachBatch without auto-resolve commits what was resolved; the rest comes again to the next member', T, async (t) => {
  const values = Array.from({ length: 6 }, (_, i) => `m${i}`);
  const { bootstrap, cleanup, committed } = await setup(t, 'batches', 1, values);
  const first = consumerOf(bootstrap, 'g4', cleanup);
  await first.connect();
  await first.subscribe({ topics: ['batches'], fromBeginning: true });
  let payload: EachBatchPayload | null = null;
  let uncommitted: unknown = null;
  await first.run({
    eachBatchAutoResolve: false,
    eachBatch: async (p) => {
      if (payload !== null) return;
      payload = p;
      p.resolveOffset(p.batch.messages[2]!.offset);
      uncommitted = p.uncommittedOffsets();
      await p.commitOffsetsIfNecessary();
      assert.equal(p.isRunning(), true);
      assert.equal(p.isStale(), false);
    },
  });
  await until(() => payload !== null, 20_000, 'a batch');
  await until(async () => (await committed('g4')).join() === '0:3', 20_000, 'resolved offset committed');
  await first.stop();
  // KafkaJS keys resolved offsets by partition in an object: its partitions here are strings.
  assert.deepEqual(uncommitted, { topics: [{ topic: 'batches', partitions: [{ partition: '0', offset: '3' }] }] });
  assert.equal(payload!.batch.firstOffset(), '0');
  assert.equal(payload!.batch.highWatermark, '6');

  const second = consumerOf(bootstrap, 'g4', cleanup);
  await second.connect();
  await second.subscribe({ topics: ['batches'], fromBeginning: true });
  const again: string[] = [];
  await second.run({ eachBatch: async ({ batch }) => void again.push(...batch.messages.map((m) => m.offset)) });
  await until(() => again.length >= 3, 20_000, 'the rest');
  await until(async () => (await committed('g4')).join() === '0:6', 20_000, 'everything committed');
  await second.stop();
  assert.deepEqual(again, ['3', '4', '5']);
});

test('seek, pause and resume, commitOffsets and describeGroup', T, async (t) => {
  const values = Array.from({ length: 4 }, (_, i) => `m${i}`);
  const { bootstrap, cleanup, committed } = await setup(t, 'moves', 1, values);
  const consumer = consumerOf(bootstrap, 'g5', cleanup);
  await consumer.connect();
  await consumer.subscribe({ topics: [/^mov/] });
  const seen: string[] = [];
  let sought = false;
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ message }) => {
      seen.push(message.offset);
      if (message.offset === '3' && !sought) {
        sought = true;
        consumer.seek({ topic: 'moves', partition: 0, offset: '1' });
      }
    },
  });
  // fromBeginning not given: a new group starts at the end; seek from outside the handler is allowed once assigned.
  await until(async () => ((await consumer.describeGroup()) as { state: string }).state === 'Stable', 20_000, 'stable group');
  consumer.seek({ topic: 'moves', partition: 0, offset: '2' });
  await until(() => seen.length >= 4, 20_000, 'records after the seeks');
  assert.deepEqual(seen.slice(0, 4), ['2', '3', '1', '2']);
  consumer.pause([{ topic: 'moves' }]);
  assert.deepEqual(consumer.paused(), [{ topic: 'moves', partitions: [0] }]);
  consumer.resume([{ topic: 'moves', partitions: [0] }]);
  assert.deepEqual(consumer.paused(), []);
  assert.deepEqual(await committed('g5'), ['0:-1'], 'autoCommit off: nothing committed');
  await consumer.commitOffsets([{ topic: 'moves', partition: 0, offset: '4' }]);
  assert.deepEqual(await committed('g5'), ['0:4']);
  const group = (await consumer.describeGroup()) as { groupId: string; protocol: string; members: { memberAssignment: Buffer }[] };
  assert.equal(group.groupId, 'g5');
  assert.equal(group.protocol, 'RoundRobinAssigner');
  assert.deepEqual(real.AssignerProtocol.MemberAssignment.decode(group.members[0]!.memberAssignment)!.assignment, { moves: [0] });
  await consumer.stop();
});

test('partitionsConsumedConcurrently: partitions handled side by side, each in order, every record once', T, async (t) => {
  const values = Array.from({ length: 20 }, (_, i) => `m${i}`);
  const { bootstrap, cleanup, committed } = await setup(t, 'wide', 4, values);
  const consumer = consumerOf(bootstrap, 'g6', cleanup);
  await consumer.connect();
  await consumer.subscribe({ topics: ['wide'], fromBeginning: true });
  const seen = new Map<number, string[]>();
  let active = 0;
  let maxActive = 0;
  await consumer.run({
    partitionsConsumedConcurrently: 3,
    eachMessage: async ({ partition, message }) => {
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((resolve) => setImmediate(resolve));
      (seen.get(partition) ?? seen.set(partition, []).get(partition)!).push(message.offset);
      active--;
    },
  });
  await until(() => [...seen.values()].flat().length >= 20, 20_000, 'all records');
  await until(async () => (await committed('g6')).join() === '0:5,1:5,2:5,3:5', 20_000, 'all committed');
  await consumer.stop();
  for (const p of [0, 1, 2, 3]) assert.deepEqual(seen.get(p), ['0', '1', '2', '3', '4'], `partition ${p}`);
  assert.ok(maxActive >= 2 && maxActive <= 3, `at most 3 at once, and more than one: ${maxActive}`);
});

test('fromBeginning per topic: a new group reads one topic from its start and the other from its end, as KafkaJS', T, async (t) => {
  const { bootstrap, cleanup } = await setup(t, 'old', 1, ['o0', 'o1']);
  const producer = new real.Kafka({ brokers: [bootstrap], logLevel: real.logLevel.NOTHING }).producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer', () => producer.disconnect());
  await producer.send({ topic: 'new', messages: [{ value: 'n-before' }] });
  // The oracle: KafkaJS itself, then brook/kafkajs, each a new group; 'old' from the beginning, 'new' not.
  const run = async (start: (seen: string[]) => Promise<{ stop(): Promise<void> }>): Promise<string[]> => {
    const seen: string[] = [];
    const c = await start(seen);
    await until(() => seen.includes('o1'), 20_000, 'the old topic');
    // Where 'new' starts is looked up lazily: records are sent until one arrives, so the
    // test does not depend on when the lookup happened.
    for (let i = 0; !seen.some((v) => v.startsWith('n-after')); i++) {
      assert.ok(i < 40, 'a record sent to the new topic arrives');
      await producer.send({ topic: 'new', messages: [{ value: `n-after-${i}` }] });
      await until(() => seen.some((v) => v.startsWith('n-after')), 500, 'the new record').catch(() => undefined);
    }
    await c.stop();
    return [...new Set(seen.map((v) => v.replace(/-\d+$/, '')))].sort();
  };
  const expected = await run(async (seen) => {
    const c = new real.Kafka({ brokers: [bootstrap], logLevel: real.logLevel.NOTHING }).consumer({ groupId: 'fb-theirs', maxWaitTimeInMs: 100 });
    cleanup.add('kafkajs consumer', () => c.disconnect());
    await c.connect();
    await c.subscribe({ topics: ['old'], fromBeginning: true });
    await c.subscribe({ topics: ['new'], fromBeginning: false });
    let joined = false;
    c.on(c.events.GROUP_JOIN, () => (joined = true));
    await c.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await until(() => joined, 20_000, 'KafkaJS joined');
    return c;
  });
  const got = await run(async (seen) => {
    const c = consumerOf(bootstrap, 'fb-ours', cleanup);
    await c.connect();
    await c.subscribe({ topics: ['old'], fromBeginning: true });
    await c.subscribe({ topics: ['new'], fromBeginning: false });
    let joined = false;
    c.on(c.events.GROUP_JOIN, () => (joined = true));
    await c.run({ eachMessage: async ({ message }) => void seen.push(String(message.value)) });
    await until(() => joined, 20_000, 'brook/kafkajs joined');
    return c;
  });
  assert.deepEqual(expected, ['n-after', 'o0', 'o1']);
  assert.deepEqual(got, expected);
});
