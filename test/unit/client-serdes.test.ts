/**
 * Typed keys and values over a real Brook broker, checked against KafkaJS (a client Brook
 * did not write): JSON and strings written by Brook's producer are the bytes KafkaJS reads,
 * JSON written by KafkaJS is what Brook's consumer deserializes, and a record a deserializer
 * rejects stops the consumer at that record — not skipped, not committed — until the
 * application seeks past it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners } from 'kafkajs';
import {
  Consumer, Producer, RecordDeserializationError, SerializationError, jsonDeserializer, jsonSerializer, stringDeserializer,
  stringDeserializers, stringSerializers, type ConsumerRecord,
} from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { kafkaJs, KafkaJsReader, createTopicWithKafkaJs } from '../support/clients/kafkajs.js';

interface Order {
  readonly id: number;
  readonly item: string;
  readonly tags: string[];
}

const ORDERS: Order[] = [
  { id: 1, item: 'café crème', tags: ['hot'] },
  { id: 2, item: '寿司', tags: [] },
  { id: 3, item: 'plain', tags: ['a', 'b', 'c'] },
];

async function pollUntil<K, V, H>(consumer: Consumer<K, V, H>, count: number, timeoutMs = 15_000): Promise<ConsumerRecord<K, V, H>[]> {
  const out: ConsumerRecord<K, V, H>[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count) {
    if (Date.now() > deadline) throw new Error(`only ${out.length} of ${count} records within ${timeoutMs} ms`);
    out.push(...await consumer.poll({ timeoutMs: 200 }));
  }
  return out;
}

test('JSON values and string keys and headers from Brook\'s producer are, byte for byte, the UTF-8 JSON and strings KafkaJS reads', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const topic = 'serdes-json-out';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 1);
  const producer = new Producer({
    bootstrapServers: broker.bootstrap,
    serializers: { key: stringSerializers.key, value: jsonSerializer<Order>(), headerValue: stringSerializers.headerValue },
  });
  t.after(() => producer.close());
  for (const order of ORDERS) await producer.send({ topic, key: `order-${order.id}`, value: order, headers: { source: 'brook', note: 'ünïcode' } });
  await producer.send({ topic, key: 'tombstone', value: null });

  const reader = await KafkaJsReader.connect(kafkaJs(broker.bootstrap, 'serdes-reader'));
  t.after(() => reader.close());
  const records = await reader.readAll(topic);
  assert.deepEqual(records.map((r) => r.key), [...ORDERS.map((o) => `order-${o.id}`), 'tombstone']);
  assert.deepEqual(records.map((r) => r.value), [...ORDERS.map((o) => JSON.stringify(o)), null]);
  assert.deepEqual(records[0]!.headers, { source: 'brook', note: 'ünïcode' });
});

test('JSON written by KafkaJS comes out of Brook\'s consumer as objects (jsonDeserializer) with string keys and headers', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const topic = 'serdes-json-in';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 1);
  const kjs = kafkaJs(broker.bootstrap).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await kjs.connect();
  t.after(() => kjs.disconnect());
  await kjs.send({
    topic,
    messages: [
      ...ORDERS.map((o) => ({ key: `order-${o.id}`, value: Buffer.from(JSON.stringify(o), 'utf8'), headers: { source: 'kafkajs' } })),
      { key: null, value: null },
    ],
  });

  const consumer = new Consumer({
    bootstrapServers: broker.bootstrap, autoOffsetReset: 'earliest',
    deserializers: { key: stringDeserializer, value: jsonDeserializer<Order>(), headerValue: stringDeserializers.headerValue },
  });
  t.after(() => consumer.close());
  consumer.assign([{ topic, partition: 0 }]);
  const records = await pollUntil(consumer, ORDERS.length + 1);
  assert.deepEqual(records.map((r) => r.value), [...ORDERS, null]);
  assert.deepEqual(records.map((r) => r.key), [...ORDERS.map((o) => `order-${o.id}`), null]);
  assert.deepEqual(records[0]!.headers, [{ key: 'source', value: 'kafkajs' }]);
});

test('a value the deserializer rejects: poll() gives out the records before it, then throws RecordDeserializationError at every poll, commits stop at it, and a seek past it goes on', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const topic = 'serdes-poison';
  const groupId = 'serdes-poison-group';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 1);
  const kjs = kafkaJs(broker.bootstrap).producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await kjs.connect();
  t.after(() => kjs.disconnect());
  const values = ['{"id":0}', '{"id":1}', 'not json', '{"id":3}'];
  await kjs.send({ topic, messages: values.map((value) => ({ key: 'k', value })) });

  const consumer = new Consumer({
    bootstrapServers: broker.bootstrap, groupId, autoOffsetReset: 'earliest', enableAutoCommit: false,
    deserializers: { value: jsonDeserializer<{ id: number }>() },
  });
  t.after(() => consumer.close());
  const tp = { topic, partition: 0 };
  consumer.assign([tp]);
  const before = await pollUntil(consumer, 2);
  assert.deepEqual(before.map((r) => [r.offset, r.value]), [[0n, { id: 0 }], [1n, { id: 1 }]]);

  for (let attempt = 0; attempt < 2; attempt++) {
    const err = await consumer.poll({ timeoutMs: 2_000 }).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof RecordDeserializationError, `attempt ${attempt}: ${String(err)}`);
    assert.equal(err.code, 'ERR_RECORD_DESERIALIZATION');
    assert.deepEqual([err.topic, err.partition, err.offset, err.origin], [topic, 0, 2n, 'value']);
    assert.equal(err.value?.toString('utf8'), 'not json');
    assert.ok(err.cause instanceof SyntaxError);
    assert.equal(await consumer.position(tp), 2n);
  }
  // Everything the application finished with is committed, and nothing past the bad record.
  await consumer.commitSync();
  const admin = kafkaJs(broker.bootstrap, 'serdes-admin').admin();
  await admin.connect();
  t.after(() => admin.disconnect());
  const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
  assert.deepEqual(committed!.partitions.map((p) => [p.partition, p.offset]), [[0, '2']]);

  const err = await consumer.poll({ timeoutMs: 2_000 }).then(() => null, (e: unknown) => e as RecordDeserializationError);
  consumer.seek(err!, err!.offset + 1n);
  const after = await pollUntil(consumer, 1);
  assert.deepEqual(after.map((r) => [r.offset, r.value]), [[3n, { id: 3 }]]);
});

test('a serializer that throws, or returns something other than bytes, rejects the send with SerializationError; the producer goes on', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const topic = 'serdes-send-errors';
  await createTopicWithKafkaJs(broker.bootstrap, topic, 1);
  const producer = new Producer<string, unknown>({ bootstrapServers: broker.bootstrap, serializers: { key: stringSerializers.key, value: jsonSerializer() } });
  t.after(() => producer.close());
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  const thrown = await producer.send({ topic, key: 'a', value: cyclic }).then(() => null, (e: unknown) => e);
  assert.ok(thrown instanceof SerializationError);
  assert.deepEqual([thrown.code, thrown.topic, thrown.origin], ['ERR_SERIALIZATION', topic, 'value']);
  assert.ok(thrown.cause instanceof TypeError);
  const notBytes = new Producer<number>({ bootstrapServers: broker.bootstrap, serializers: { key: (n) => n as unknown as string } });
  t.after(() => notBytes.close());
  const wrong = await notBytes.send({ topic, key: 7 }).then(() => null, (e: unknown) => e);
  assert.ok(wrong instanceof SerializationError && wrong.origin === 'key');
  const ok = await producer.send({ topic, key: 'b', value: { fine: true } });
  assert.equal(ok.offset, 0n);
});
