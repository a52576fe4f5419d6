/**
 * brook/kafkajs's producer against Brook's embedded broker, with the real KafkaJS 2.2.4
 * as the oracle: the same sends through KafkaJS's own producer give the RecordMetadata shape
 * and values expected of ours, and KafkaJS's consumer reads back what ours wrote (key, value,
 * headers, partition, timestamp). Transactions: a committed transaction's records and
 * offsets are seen by a read_committed reader, an aborted one's are not. The legacy
 * partitioner is checked against KafkaJS's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, CompressionTypes, KafkaJSNonRetriableError, LegacyPartitioner, DefaultPartitioner, logLevel, legacyMurmur2 } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { Admin } from '../../src/index.js';

const T = { timeout: 60_000 };
const quiet = { logLevel: logLevel.NOTHING };

async function setup(t: { after(fn: () => unknown): void }, topics: { name: string; partitions: number }[]): Promise<{ bootstrap: string; cleanup: Cleanup }> {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const admin = await Admin.connect({ bootstrapServers: broker.bootstrap });
  for (const topic of topics) await admin.createTopic({ name: topic.name, partitions: topic.partitions });
  admin.close();
  return { bootstrap: broker.bootstrap, cleanup };
}

/** Reads `count` messages of `topic` with the real KafkaJS consumer. */
async function readWithKafkaJS(bootstrap: string, topic: string, count: number, readUncommitted = false): Promise<real.EachMessagePayload[]> {
  const kafka = new real.Kafka({ brokers: [bootstrap], logLevel: real.logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `reader-${topic}-${Math.random()}`, readUncommitted, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got: real.EachMessagePayload[] = [];
  await new Promise<void>((resolve) => {
    void consumer.run({ eachMessage: async (p) => { got.push(p); if (got.length >= count) resolve(); } });
  });
  await consumer.disconnect();
  return got;
}

test('send and sendBatch answer as KafkaJS does, and KafkaJS reads back what was sent', T, async (t) => {
  const { bootstrap } = await setup(t, [{ name: 'ours', partitions: 3 }, { name: 'theirs', partitions: 3 }, { name: 'ours-b', partitions: 2 }]);
  const messages = [
    { key: 'k1', value: 'v1', partition: 0, headers: { h: 'x', multi: ['a', 'b'] }, timestamp: '1700000000000' },
    { key: 'k2', value: 'v2', partition: 0 },
    { key: null, value: 'v3', partition: 2 },
  ];
  const theirs = new real.Kafka({ brokers: [bootstrap], logLevel: real.logLevel.NOTHING }).producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await theirs.connect();
  const expected = await theirs.send({ topic: 'theirs', messages });
  await theirs.disconnect();

  const producer = new Kafka({ brokers: [bootstrap], clientId: 'p', ...quiet }).producer();
  await producer.connect();
  const got = await producer.send({ topic: 'ours', messages });
  const strip = (m: { topicName: string }[]) => m.map(({ topicName: _t, ...rest }) => rest);
  assert.deepEqual(strip(got), strip(expected));
  assert.deepEqual(got.map((m) => m.topicName), ['ours', 'ours']);

  const batch = await producer.sendBatch({ topicMessages: [{ topic: 'ours', messages: [{ value: 'v4', partition: 0 }] }, { topic: 'ours-b', messages: [{ value: 'b', partition: 1 }] }], compression: CompressionTypes.GZIP, acks: 1 });
  assert.deepEqual(batch.map((m) => [m.topicName, m.partition, m.baseOffset, m.errorCode]), [['ours', 0, '2', 0], ['ours-b', 1, '0', 0]]);

  const read = await readWithKafkaJS(bootstrap, 'ours', 4);
  const first = read.find((p) => p.message.offset === '0' && p.partition === 0)!;
  assert.equal(first.message.key!.toString(), 'k1');
  assert.equal(first.message.value!.toString(), 'v1');
  assert.equal(first.message.timestamp, '1700000000000');
  assert.equal(first.message.headers!['h']!.toString(), 'x');
  assert.deepEqual((first.message.headers!['multi'] as Buffer[]).map(String), ['a', 'b']);
  assert.deepEqual(read.map((p) => `${p.partition}/${p.message.offset}/${String(p.message.value)}`).sort(), ['0/0/v1', '0/1/v2', '0/2/v4', '2/0/v3']);
  await producer.disconnect();
  await assert.rejects(producer.send({ topic: 'ours', messages: [{ value: 'x' }] }), KafkaJSNonRetriableError);

  // An idempotent producer: acks must be all; each codec works.
  const idempotent = new Kafka({ brokers: [bootstrap], ...quiet }).producer({ idempotent: true });
  await idempotent.connect();
  await assert.rejects(idempotent.send({ topic: 'ours-b', acks: 1, messages: [{ value: 'x' }] }), KafkaJSNonRetriableError);
  // KafkaJS reads GZIP without plugins (Snappy, LZ4 and ZSTD need codecs it does not ship).
  await idempotent.send({ topic: 'ours-b', compression: CompressionTypes.GZIP, messages: [{ value: 'gzip', partition: 0 }] });
  await idempotent.disconnect();
  assert.deepEqual((await readWithKafkaJS(bootstrap, 'ours-b', 2)).filter((p) => p.partition === 0).map((p) => String(p.message.value)), ['gzip']);
});

test('logAppendTime and logStartOffset come from the Produce response, as KafkaJS gives them (CreateTime and LogAppendTime topics)', T, async (t) => {
  const { bootstrap } = await setup(t, []);
  const theirs = new real.Kafka({ brokers: [bootstrap], logLevel: real.logLevel.NOTHING });
  const admin = theirs.admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  const appendTime = [{ name: 'message.timestamp.type', value: 'LogAppendTime' }];
  await admin.createTopics({ topics: ['c-ours', 'c-theirs', 'a-ours', 'a-theirs'].map((topic) => ({ topic, numPartitions: 1, configEntries: topic.startsWith('a-') ? appendTime : [] })) });
  const tp = theirs.producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  const op = new Kafka({ brokers: [bootstrap], ...quiet }).producer();
  await tp.connect();
  await op.connect();
  t.after(async () => { await tp.disconnect(); await op.disconnect(); });
  const messages = [{ value: 'a', partition: 0, timestamp: '1700000000000' }, { value: 'b', partition: 0, timestamp: '1700000000000' }];
  type Meta = { logAppendTime?: string; logStartOffset?: string; baseOffset?: string };
  const both = async (kind: 'c' | 'a'): Promise<{ ours: Meta; theirs: Meta; before: number; after: number }> => {
    const before = Date.now();
    const [theirsMeta] = await tp.send({ topic: `${kind}-theirs`, messages });
    const [oursMeta] = await op.send({ topic: `${kind}-ours`, messages });
    return { theirs: theirsMeta!, ours: oursMeta!, before, after: Date.now() };
  };
  // CreateTime: logAppendTime -1; the log starts at 0.
  const c1 = await both('c');
  assert.deepEqual([c1.ours.logAppendTime, c1.ours.logStartOffset], [c1.theirs.logAppendTime, c1.theirs.logStartOffset]);
  assert.deepEqual([c1.theirs.logAppendTime, c1.theirs.logStartOffset], ['-1', '0']);
  // The log start moves when records are deleted; the next answer says so.
  const ourAdmin = new Kafka({ brokers: [bootstrap], ...quiet }).admin();
  await ourAdmin.connect();
  for (const topic of ['c-ours', 'c-theirs']) await ourAdmin.deleteTopicRecords({ topic, partitions: [{ partition: 0, offset: '1' }] });
  await ourAdmin.disconnect();
  const c2 = await both('c');
  assert.deepEqual([c2.ours.logStartOffset, c2.ours.baseOffset], [c2.theirs.logStartOffset, c2.theirs.baseOffset]);
  assert.equal(c2.theirs.logStartOffset, '1');
  // LogAppendTime: the broker's time of the append, which is also the records' timestamp.
  const a1 = await both('a');
  for (const meta of [a1.theirs, a1.ours]) {
    const at = Number(meta.logAppendTime);
    assert.ok(at >= a1.before - 1000 && at <= a1.after + 1000, `${meta.logAppendTime} within the send`);
    assert.equal(meta.logStartOffset, '0');
  }
  const read = await readWithKafkaJS(bootstrap, 'a-ours', 2);
  assert.deepEqual(read.map((p) => p.message.timestamp), [a1.ours.logAppendTime, a1.ours.logAppendTime]);
  // acks=0: no Produce response, nothing reported.
  assert.deepEqual(await op.send({ topic: 'c-ours', acks: 0, messages }), await tp.send({ topic: 'c-theirs', acks: 0, messages }));
  assert.deepEqual(await op.send({ topic: 'c-ours', acks: 0, messages }), []);
});

test('keyed messages land where KafkaJS puts them, with the default and the legacy partitioner', T, async (t) => {
  const { bootstrap } = await setup(t, [{ name: 'd-ours', partitions: 7 }, { name: 'd-theirs', partitions: 7 }, { name: 'l-ours', partitions: 7 }, { name: 'l-theirs', partitions: 7 }]);
  const keys = ['a', 'bb', 'ccc', 'dddd', 'eeeee', 'user-42', 'ключ', '0123456789abcdef'];
  const messages = keys.map((key) => ({ key, value: key }));
  const theirs = new real.Kafka({ brokers: [bootstrap], logLevel: real.logLevel.NOTHING });
  const ours = new Kafka({ brokers: [bootstrap], ...quiet });
  const where = async (send: (topic: string) => Promise<unknown>, topic: string): Promise<string[]> => {
    await send(topic);
    return (await readWithKafkaJS(bootstrap, topic, keys.length)).map((p) => `${String(p.message.key)}@${p.partition}`).sort();
  };
  for (const [name, theirsCreate, oursCreate] of [['d', real.Partitioners.DefaultPartitioner, DefaultPartitioner], ['l', real.Partitioners.LegacyPartitioner, LegacyPartitioner]] as const) {
    const tp = theirs.producer({ createPartitioner: theirsCreate });
    const op = ours.producer({ createPartitioner: oursCreate });
    await tp.connect();
    await op.connect();
    const expected = await where((topic) => tp.send({ topic, messages }), `${name}-theirs`);
    const got = await where((topic) => op.send({ topic, messages }), `${name}-ours`);
    assert.deepEqual(got, expected, name);
    await tp.disconnect();
    await op.disconnect();
  }
  // Keys where KafkaJS's legacy hash leaves Java's (its float multiply): the two partitioners disagree.
  assert.notEqual(legacyMurmur2('0123456789abcdef') | 0, 0);
});

test('a transaction: committed records and offsets are visible, aborted ones are not', T, async (t) => {
  const { bootstrap } = await setup(t, [{ name: 'tx', partitions: 1 }, { name: 'src', partitions: 1 }]);
  const producer = new Kafka({ brokers: [bootstrap], ...quiet }).producer({ transactionalId: 'tx-1', idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const aborted = await producer.transaction();
  await aborted.send({ topic: 'tx', messages: [{ value: 'aborted' }] });
  await aborted.abort();
  const tx = await producer.transaction();
  await tx.send({ topic: 'tx', messages: [{ value: 'committed' }] });
  await tx.sendOffsets({ consumerGroupId: 'tx-group', topics: [{ topic: 'src', partitions: [{ partition: 0, offset: '5' }] }] });
  await tx.commit();
  assert.equal(tx.isActive(), false);
  await producer.disconnect();

  const read = await readWithKafkaJS(bootstrap, 'tx', 1);
  assert.deepEqual(read.map((p) => String(p.message.value)), ['committed']);
  const admin = new real.Kafka({ brokers: [bootstrap], logLevel: real.logLevel.NOTHING }).admin();
  await admin.connect();
  assert.deepEqual(await admin.fetchOffsets({ groupId: 'tx-group', topics: ['src'] }), [{ topic: 'src', partitions: [{ partition: 0, offset: '5', metadata: null }] }]);
  await admin.disconnect();
});

test('events: CONNECT, DISCONNECT and REQUEST with KafkaJS payloads', T, async (t) => {
  const { bootstrap } = await setup(t, [{ name: 'ev', partitions: 1 }]);
  const producer = new Kafka({ brokers: [bootstrap], clientId: 'events-client', ...quiet }).producer();
  const seen: { type: string; payload: unknown }[] = [];
  for (const e of [producer.events.CONNECT, producer.events.DISCONNECT, producer.events.REQUEST]) producer.on(e, (ev) => seen.push({ type: ev.type, payload: ev.payload }));
  assert.throws(() => producer.on('producer.nope', () => undefined), KafkaJSNonRetriableError);
  await producer.connect();
  await producer.send({ topic: 'ev', messages: [{ value: 'x' }] });
  await producer.disconnect();
  const types = seen.map((s) => s.type);
  assert.deepEqual(types.filter((type) => type !== 'producer.network.request'), ['producer.connect', 'producer.disconnect']);
  assert.equal(types.at(-1), 'producer.disconnect');
  const produce = seen.find((s) => s.type === 'producer.network.request' && (s.payload as { apiName: string }).apiName === 'Produce');
  assert.ok(produce, `a Produce request event among ${types.join(', ')}`);
  assert.equal((produce.payload as { clientId: string }).clientId, 'events-client');
});
