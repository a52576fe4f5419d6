/**
 * A paused broker against KafkaJS: a send made while the broker is paused waits (its
 * connection open, its Produce unanswered) and completes once the broker resumes, with its
 * record appended once; a consumer reading meanwhile gets the record after the resume. The
 * same send with @platformatic/kafka.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners } from 'kafkajs';
import { startBrook } from '../support/brook.js';
import { waitFor } from '../support/clients/run.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { platformaticKafka, PLATFORMATIC_KAFKA } from '../support/clients/platformatic-kafka.js';

const T = { timeout: 60_000 };

test('a KafkaJS send waits while the broker is paused and completes once it resumes; a consumer gets the record after', T, async (t) => {
  const broker = await startBrook();
  broker.createTopic('paused-orders', 1);
  const kafka = kafkaJs(broker.bootstrap, 'brook-test-paused', 5);
  const producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const consumer = kafka.consumer({ groupId: 'paused-readers', heartbeatInterval: 500, sessionTimeout: 30_000, maxWaitTimeInMs: 100 });
  t.after(async () => {
    broker.resume();
    await consumer.disconnect().catch(() => undefined);
    await producer.disconnect().catch(() => undefined);
    await broker.stop();
  });
  await producer.connect();
  await consumer.connect();
  await consumer.subscribe({ topic: 'paused-orders', fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
  await producer.send({ topic: 'paused-orders', messages: [{ value: 'before' }] });
  await waitFor('the first record', () => seen.includes('before'));

  let produces = 0;
  broker.onRequest((r) => {
    if (r.api === 'Produce') produces++;
  });
  broker.pause();
  let done = false;
  const sent = producer.send({ topic: 'paused-orders', messages: [{ value: 'while paused' }] }).finally(() => {
    done = true;
  });
  await waitFor('the Produce to reach the paused broker', () => produces >= 1);
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(done, false, 'no answer while paused');
  assert.deepEqual(broker.records('paused-orders').map((r) => r.value?.toString()), ['before'], 'nothing appended while paused');

  broker.resume();
  await sent;
  await waitFor('the consumer to read the record', () => seen.includes('while paused'));
  assert.equal(produces, 1, 'answered, not retried');
  assert.deepEqual(broker.records('paused-orders').map((r) => r.value?.toString()), ['before', 'while paused']);
  assert.deepEqual(seen, ['before', 'while paused']);
});

test(`${PLATFORMATIC_KAFKA}: a send waits while the broker is paused and completes once it resumes`, T, async (t) => {
  const broker = await startBrook();
  broker.createTopic('plt-paused', 1);
  const { Producer, stringSerializers } = platformaticKafka;
  const producer = new Producer({ clientId: 'brook-test-plt-paused', bootstrapBrokers: [broker.bootstrap], serializers: stringSerializers, autocreateTopics: false, timeout: 20_000 });
  t.after(async () => {
    broker.resume();
    await producer.close(true).catch(() => undefined);
    await broker.stop();
  });
  await producer.send({ messages: [{ topic: 'plt-paused', value: 'before' }] });
  let produces = 0;
  broker.onRequest((r) => {
    if (r.api === 'Produce') produces++;
  });
  broker.pause();
  let done = false;
  const sent = producer.send({ messages: [{ topic: 'plt-paused', value: 'while paused' }] }).finally(() => {
    done = true;
  });
  await waitFor('the Produce to reach the paused broker', () => produces >= 1);
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(done, false, 'no answer while paused');
  broker.resume();
  await sent;
  assert.equal(produces, 1, 'answered, not retried');
  assert.deepEqual(broker.records('plt-paused').map((r) => r.value?.toString()), ['before', 'while paused']);
});
