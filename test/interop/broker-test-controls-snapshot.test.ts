/**
 * A snapshot as a fixture, with KafkaJS: records produced and a group's progress committed
 * on one broker; a broker started from its snapshot serves a KafkaJS consumer of the same
 * group, which resumes at the committed offset and reads exactly the records after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Partitioners } from 'kafkajs';
import { Broker, silentLogger } from '../../src/index.js';
import { startBrook } from '../support/brook.js';
import { waitFor } from '../support/clients/run.js';
import { kafkaJs } from '../support/clients/kafkajs.js';

const T = { timeout: 60_000 };

test('a KafkaJS consumer resumes from its committed offset on a broker restored from a snapshot', T, async (t) => {
  const source = await startBrook();
  source.createTopic('fixture-orders', 1);
  const first = kafkaJs(source.bootstrap, 'brook-test-snapshot');
  const producer = first.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  await producer.send({ topic: 'fixture-orders', messages: Array.from({ length: 6 }, (_, i) => ({ key: `k${i}`, value: `v${i}` })) });
  await producer.disconnect();
  const admin = first.admin();
  await admin.connect();
  await admin.setOffsets({ groupId: 'fixture-readers', topic: 'fixture-orders', partitions: [{ partition: 0, offset: '4' }] });
  await admin.disconnect();
  const snapshot = await source.snapshot();
  await source.stop();

  const restored = await Broker.restore(snapshot, { host: '127.0.0.1', port: 0, dataDir: null, log: silentLogger, groupInitialRebalanceDelayMs: 0 });
  const consumer = kafkaJs(`127.0.0.1:${restored.port}`, 'brook-test-snapshot').consumer({ groupId: 'fixture-readers', heartbeatInterval: 200 });
  t.after(async () => {
    await consumer.disconnect().catch(() => undefined);
    await restored.stop();
  });
  await consumer.connect();
  await consumer.subscribe({ topic: 'fixture-orders', fromBeginning: true });
  const seen: string[] = [];
  await consumer.run({ eachMessage: async ({ message }) => void seen.push(`${message.offset}:${message.value!.toString()}`) });
  await waitFor('the records after the committed offset', () => seen.length >= 2);
  await waitFor('the commit of the last', () => restored.committed('fixture-readers')['fixture-orders']?.[0] === 6n);
  assert.deepEqual(seen, ['4:v4', '5:v5'], 'from the committed offset, not from the beginning');
});
