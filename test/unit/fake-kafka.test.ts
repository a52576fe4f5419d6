/**
 * The scripted broker of the consumer unit tests (test/support/fake-kafka.ts) at versions a
 * test chooses: its default answers must be ones each version can carry, or every test that
 * lowers a version would fail inside the fake rather than in the client.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualScheduler } from '../../src/util/clock.js';
import { Consumer } from '../../src/index.js';
import { FakeKafka, soloGroup } from '../support/fake-kafka.js';
import { testRangeAssignor } from '../support/range-assignor.js';

test('a consumer joins, fetches, heartbeats, commits and leaves with the fake advertising older versions', { timeout: 10_000 }, async () => {
  const scheduler = new ManualScheduler(0);
  // Before: topic ids in Fetch (v13), the coordinators array (FindCoordinator v4),
  // MEMBER_ID_REQUIRED (JoinGroup v4), batched LeaveGroup (v3), grouped OffsetFetch (v8).
  const versions = { Metadata: 1, FindCoordinator: 2, JoinGroup: 3, SyncGroup: 2, Heartbeat: 2, OffsetFetch: 3, ListOffsets: 1, Fetch: 4, OffsetCommit: 2, LeaveGroup: 1 };
  const fake = new FakeKafka(scheduler, { versions });
  fake.topics.set('t', 2);
  fake.logEnd.set('t:0', 2);
  soloGroup(fake);
  const consumer = new Consumer({
    bootstrapServers: 'fake:9092', groupId: 'g', assignors: [testRangeAssignor()], autoOffsetReset: 'earliest', enableAutoCommit: false,
    heartbeatIntervalMs: 1_000, scheduler, connectionFactory: fake.connectionFactory,
  });
  consumer.subscribe(['t']);
  const polled = consumer.poll({ timeoutMs: 100 });
  await scheduler.advance(100);
  assert.deepEqual((await polled).map((r) => r.value?.toString()), ['v0', 'v1']);
  assert.equal(consumer.groupMetadata().memberId, 'm-1', 'joined in one round before v4');
  await scheduler.advance(1_000);
  await consumer.commitSync();
  const closing = consumer.close();
  await scheduler.advance(0);
  await closing;
  const used = new Map(fake.sent.map((r) => [r.api, r.version]));
  assert.deepEqual(Object.fromEntries(used), versions, 'every API at the version advertised');
  assert.deepEqual(fake.failures, []);
});
