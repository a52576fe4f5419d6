/**
 * An offline partition against third-party clients: a KafkaJS producer's send to it retries
 * (NOT_LEADER_OR_FOLLOWER, then metadata without a leader) until the partition is back
 * online, and the record lands once (idempotent: KafkaJS sends the whole request again); a
 * KafkaJS consumer reads everything once the partition is back (KafkaJS, against Kafka too,
 * fails its whole metadata refresh while a partition has no leader, and stops fetching until
 * a retry succeeds); an @platformatic/kafka producer retries its send too.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners } from 'kafkajs';
import { startBrook } from '../support/brook.js';
import { waitFor } from '../support/clients/run.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { platformaticKafka, PLATFORMATIC_KAFKA } from '../support/clients/platformatic-kafka.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const T = { timeout: 60_000 };

test('a KafkaJS send to an offline partition retries until it is online again, and lands once', T, async (t) => {
  const broker = await startBrook();
  broker.createTopic('offline-orders', 2);
  // Idempotent: KafkaJS sends the whole request again, the partition that was appended too, and the broker drops that duplicate.
  const producer = kafkaJs(broker.bootstrap, 'brook-test-offline', 20).producer({ createPartitioner: Partitioners.DefaultPartitioner, idempotent: true, maxInFlightRequests: 1 });
  t.after(async () => {
    await producer.disconnect().catch(() => undefined);
    await broker.stop();
  });
  await producer.connect();
  await producer.send({ topic: 'offline-orders', messages: [{ partition: 1, value: 'first' }] });
  let refusedProduce = 0;
  let leaderless = 0;
  broker.onResponse((r) => {
    if (r.api === 'Produce' && r.body.responses.some((x) => x.partitionResponses.some((p) => p.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER))) refusedProduce++;
    if (r.api === 'Metadata' && r.body.topics.some((x) => x.partitions.some((p) => p.errorCode === ErrorCode.LEADER_NOT_AVAILABLE && p.leaderId === -1))) leaderless++;
  });

  broker.setPartitionOffline('offline-orders', 1);
  let done = false;
  const sent = producer.send({ topic: 'offline-orders', messages: [{ partition: 1, value: 'waits' }, { partition: 0, value: 'goes' }] }).finally(() => {
    done = true;
  });
  // KafkaJS's known leader refuses the Produce; the metadata it then asks for has no leader, so it asks again.
  await waitFor('a refused Produce and two leaderless Metadata answers', () => refusedProduce >= 1 && leaderless >= 2);
  assert.equal(done, false, 'the send is still retrying while the partition is offline');
  broker.setPartitionOnline('offline-orders', 1);
  const result = await sent;
  assert.deepEqual(result.map((m) => [m.partition, m.errorCode]).sort(), [[0, 0], [1, 0]]);
  assert.deepEqual(broker.records('offline-orders').map((r) => `${r.partition}:${r.value!.toString()}`).sort(), ['0:goes', '1:first', '1:waits']);
});

test('a KafkaJS consumer reads a partition that went offline once it is back, missing nothing', T, async (t) => {
  const broker = await startBrook();
  broker.createTopic('offline-reads', 2);
  const kafka = kafkaJs(broker.bootstrap, 'brook-test-offline-reads', 20);
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const consumer = kafka.consumer({ groupId: 'offline-readers', heartbeatInterval: 200, maxWaitTimeInMs: 100 });
  t.after(async () => {
    await consumer.disconnect().catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
    await broker.stop();
  });
  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topic: 'offline-reads', fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ partition, message }) => void seen.push(`${partition}:${message.value!.toString()}`) });
  await producer.send({ topic: 'offline-reads', messages: [{ partition: 0, value: 'a' }, { partition: 1, value: 'b' }] });
  await waitFor('the first two records', () => seen.length >= 2);

  let leaderless = 0;
  broker.onResponse((r) => {
    if (r.api === 'Metadata' && r.body.topics.some((x) => x.partitions.some((p) => p.errorCode === ErrorCode.LEADER_NOT_AVAILABLE))) leaderless++;
  });
  broker.setPartitionOffline('offline-reads', 1);
  await waitFor('the consumer to see the partition without a leader', () => leaderless >= 2);
  // Written while the partition is offline, to its neighbour.
  await producer.send({ topic: 'offline-reads', messages: [{ partition: 0, value: 'c' }] });
  broker.setPartitionOnline('offline-reads', 1);
  await producer.send({ topic: 'offline-reads', messages: [{ partition: 1, value: 'd' }] });
  await waitFor('every record', () => ['0:a', '0:c', '1:b', '1:d'].every((v) => seen.includes(v)));
  assert.deepEqual([...new Set(seen)].sort(), ['0:a', '0:c', '1:b', '1:d']);
});

test(`${PLATFORMATIC_KAFKA}: a send to an offline partition is retried until it is back online, and lands once`, T, async (t) => {
  const broker = await startBrook();
  broker.createTopic('plt-offline', 1);
  const { Producer, stringSerializers } = platformaticKafka;
  const producer = new Producer({
    clientId: 'brook-test-plt-offline', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, autocreateTopics: false,
    retries: 50, retryDelay: 50, idempotent: true,
  });
  t.after(async () => {
    await producer.close(true).catch(() => undefined);
    await broker.stop();
  });
  await producer.send({ messages: [{ topic: 'plt-offline', partition: 0, value: 'first' }] });
  let refused = 0;
  broker.onResponse((r) => {
    if (r.api === 'Produce' && r.body.responses.some((x) => x.partitionResponses.some((p) => p.errorCode === ErrorCode.NOT_LEADER_OR_FOLLOWER))) refused++;
  });
  broker.setPartitionOffline('plt-offline', 0);
  let done = false;
  const sent = producer.send({ messages: [{ topic: 'plt-offline', partition: 0, value: 'waits' }] }).finally(() => {
    done = true;
  });
  await waitFor('a refused Produce', () => refused >= 1);
  assert.equal(done, false);
  broker.setPartitionOnline('plt-offline', 0);
  await sent;
  assert.deepEqual(broker.records('plt-offline').map((r) => r.value?.toString()), ['first', 'waits']);
});
