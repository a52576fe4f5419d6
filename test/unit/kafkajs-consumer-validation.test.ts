/**
 * brook/kafkajs's consumer checks subscribe, pause, resume and commitOffsets arguments as
 * KafkaJS 2.2.4 does: each bad call gets the error class and message the real KafkaJS
 * consumer gives for the same call (the oracle), before run() and, for the argument checks,
 * after it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 60_000 };

type AnyConsumer = Record<string, (...args: unknown[]) => unknown>;

async function outcome(call: () => unknown): Promise<string> {
  try {
    await call();
    return 'ok';
  } catch (err) {
    return `${(err as Error).name}: ${(err as Error).message}`;
  }
}

const SUBSCRIBE: unknown[] = [{ topic: null }, { topics: 'a' }, { topics: ['a', 1] }, { topic: 1 }, { topics: [{}] }];
const PAUSE_RESUME: unknown[] = [[{ topic: null }], [null], [{ topic: 'a', partitions: 'x' }], [{ topic: 'a', partitions: [0, 'y'] }], [{ topic: 'a' }]];
const COMMIT: unknown[] = [
  [{ partition: 0, offset: '1' }],
  [{ topic: 'a', offset: '1' }],
  [{ topic: 'a', partition: 0, offset: 'ABC' }],
  [{ topic: 'a', partition: 0, offset: '-1' }],
  [{ topic: 'a', partition: 0, offset: '1', metadata: 5 }],
  [{ topic: 'a', partition: 0, offset: '1' }],
];

test('subscribe, pause, resume and commitOffsets refuse what KafkaJS 2.2.4 refuses, with its errors, before and after run()', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({ groupInitialRebalanceDelayMs: 0 });
  cleanup.add('stop broker', () => broker.stop());
  const theirs = new real.Kafka({ brokers: [broker.bootstrap], logLevel: real.logLevel.NOTHING }).consumer({ groupId: 'v-theirs', maxWaitTimeInMs: 100 }) as unknown as AnyConsumer;
  const ours = new Kafka({ brokers: [broker.bootstrap], logLevel: logLevel.NOTHING }).consumer({ groupId: 'v-ours', maxWaitTimeInMs: 100 }) as unknown as AnyConsumer;
  cleanup.add('consumers', async () => { await theirs['disconnect']!(); await ours['disconnect']!(); });
  const compare = async (method: string, args: unknown): Promise<void> => {
    const expected = await outcome(() => theirs[method]!(args));
    assert.equal(await outcome(() => ours[method]!(args)), expected, `${method}(${JSON.stringify(args)})`);
  };
  for (const c of [theirs, ours]) await c['connect']!();
  for (const args of SUBSCRIBE) await compare('subscribe', args);
  for (const method of ['pause', 'resume']) for (const args of PAUSE_RESUME) await compare(method, args);
  for (const args of COMMIT) await compare('commitOffsets', args);

  for (const c of [theirs, ours]) {
    await c['subscribe']!({ topic: 'validated', fromBeginning: true });
    await c['run']!({ eachMessage: async () => undefined });
  }
  for (const method of ['pause', 'resume']) for (const args of PAUSE_RESUME.slice(0, 4)) await compare(method, args);
  for (const args of COMMIT.slice(0, 5)) await compare('commitOffsets', args);
});
