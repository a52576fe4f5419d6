/**
 * The typed client API at compile time: this file must type-check (the build compiles it),
 * and each `@ts-expect-error` line must be an error — an unused one fails the build too. The
 * tests run the built-in serdes against independent expectations (Buffer and JSON by hand).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Consumer, Producer, bufferDeserializer, bufferSerializer, jsonDeserializer, jsonSerializer, stringDeserializer, stringDeserializers,
  stringSerializer, stringSerializers, type ConsumerRecord, type Deserializer, type ProducerRecord, type Serializer,
} from '../../src/index.js';
import * as root from '../../src/index.js';

interface Order {
  readonly id: number;
  readonly item: string;
}

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
function assertType<T extends true>(_check?: T): void {}

/** Never called: only compiled. */
function compileTimeChecks(): void {
  const bootstrapServers = '127.0.0.1:9092';

  // No serdes: what the clients always took and gave (Buffer or string in, Buffer out).
  const raw = new Producer({ bootstrapServers });
  assertType<Equal<typeof raw, Producer<Buffer | string, Buffer | string, Buffer | string>>>();
  void raw.send({ topic: 't', key: 'k', value: Buffer.from('v'), headers: { h: 'x', n: null } });
  // @ts-expect-error a number is not bytes without a serializer
  void raw.send({ topic: 't', value: 42 });
  const rawConsumer = new Consumer({ bootstrapServers });
  assertType<Equal<Awaited<ReturnType<typeof rawConsumer.poll>>, ConsumerRecord<Buffer, Buffer, Buffer>[]>>();
  void rawConsumer;

  // Serializers fix the record types.
  const json = new Producer({ bootstrapServers, serializers: { key: stringSerializer, value: jsonSerializer<Order>() } });
  assertType<Equal<typeof json, Producer<string, Order, Buffer | string>>>();
  void json.send({ topic: 't', key: 'order-1', value: { id: 1, item: 'tea' } });
  void json.send({ topic: 't', key: null, value: null });
  // @ts-expect-error the value must be an Order
  void json.send({ topic: 't', key: 'order-1', value: { id: 'one', item: 'tea' } });
  // @ts-expect-error the key serializer takes strings
  void json.send({ topic: 't', key: Buffer.from('k'), value: { id: 1, item: 'tea' } });
  void json.sendBatch([{ topic: 't', value: { id: 2, item: 'milk' } }]);
  // @ts-expect-error sendBatch checks every record
  void json.sendBatch([{ topic: 't', value: 'not an order' }]);

  const strings = new Producer({ bootstrapServers, serializers: stringSerializers });
  void strings.send({ topic: 't', key: 'k', value: 'v', headers: [{ key: 'h', value: 'text' }] });
  // @ts-expect-error header values are strings with stringSerializers
  void strings.send({ topic: 't', value: 'v', headers: { h: Buffer.from('x') } });
  const record: ProducerRecord<string, string, string> = { topic: 't', value: 'v' };
  void strings.send(record);

  // Deserializers fix what poll() and the iterator give out.
  const orders = new Consumer({ bootstrapServers, deserializers: { key: stringDeserializer, value: jsonDeserializer<Order>() } });
  assertType<Equal<typeof orders, Consumer<string, Order, Buffer>>>();
  void orders.poll().then((records) => {
    const first = records[0]!;
    assertType<Equal<typeof first.key, string | null>>();
    assertType<Equal<typeof first.value, Order | null>>();
    assertType<Equal<typeof first.headers[number]['value'], Buffer | null>>();
    // @ts-expect-error a value may be null (a tombstone)
    void first.value.id;
    // @ts-expect-error values are Orders, not Buffers
    void first.value?.toString('hex');
  });
  void (async () => {
    for await (const r of orders) {
      assertType<Equal<typeof r, ConsumerRecord<string, Order, Buffer>>>();
      void r;
    }
  })();
  const allStrings = new Consumer({ bootstrapServers, deserializers: stringDeserializers });
  assertType<Equal<typeof allStrings, Consumer<string, string, string>>>();
  void allStrings;

  // @ts-expect-error a serializer takes the value and the topic and returns bytes
  const badSerializer: Serializer<number> = (n: number) => n;
  // @ts-expect-error a deserializer is given a Buffer, not a string
  const badDeserializer: Deserializer<number> = (s: string) => Number(s);
  void badSerializer;
  void badDeserializer;
  // @ts-expect-error the producer's option is `serializers`
  void new Producer({ bootstrapServers, deserializers: stringDeserializers });
}
void compileTimeChecks;

test('the built-in serdes: strings and JSON as UTF-8, Buffers as they are', () => {
  const text = 'naïve ☕ 寿司';
  assert.equal(stringSerializer(text, 't'), text);
  assert.equal(stringDeserializer(Buffer.from(text, 'utf8'), 't', []), text);
  const order: Order = { id: 7, item: text };
  const encoded = jsonSerializer<Order>()(order, 't');
  assert.equal(encoded, `{"id":7,"item":"${text}"}`);
  assert.deepEqual(jsonDeserializer<Order>()(Buffer.from(`{"id":7,"item":"${text}"}`, 'utf8'), 't', []), order);
  const bytes = Buffer.from([0, 1, 254, 255]);
  assert.equal(bufferSerializer(bytes, 't'), bytes);
  assert.equal(bufferDeserializer(bytes, 't', []), bytes);
  assert.throws(() => jsonSerializer()(undefined, 't'), TypeError);
  assert.throws(() => jsonSerializer()(10n, 't'), TypeError);
  assert.throws(() => jsonDeserializer()(Buffer.from('{'), 't', []), SyntaxError);
  assert.throws(() => stringSerializer(5 as unknown as string, 't'), TypeError);
});

test('serdes options are checked when the client is made', () => {
  const bootstrapServers = '127.0.0.1:1';
  assert.throws(() => new Producer({ bootstrapServers, serializers: { value: 'json' as unknown as Serializer<string> } }), { code: 'ERR_CONFIG' });
  assert.throws(() => new Consumer({ bootstrapServers, deserializers: 5 as unknown as object }), { code: 'ERR_CONFIG' });
});

test('the package root exports the client API and leaves the protocol layer to brook/protocol', () => {
  for (const name of ['Consumer', 'Producer', 'Admin', 'KafkaProtocolError', 'ErrorCode', 'RecordDeserializationError', 'CLIENT_CHANNELS', 'jsonSerializer']) {
    assert.ok(name in root, `${name} is exported`);
  }
  for (const name of ['Api', 'Reader', 'Writer', 'encodeRequest', 'decodeResponse', 'RecordBatch', 'compress', 'coordinatorRecords']) {
    assert.ok(!(name in root), `${name} belongs to brook/protocol`);
  }
});
