/**
 * Seed brokers that do not answer: KafkaJS's examples list three seeds of which only one runs
 * here. With the two unreachable ones first in `brokers` (the worst order), brook/kafkajs's
 * admin, producer and consumer must still create a topic, send and consume, as KafkaJS 2.2.4
 * does with the same config (it tries the seeds in turn, logging each refusal as an error);
 * brook/kafkajs moves to the next seed without logging an error.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until } from '../support/clients/run.js';

const T = { timeout: 60_000 };

/** A port nothing listens on: one the OS gave a server that is closed again (connections are refused). */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Entry { level: number; message: string }

type KafkaLike = real.Kafka | Kafka;

/** Creates `topic`, sends three keyed messages and reads them back in a group; returns "key=value" in order. */
async function roundTrip(kafka: KafkaLike, topic: string, cleanup: Cleanup): Promise<string[]> {
  const admin = kafka.admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  assert.equal(await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] }), true);
  const producer = kafka.producer();
  await producer.connect();
  cleanup.add('producer', () => producer.disconnect());
  await producer.send({ topic, messages: ['a', 'b', 'c'].map((v) => ({ key: `k-${v}`, value: v })) });
  const consumer = kafka.consumer({ groupId: `${topic}-group` });
  await consumer.connect();
  cleanup.add('consumer', () => consumer.disconnect());
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => { seen.push(`${message.key!.toString()}=${message.value!.toString()}`); } });
  await until(`3 messages of ${topic}`, 30_000, async () => (seen.length >= 3 ? true : undefined));
  return seen;
}

test('brook/kafkajs gets past unreachable seed brokers as KafkaJS does, without logging errors', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const brokers = [`127.0.0.1:${await deadPort()}`, `127.0.0.1:${await deadPort()}`, broker.bootstrap];

  const kafkajsLog: Entry[] = [];
  const kafkajs = new real.Kafka({
    clientId: 'seeds', brokers, logLevel: real.logLevel.INFO, retry: { initialRetryTime: 50, retries: 5 },
    logCreator: () => ({ level, log }) => kafkajsLog.push({ level, message: log.message }),
  });
  const brookLog: Entry[] = [];
  const brook = new Kafka({
    clientId: 'seeds', brokers, logLevel: logLevel.INFO, retry: { initialRetryTime: 50, retries: 5 },
    logCreator: () => ({ level, log }) => brookLog.push({ level, message: log.message }),
  });

  const expected = await roundTrip(kafkajs, 'seeds-kafkajs', cleanup);
  assert.deepEqual(expected, ['k-a=a', 'k-b=b', 'k-c=c']);
  // The oracle really met the dead seeds: it reports each refused connection as an error.
  assert.ok(kafkajsLog.some((e) => e.level === real.logLevel.ERROR && e.message.includes('ECONNREFUSED')), JSON.stringify(kafkajsLog));

  assert.deepEqual(await roundTrip(brook, 'seeds-brook', cleanup), expected);
  assert.deepEqual(brookLog.filter((e) => e.level === logLevel.ERROR), []);
});
