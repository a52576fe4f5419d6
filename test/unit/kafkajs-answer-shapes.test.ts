/**
 * Shapes KafkaJS's own tests check, compared with the real KafkaJS 2.2.4 on the same broker:
 * - send() with acks 0 resolves with no record metadata (the broker answers nothing);
 * - a consumed message carries `magicByte` 2 and `isControlRecord` false (record batches).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 60_000 };

test('acks 0 resolves with [] and consumed messages carry magicByte and isControlRecord, as KafkaJS\'s', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const theirKafka = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING });
  const ourKafka = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
  const theirProducer = theirKafka.producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  const ourProducer = ourKafka.producer();
  await theirProducer.connect();
  await ourProducer.connect();
  cleanup.add('producers', async () => { await theirProducer.disconnect(); await ourProducer.disconnect(); });
  const messages = [{ key: 'k', value: 'v', partition: 0 }];
  assert.deepEqual(await ourProducer.send({ topic: 'shapes', acks: 0, messages }), await theirProducer.send({ topic: 'shapes', acks: 0, messages }));

  const consumed = async (kafka: { consumer(c: { groupId: string; maxWaitTimeInMs: number }): real.Consumer }, groupId: string): Promise<Record<string, unknown>> => {
    const consumer = kafka.consumer({ groupId, maxWaitTimeInMs: 100 });
    cleanup.add(groupId, () => consumer.disconnect());
    await consumer.connect();
    await consumer.subscribe({ topic: 'shapes', fromBeginning: true });
    return new Promise((resolve) => {
      void consumer.run({ eachMessage: async ({ message }) => resolve(message as unknown as Record<string, unknown>) });
    });
  };
  const theirs = await consumed(theirKafka, 'shapes-theirs');
  const ours = await consumed(ourKafka as unknown as { consumer(c: { groupId: string; maxWaitTimeInMs: number }): real.Consumer }, 'shapes-ours');
  assert.deepEqual([ours['magicByte'], ours['isControlRecord']], [theirs['magicByte'], theirs['isControlRecord']]);
  assert.deepEqual([ours['magicByte'], ours['isControlRecord']], [2, false]);
});

test('an idempotent producer without retries is refused when it is made, with KafkaJS\'s error', T, () => {
  const made = (f: () => unknown): string => {
    try {
      f();
      return 'made';
    } catch (err) {
      return `${(err as Error).name}: ${(err as Error).message}`;
    }
  };
  const theirs = new real.Kafka({ brokers: ['localhost:1'], logLevel: real.logLevel.NOTHING });
  const ours = new Kafka({ brokers: ['localhost:1'], logLevel: logLevel.NOTHING });
  for (const config of [{ idempotent: true, retry: { retries: 0 } }, { idempotent: true, retry: { retries: 1 } }, { idempotent: false, retry: { retries: 0 } }]) {
    assert.equal(made(() => ours.producer(config)), made(() => theirs.producer({ ...config, createPartitioner: real.Partitioners.DefaultPartitioner })), JSON.stringify(config));
  }
});

test('a send while disconnect() is closing the producer is refused with KafkaJS\'s "disconnecting" error', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const refusal = async (producer: { connect(): Promise<void>; disconnect(): Promise<void>; send(r: object): Promise<unknown> }): Promise<string> => {
    await producer.connect();
    await producer.send({ topic: 'closing', messages: [{ value: 'a' }] });
    const closing = producer.disconnect();
    const outcome = await producer.send({ topic: 'closing', messages: [{ value: 'b' }] }).then(() => 'resolved', (e: Error) => `${e.name}: ${e.message}`);
    await closing;
    return outcome;
  };
  const expected = await refusal(new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).producer({ createPartitioner: real.Partitioners.DefaultPartitioner }) as never);
  assert.equal(expected, 'KafkaJSNonRetriableError: The producer is disconnecting; therefore, it can\'t safely accept messages anymore');
  assert.equal(await refusal(new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).producer() as never), expected);
});

test('AssignerProtocol.MemberMetadata writes and reads KafkaJS\'s bytes at every version, and reads a Kafka v1 subscription\'s topics', T, async () => {
  const { AssignerProtocol } = await import('../../src/kafkajs/index.js');
  const { encodeSubscription } = await import('../../src/protocol/consumer-protocol.js');
  for (const version of [0, 1, 3]) {
    for (const userData of [undefined, Buffer.from('ud')]) {
      const input = { version, topics: ['topic-test', 'b'], ...(userData ? { userData } : {}) };
      const theirs = real.AssignerProtocol.MemberMetadata.encode(input as { version: number; topics: string[]; userData: Buffer });
      assert.deepEqual(AssignerProtocol.MemberMetadata.encode(input), theirs, `encode v${version}`);
      assert.deepEqual(AssignerProtocol.MemberMetadata.decode(theirs), real.AssignerProtocol.MemberMetadata.decode(theirs), `decode v${version}`);
    }
  }
  const kafkaV1 = encodeSubscription({ topics: ['x'], userData: Buffer.from('u'), ownedPartitions: [{ topic: 'x', partitions: [0] }], generationId: -1, rackId: null }, 1);
  assert.deepEqual(AssignerProtocol.MemberMetadata.decode(kafkaV1), real.AssignerProtocol.MemberMetadata.decode(kafkaV1));
});
