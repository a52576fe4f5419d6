/**
 * heartbeat() in a handler, with a real group, against KafkaJS 2.2.4 doing the same: a member
 * working through a long batch calls heartbeat() after each record; another member joins. In
 * KafkaJS heartbeat() then rejects with KafkaJSProtocolError REBALANCE_IN_PROGRESS, the batch
 * stops there, what was resolved is committed and the member joins again without a CRASH; the
 * same happens under brook/kafkajs. With eachMessage (no heartbeat() call), the batch also stops
 * between records, so the group rebalances without waiting for the rest of the batch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until as untilValue } from '../support/clients/run.js';

const T = { timeout: 120_000 };
const RECORDS = 40;
/** Per record: the whole batch takes RECORDS * STEP_MS, far longer than a rebalance needs. */
const STEP_MS = 100;

function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => ((await condition()) ? true : undefined));
}

/** The calls this test makes, which KafkaJS's consumer and brook/kafkajs's share. */
interface AnyConsumer {
  events: { GROUP_JOIN: string; CRASH: string };
  on(event: string, listener: (e: { payload: any }) => void): unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(s: { topics: string[]; fromBeginning: boolean }): Promise<void>;
  run(config: Record<string, unknown>): Promise<void>;
}
type Maker = (clientId: string, groupId: string) => AnyConsumer;

interface Outcome {
  error: { name: string; type: string; code: number; retriable: boolean } | null;
  handledInFirstBatch: number;
  committedAfterError: number;
  crashes: number;
  rebalanceMs: number;
}

async function scenario(bootstrap: string, make: Maker, mode: 'eachBatch' | 'eachMessage', name: string): Promise<Outcome> {
  const cleanup = new Cleanup();
  try {
    const theirs = new real.Kafka({ brokers: [bootstrap], clientId: `admin-${name}`, logLevel: real.logLevel.NOTHING });
    const topic = `hb-${name}`;
    const groupId = `hb-group-${name}`;
    const admin = theirs.admin();
    await admin.connect();
    cleanup.add('admin', () => admin.disconnect());
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }] });
    const producer = theirs.producer({ createPartitioner: real.Partitioners.DefaultPartitioner });
    await producer.connect();
    cleanup.add('producer', () => producer.disconnect());
    await producer.send({ topic, messages: Array.from({ length: RECORDS }, (_, i) => ({ value: `r${i}` })) });

    let error: Outcome['error'] = null;
    let handled = 0;
    let firstBatchDone = false;
    let crashes = 0;
    const slow = make(`slow-${name}`, groupId);
    cleanup.add('slow', () => slow.disconnect());
    slow.on(slow.events.CRASH, () => crashes++);
    await slow.connect();
    await slow.subscribe({ topics: [topic], fromBeginning: true });
    const step = async (): Promise<void> => {
      if (!firstBatchDone) handled++;
      await delay(STEP_MS);
    };
    if (mode === 'eachBatch') {
      await slow.run({
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, resolveOffset, heartbeat }: { batch: { messages: { offset: string }[] }; resolveOffset(o: string): void; heartbeat(): Promise<void> }) => {
          try {
            for (const m of batch.messages) {
              await step();
              resolveOffset(m.offset);
              await heartbeat();
            }
          } catch (e) {
            const err = e as { name: string; type: string; code: number; retriable: boolean };
            if (!firstBatchDone) error = { name: err.name, type: err.type, code: err.code, retriable: err.retriable };
            throw e;
          } finally {
            firstBatchDone = true;
          }
        },
      });
    } else {
      await slow.run({ eachMessage: async () => step() });
    }
    await until(() => handled >= 3, 30_000, 'the slow member works');

    const joined = Date.now();
    let rebalanceMs = -1;
    const other = new real.Kafka({ brokers: [bootstrap], clientId: `other-${name}`, logLevel: real.logLevel.NOTHING })
      .consumer({ groupId, heartbeatInterval: 100, maxWaitTimeInMs: 100 });
    cleanup.add('other', () => other.disconnect());
    other.on(other.events.GROUP_JOIN, () => {
      if (rebalanceMs < 0) rebalanceMs = Date.now() - joined;
    });
    await other.connect();
    await other.subscribe({ topics: [topic], fromBeginning: true });
    await other.run({ eachMessage: async () => undefined });
    await until(() => rebalanceMs >= 0, 30_000, 'the group rebalanced');
    const handledInFirstBatch = handled;
    firstBatchDone = true;
    const offsets = await admin.fetchOffsets({ groupId, topics: [topic] });
    const committedAfterError = Number(offsets[0]!.partitions[0]!.offset);
    return { error, handledInFirstBatch, committedAfterError, crashes, rebalanceMs };
  } finally {
    await cleanup.run();
  }
}

const kafkajsMaker = (bootstrap: string): Maker => (clientId, groupId) =>
  new real.Kafka({ brokers: [bootstrap], clientId, logLevel: real.logLevel.NOTHING }).consumer({ groupId, heartbeatInterval: 100, maxWaitTimeInMs: 100 }) as unknown as AnyConsumer;
const brookMaker = (bootstrap: string): Maker => (clientId, groupId) =>
  new Kafka({ brokers: [bootstrap], clientId, logLevel: logLevel.NOTHING }).consumer({ groupId, heartbeatInterval: 100, maxWaitTimeInMs: 100 }) as unknown as AnyConsumer;

test('heartbeat() in eachBatch rejects with REBALANCE_IN_PROGRESS when another member joins, as in KafkaJS 2.2.4', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const theirs = await scenario(broker.bootstrap, kafkajsMaker(broker.bootstrap), 'eachBatch', 'kafkajs');
  const ours = await scenario(broker.bootstrap, brookMaker(broker.bootstrap), 'eachBatch', 'brook');
  // The oracle: KafkaJS's own consumer on the same broker.
  assert.deepEqual(theirs.error, { name: 'KafkaJSProtocolError', type: 'REBALANCE_IN_PROGRESS', code: 27, retriable: false });
  assert.deepEqual(ours.error, theirs.error);
  for (const o of [theirs, ours]) {
    assert.ok(o.handledInFirstBatch < RECORDS, `the batch stopped early (${o.handledInFirstBatch} of ${RECORDS})`);
    assert.ok(o.committedAfterError >= o.handledInFirstBatch - 1, `what was resolved is committed (${o.committedAfterError}, handled ${o.handledInFirstBatch})`);
    assert.equal(o.crashes, 0);
  }
});

test('eachMessage: a rebalance stops the batch between records, as KafkaJS 2.2.4 does', T, async (t) => {
  const broker = await startBrook();
  t.after(() => broker.stop());
  const theirs = await scenario(broker.bootstrap, kafkajsMaker(broker.bootstrap), 'eachMessage', 'kafkajs');
  const ours = await scenario(broker.bootstrap, brookMaker(broker.bootstrap), 'eachMessage', 'brook');
  for (const o of [theirs, ours]) {
    assert.ok(o.rebalanceMs < (RECORDS * STEP_MS) / 2, `the group did not wait for the batch (${o.rebalanceMs} ms)`);
    assert.ok(o.handledInFirstBatch < RECORDS, `the batch stopped early (${o.handledInFirstBatch} of ${RECORDS})`);
    assert.ok(o.committedAfterError >= o.handledInFirstBatch - 1, `what was handled is committed (${o.committedAfterError}, handled ${o.handledInFirstBatch})`);
    assert.equal(o.crashes, 0);
  }
});
