/**
 * The auto-commit task of seed 002, on a ManualScheduler against a scripted broker:
 * interval 5 s, poll every 1 s, first commit due at 5 s, its response released at 8 s,
 * the next due at 8 + 5 = 13 s; one task queued at a time; the committed offset updated
 * from the response; positions (allConsumed) committed, not the old committed offsets.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer } from '../../src/index.js';
import type { OffsetToCommit } from '../../src/client/consumer/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { FakeKafka, soloGroup } from '../support/fake-kafka.js';
import { testRangeAssignor } from '../support/range-assignor.js';

function committedOf(consumer: Consumer, topic: string, partition: number): bigint | null {
  // The partition's local "committed" state (TopicPartitionState), which only commit responses update.
  const subs = (consumer as unknown as { subscriptions: { stateOf(t: string, p: number): { committed: bigint | null } | undefined } }).subscriptions;
  return subs.stateOf(topic, partition)?.committed ?? null;
}

test('seed 002: first auto-commit at 5 s, its response at 8 s, the next at 13 s; positions committed; one task queued', async () => {
  const scheduler = new ManualScheduler(0);
  const fake = new FakeKafka(scheduler);
  fake.topics.set('t', 1);
  fake.logEnd.set('t:0', 3);
  soloGroup(fake);
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', groupId: 'g', assignors: [testRangeAssignor()], autoOffsetReset: 'earliest',
    autoCommitIntervalMs: 5_000, scheduler, connectionFactory: fake.connectionFactory, fetchMaxWaitMs: 500,
  });
  consumer.subscribe(['t']);
  const polled: string[] = [];
  let release: (() => void) | null = null;
  // t = 0: join, fetch; then a poll every second.
  for (let second = 0; second <= 14; second++) {
    if (second === 4) release = fake.hold('OffsetCommit'); // the first commit's response will wait
    if (second === 8) release!();
    if (second === 2) fake.logEnd.set('t:0', 5);
    const records = await consumer.poll({ timeoutMs: 0 });
    polled.push(...records.map((r) => r.value!.toString()));
    if (second === 7) assert.equal(committedOf(consumer, 't', 0), null, 'not committed before the response arrives');
    await scheduler.advance(1_000);
  }
  const commits = fake.requests('OffsetCommit');
  assert.deepEqual(commits.map((c) => c.atMs).slice(0, 2), [5_000, 13_000], 'due at 5 s; then completion (8 s) + 5 s');
  const offsets = commits.map((c) => (c.body['topics'] as { partitions: { committedOffset: bigint }[] }[])[0]!.partitions[0]!.committedOffset);
  assert.deepEqual(polled, ['v0', 'v1', 'v2', 'v3', 'v4']);
  assert.equal(offsets[0], 5n, 'the position (next offset) after the records polled so far');
  assert.equal(committedOf(consumer, 't', 0), 5n, 'committed updated from the second response');
  // Exactly one auto-commit task queued at a time: none sent between 5 s and 13 s although polls went on.
  assert.equal(commits.filter((c) => c.atMs > 5_000 && c.atMs < 13_000).length, 0);
  await scheduler.advance(20_000);
  const later = fake.requests('OffsetCommit').map((c) => c.atMs);
  assert.deepEqual(later.slice(0, 6), [5_000, 13_000, 18_000, 23_000, 28_000, 33_000], 'instant responses: every interval from completion');
  const closing = consumer.close();
  await scheduler.advance(0);
  await closing;
  const last = fake.requests('OffsetCommit').at(-1)!;
  assert.ok(last.atMs === scheduler.nowMs(), 'close commits synchronously');
  assert.equal(fake.requests('LeaveGroup').length, 1, 'close leaves the group');
});

test('commitAsync callbacks run in commit order with their own offsets, even when the second response arrives first; commitSync retries retriable errors', { timeout: 10_000 }, async (t) => {
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
  await t.test("the committed offset ends at the second commit's, although its response came first", {
    todo: "each response sets committed when it arrives: the first commit's late response sets it back to 1",
  }, () => {
    assert.equal(committedOf(consumer, 't', 0), 2n);
  });
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
