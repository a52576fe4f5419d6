/**
 * Commits on a ManualScheduler against a scripted broker: commitAsync callbacks in commit
 * order with their own offsets, the committed offset updated from responses (a late one
 * never sets it back), commitSync's retries. The auto-commit task's schedule and what it
 * commits are in consumer-delivery.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer } from '../../src/index.js';
import type { OffsetToCommit } from '../../src/client/consumer/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeKafka } from '../support/fake-kafka.js';

function committedOf(consumer: Consumer, topic: string, partition: number): bigint | null {
  // The partition's local "committed" state (TopicPartitionState), which only commit responses update.
  const subs = (consumer as unknown as { subscriptions: { stateOf(t: string, p: number): { committed: bigint | null } | undefined } }).subscriptions;
  return subs.stateOf(topic, partition)?.committed ?? null;
}

test('commitAsync callbacks run in commit order with their own offsets, even when the second response arrives first; commitSync retries retriable errors', { timeout: 10_000 }, async () => {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 1);
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', groupId: 'g', enableAutoCommit: false, scheduler, connectionFactory: fake.connectionFactory,
  });
  consumer.assign([{ topic: 't', partition: 0 }]);
  const callbacks: { commit: number; error: Error | null; offsets: readonly OffsetToCommit[] }[] = [];
  const gate = fake.hold('OffsetCommit');
  consumer.commitAsync([{ topic: 't', partition: 0, offset: 1n }], (error, offsets) => callbacks.push({ commit: 1, error, offsets }));
  consumer.commitAsync([{ topic: 't', partition: 0, offset: 2n }], (error, offsets) => callbacks.push({ commit: 2, error, offsets }));
  await scheduler.advance(0);
  assert.deepEqual(gate.held.map((h) => h.request.body.topics[0]!.partitions[0]!.committedOffset), [1n, 2n], 'both commits sent, neither answered');
  // A broker answers one connection in order, but the order of the callbacks must not rest
  // on that (a commit can complete on a new coordinator connection): answer the second first.
  gate.held[1]!.release();
  await scheduler.advance(0);
  assert.deepEqual(callbacks, [], "the second commit's callback waits for the first commit's");
  gate.releaseNext(); // the first
  gate.open(); // hold no more: the commits below are answered at once
  await scheduler.advance(0);
  assert.deepEqual(callbacks, [
    { commit: 1, error: null, offsets: [{ topic: 't', partition: 0, offset: 1n }] },
    { commit: 2, error: null, offsets: [{ topic: 't', partition: 0, offset: 2n }] },
  ]);
  assert.equal(committedOf(consumer, 't', 0), 2n, "the committed offset ends at the second commit's, although its response came first");
  const simple = fake.requests('OffsetCommit')[0]!.body;
  assert.equal(simple.generationIdOrMemberEpoch, -1, 'assign() mode: simple commit');
  // commitSync: COORDINATOR_LOAD_IN_PROGRESS twice, then success.
  let calls = 0;
  fake.on('OffsetCommit', () => ({ topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: ++calls <= 2 ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE }] }] }));
  const sync = consumer.commitSync([{ topic: 't', partition: 0, offset: 7n }]);
  await scheduler.advance(1_000);
  await sync;
  assert.equal(calls, 3);
  assert.equal(committedOf(consumer, 't', 0), 7n);
  // ILLEGAL_GENERATION is not retried: CommitFailedError.
  fake.on('OffsetCommit', () => ({ topics: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.ILLEGAL_GENERATION }] }] }));
  await assert.rejects(consumer.commitSync([{ topic: 't', partition: 0, offset: 8n }]), { code: 'ERR_COMMIT_FAILED' });
  await consumer.close();
});
