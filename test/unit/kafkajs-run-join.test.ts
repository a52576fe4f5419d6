/**
 * brook/kafkajs's consumer.run() and what comes with it, against the real KafkaJS 2.2.4 (the
 * oracle) on the same Brook broker:
 * - run() resolves once the member joined its group (GROUP_JOIN first; the group is Stable);
 * - a pause() made right after run(), before the join, is kept: the paused topic's records wait
 *   until resume();
 * - run() without subscribe() is accepted, and stop() follows;
 * - heartbeatInterval not below sessionTimeout is refused when the consumer is made, and
 *   heartbeatInterval 0 is taken (HEARTBEAT events follow);
 * - the COMMIT_OFFSETS event of an automatic commit reports partitions as strings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until as untilValue } from '../support/clients/run.js';

const T = { timeout: 90_000 };

/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyKafka = { consumer(config: any): any; producer(config?: any): any; admin(): any };

function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => ((await condition()) ? true : undefined));
}

async function outcome(call: () => unknown): Promise<string> {
  try {
    await call();
    return 'ok';
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

async function setup(t: { after(fn: () => Promise<void>): void }, topics: string[]): Promise<{ clients: [string, AnyKafka][]; cleanup: Cleanup }> {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }) as unknown as AnyKafka;
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }) as unknown as AnyKafka;
  const admin = ours.admin();
  await admin.connect();
  await admin.createTopics({ topics: topics.map((topic) => ({ topic, numPartitions: 1 })) });
  await admin.disconnect();
  return { clients: [['kafkajs', theirs], ['brook', ours]], cleanup };
}

test('run() resolves after the group join, and the group is Stable then', T, async (t) => {
  const { clients, cleanup } = await setup(t, ['joined']);
  const seen: Record<string, string[]> = {};
  for (const [name, kafka] of clients) {
    const consumer = kafka.consumer({ groupId: `join-${name}`, maxWaitTimeInMs: 100 });
    cleanup.add(`${name} consumer`, () => consumer.disconnect());
    const order: string[] = seen[name] = [];
    consumer.on(consumer.events.GROUP_JOIN, () => order.push('GROUP_JOIN'));
    await consumer.connect();
    await consumer.subscribe({ topic: 'joined' });
    await consumer.run({ eachMessage: async () => undefined });
    order.push('run resolved');
    const admin = kafka.admin();
    await admin.connect();
    const { groups } = await admin.describeGroups([`join-${name}`]);
    await admin.disconnect();
    order.push(groups[0].state);
  }
  assert.deepEqual(seen['kafkajs'], ['GROUP_JOIN', 'run resolved', 'Stable']);
  assert.deepEqual(seen['brook'], seen['kafkajs']);
});

test('a pause() made right after run(), before the join, is kept until resume()', T, async (t) => {
  const { clients, cleanup } = await setup(t, ['paused-early', 'active']);
  const got: Record<string, string[]> = {};
  const pausedSeen: Record<string, unknown> = {};
  const producer = clients[0]![1].producer();
  await producer.connect();
  await producer.send({ topic: 'paused-early', messages: [{ value: 'p' }] });
  await producer.send({ topic: 'active', messages: [{ value: 'a' }] });
  await producer.disconnect();
  for (const [name, kafka] of clients) {
    const consumer = kafka.consumer({ groupId: `pause-${name}`, maxWaitTimeInMs: 100 });
    cleanup.add(`${name} consumer`, () => consumer.disconnect());
    const records: string[] = got[name] = [];
    let joined = false;
    consumer.on(consumer.events.GROUP_JOIN, () => { joined = true; });
    await consumer.connect();
    await consumer.subscribe({ topics: ['paused-early', 'active'], fromBeginning: true });
    const running = consumer.run({ eachMessage: async ({ topic, message }: any) => void records.push(`${topic}:${message.offset}`) });
    consumer.pause([{ topic: 'paused-early' }]);
    await running;
    await until(() => joined && records.length >= 1, 30_000, `${name}: the active topic's record`);
    pausedSeen[name] = consumer.paused();
    consumer.resume([{ topic: 'paused-early' }]);
    await until(() => records.length >= 2, 30_000, `${name}: the resumed topic's record`);
    await consumer.stop();
  }
  assert.deepEqual(got['kafkajs'], ['active:0', 'paused-early:0']);
  assert.deepEqual(pausedSeen['kafkajs'], [{ topic: 'paused-early', partitions: [0] }]);
  assert.deepEqual(got['brook'], got['kafkajs']);
  assert.deepEqual(pausedSeen['brook'], pausedSeen['kafkajs']);
});

test('run() without subscribe() runs; stop() emits STOP', T, async (t) => {
  const { clients, cleanup } = await setup(t, ['unused']);
  const seen: Record<string, string[]> = {};
  for (const [name, kafka] of clients) {
    const consumer = kafka.consumer({ groupId: `nosub-${name}`, maxWaitTimeInMs: 100 });
    cleanup.add(`${name} consumer`, () => consumer.disconnect());
    const events: string[] = seen[name] = [];
    consumer.on(consumer.events.STOP, () => events.push('STOP'));
    await consumer.connect();
    events.push(await outcome(() => consumer.run({ eachMessage: async () => undefined })));
    await consumer.disconnect();
  }
  assert.deepEqual(seen['kafkajs'], ['ok', 'STOP']);
  assert.deepEqual(seen['brook'], seen['kafkajs']);
});

test('heartbeatInterval not below sessionTimeout is refused when the consumer is made', T, async () => {
  const configs = [
    { groupId: 'g', heartbeatInterval: 10_000, sessionTimeout: 10_000 },
    { groupId: 'g', heartbeatInterval: 30_000 },
    { groupId: 'g', heartbeatInterval: 2_000, sessionTimeout: 6_000 },
  ];
  const theirs = new real.Kafka({ brokers: ['localhost:1'], logLevel: real.logLevel.NOTHING });
  const ours = new Kafka({ brokers: ['localhost:1'], logLevel: logLevel.NOTHING });
  for (const config of configs) {
    const expected = await outcome(() => theirs.consumer(config));
    assert.equal(await outcome(() => ours.consumer(config)), expected, JSON.stringify(config));
  }
  assert.match(await outcome(() => theirs.consumer(configs[0]!)), /^KafkaJSNonRetriableError: Consumer heartbeatInterval \(10000\) must be lower/);
});

test('COMMIT_OFFSETS of an automatic commit reports partitions as strings', T, async (t) => {
  const { clients, cleanup } = await setup(t, ['committed']);
  const shapes: Record<string, unknown> = {};
  const producer = clients[0]![1].producer();
  await producer.connect();
  await producer.send({ topic: 'committed', messages: [{ value: 'x' }] });
  await producer.disconnect();
  for (const [name, kafka] of clients) {
    const consumer = kafka.consumer({ groupId: `commit-${name}`, maxWaitTimeInMs: 100 });
    cleanup.add(`${name} consumer`, () => consumer.disconnect());
    let topics: any = null;
    consumer.on(consumer.events.COMMIT_OFFSETS, (e: any) => { topics ??= e.payload.topics; });
    await consumer.connect();
    await consumer.subscribe({ topic: 'committed', fromBeginning: true });
    await consumer.run({ eachMessage: async () => undefined });
    await until(() => topics !== null, 30_000, `${name}: a commit`);
    shapes[name] = topics;
    await consumer.stop();
  }
  assert.deepEqual(shapes['kafkajs'], [{ topic: 'committed', partitions: [{ partition: '0', offset: '1' }] }]);
  assert.deepEqual(shapes['brook'], shapes['kafkajs']);
});

test('heartbeatInterval 0 is taken, and heartbeats are reported', T, async (t) => {
  const { clients, cleanup } = await setup(t, ['beating']);
  const seen: Record<string, string> = {};
  for (const [name, kafka] of clients) {
    const consumer = kafka.consumer({ groupId: `beat-${name}`, heartbeatInterval: 0, maxWaitTimeInMs: 100 });
    cleanup.add(`${name} consumer`, () => consumer.disconnect());
    let beats = 0;
    consumer.on(consumer.events.HEARTBEAT, () => { beats++; });
    await consumer.connect();
    await consumer.subscribe({ topic: 'beating' });
    seen[name] = await outcome(() => consumer.run({ eachMessage: async () => undefined }));
    await until(() => beats > 0, 30_000, `${name}: a heartbeat`);
    await consumer.stop();
  }
  assert.deepEqual(seen, { kafkajs: 'ok', brook: 'ok' });
});
