/**
 * A handler slower than the session timeout: the real KafkaJS 2.2.4 member, which heartbeats
 * only between messages, is removed from its group and joins again (a second GROUP_JOIN);
 * a brook/kafkajs member, whose heartbeats run in the background, stays in the group with
 * its one join, and every record is handled once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until as untilValue } from '../support/clients/run.js';

const T = { timeout: 60_000 };
const SESSION_MS = 600;
const HANDLER_MS = 2_000;

function until(condition: () => boolean, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => (condition() ? true : undefined));
}

test('a handler slower than the session: KafkaJS rejoins, brook/kafkajs keeps its membership', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupMinSessionTimeoutMs: 100 });
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING });
  const admin = theirs.admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'slow-theirs', numPartitions: 1 }, { topic: 'slow-ours', numPartitions: 1 }] });
  const producer = theirs.producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
  await producer.connect();
  for (const topic of ['slow-theirs', 'slow-ours']) await producer.send({ topic, messages: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] });
  await producer.disconnect();
  const slowFirst = (seen: string[]) => async ({ message }: { message: { offset: string } }): Promise<void> => {
    seen.push(message.offset);
    if (seen.length === 1) await new Promise((resolve) => setTimeout(resolve, HANDLER_MS));
  };
  const config = { sessionTimeout: SESSION_MS, heartbeatInterval: 100, maxWaitTimeInMs: 100 };

  const kjs = theirs.consumer({ groupId: 'slow-theirs', ...config });
  cleanup.add('kafkajs consumer', () => kjs.disconnect());
  let kjsJoins = 0;
  kjs.on(kjs.events.GROUP_JOIN, () => kjsJoins++);
  const kjsSeen: string[] = [];
  await kjs.connect();
  await kjs.subscribe({ topics: ['slow-theirs'], fromBeginning: true });
  await kjs.run({ eachMessage: slowFirst(kjsSeen) });
  await until(() => kjsJoins >= 2 && kjsSeen.includes('2'), 30_000, 'KafkaJS to rejoin and finish');

  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).consumer({ groupId: 'slow-ours', ...config });
  cleanup.add('brook/kafkajs consumer', () => ours.disconnect());
  let ourJoins = 0;
  ours.on(ours.events.GROUP_JOIN, () => ourJoins++);
  const ourSeen: string[] = [];
  await ours.connect();
  await ours.subscribe({ topics: ['slow-ours'], fromBeginning: true });
  await ours.run({ eachMessage: slowFirst(ourSeen) });
  await until(() => ourSeen.includes('2'), 30_000, 'brook/kafkajs to finish');
  assert.equal(ourJoins, 1);
  assert.deepEqual(ourSeen, ['0', '1', '2']);
  assert.ok(kjsJoins >= 2, `KafkaJS joined ${kjsJoins} times`);
});
