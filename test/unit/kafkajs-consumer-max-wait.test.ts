/**
 * `maxWaitTimeInMs: 0` (KafkaJS's own tests use it): the broker answers fetches at once, and
 * consumer.run() must still let those answers in. A run loop polling Brook's consumer with a
 * zero timeout never yielded to I/O: the event loop starved and memory grew until the
 * process died. Records produced before and after run() arrive, and timers keep firing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';

const T = { timeout: 60_000 };

test('maxWaitTimeInMs 0: records before and after run() are consumed, and the event loop keeps turning while the consumer idles', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  // The real KafkaJS producer writes the records: an independent writer.
  const producer = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await producer.connect();
  cleanup.add('producer', () => producer.disconnect());
  await producer.send({ topic: 'zero-wait', messages: [{ value: 'before-1' }, { value: 'before-2' }] });

  const consumer = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).consumer({ groupId: 'zero-wait-group', maxWaitTimeInMs: 0 });
  cleanup.add('consumer', () => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topic: 'zero-wait', fromBeginning: true });
  const values: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => { values.push(message.value!.toString()); } });
  await until('the records produced before run()', 20_000, async () => (values.length >= 2 ? true : undefined));

  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  cleanup.add('timer', () => clearInterval(timer));
  await until('timers firing while the consumer idles', 10_000, async () => (ticks >= 5 ? true : undefined));
  await producer.send({ topic: 'zero-wait', messages: [{ value: 'after' }] });
  await until('the record produced after run()', 20_000, async () => (values.length >= 3 ? true : undefined));
  assert.deepEqual(values, ['before-1', 'before-2', 'after']);
});
