/**
 * `__consumer_offsets` cannot be deleted: DeleteTopics answers INVALID_TOPIC_EXCEPTION, by
 * name and by topic id, and the groups' committed offsets survive a restart. (Kafka 4.1
 * deletes it and drops every group: a deliberate difference, D10 of
 * test/interop/broker-differential.test.ts, which pins Kafka's answer.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook, tempDir } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';

const OFFSETS = '__consumer_offsets';

test('DeleteTopics of __consumer_offsets is refused with INVALID_TOPIC_EXCEPTION, by name and by id; committed offsets survive a restart', { timeout: 60_000 }, async (t) => {
  const dir = tempDir();
  let broker = await startBrook({ dataDir: dir.path });
  let conn = await RawConnection.connect(broker.host, broker.port);
  t.after(async () => {
    conn.close();
    await broker.stop();
    dir.remove();
  });
  await conn.request('Metadata', 12, { topics: [{ topicId: ZERO_UUID, name: 't1' }], allowAutoTopicCreation: true, includeTopicAuthorizedOperations: false });
  const commit = await conn.request('OffsetCommit', 8, {
    groupId: 'g1', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
    topics: [{ name: 't1', partitions: [{ partitionIndex: 0, committedOffset: 42n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
  });
  assert.equal(commit.topics[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  const topicId = broker.storage.topic(OFFSETS)!.topicId;

  const byName = await conn.request('DeleteTopics', 5, { topicNames: [OFFSETS], timeoutMs: 10_000 });
  assert.deepEqual(byName.responses.map((r) => [r.name, r.errorCode, r.errorMessage]), [
    [OFFSETS, ErrorCode.INVALID_TOPIC_EXCEPTION, `Cannot delete internal topic ${OFFSETS}`],
  ]);
  const byId = await conn.request('DeleteTopics', 6, { topics: [{ name: null, topicId }], timeoutMs: 10_000 });
  assert.deepEqual(byId.responses.map((r) => [r.topicId, r.errorCode]), [[topicId, ErrorCode.INVALID_TOPIC_EXCEPTION]]);
  // The same name given with the zero id (v6) is refused the same way.
  const byNameV6 = await conn.request('DeleteTopics', 6, { topics: [{ name: OFFSETS, topicId: ZERO_UUID }], timeoutMs: 10_000 });
  assert.equal(byNameV6.responses[0]!.errorCode, ErrorCode.INVALID_TOPIC_EXCEPTION);
  assert.ok(broker.storage.topic(OFFSETS), 'the topic is still there');

  conn.close();
  await broker.stop();
  broker = await startBrook({ dataDir: dir.path });
  conn = await RawConnection.connect(broker.host, broker.port);
  const fetched = await conn.request('OffsetFetch', 8, { groupId: '', topics: [], groups: [{ groupId: 'g1', memberId: null, memberEpoch: -1, topics: null }], requireStable: false });
  assert.equal(fetched.groups![0]!.topics[0]!.partitions[0]!.committedOffset, 42n, 'the committed offset survived the restart');
});
