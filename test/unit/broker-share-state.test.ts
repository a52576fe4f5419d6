/**
 * The share coordinator on a broker: the five share-state APIs on the listener, the
 * persister API, `__share_group_state` as Kafka creates it, and a restart on the same data
 * directory reading the state back (snapshots and the updates after them).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '../../src/broker/share-coordinator-service.js';
import { startBrook, tempDir } from '../support/brook.js';
import { FaultyFileSystem } from '../support/storage/faulty-fs.js';

/** Polls `ready` every 5 ms until it holds (the test's timeout bounds it). */
async function waitFor(ready: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ready())) await new Promise((resolve) => setTimeout(resolve, 5));
}

async function createTopic(conn: KafkaConnection, name: string, numPartitions: number): Promise<string> {
  const created = await conn.request(Api.CreateTopics, { topics: [{ name, numPartitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false }, { version: 7 });
  return created.topics[0]!.topicId!;
}

test('the share-state APIs on the listener: initialize, write, read, summary, delete', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook({ shareCoordinatorSnapshotUpdateRecordsPerSnapshot: 2 });
  t.after(() => broker.stop());
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  t.after(() => conn.close());
  const topicId = await createTopic(conn, 'shared', 2);

  const init = await conn.request(Api.InitializeShareGroupState, {
    groupId: 'sg', topics: [{ topicId, partitions: [{ partition: 1, stateEpoch: 0, startOffset: 0n }, { partition: 0, stateEpoch: 0, startOffset: -1n }] }],
  });
  assert.deepEqual(init, { results: [{ topicId, partitions: [
    { partition: 1, errorCode: 0, errorMessage: null }, { partition: 0, errorCode: 0, errorMessage: null },
  ] }] });
  const storage = broker.context.storage;
  assert.equal(storage.topic(SHARE_GROUP_STATE_TOPIC)?.partitions, 50, "Kafka's share.coordinator.state.topic.num.partitions");
  assert.equal(storage.topic(SHARE_GROUP_STATE_TOPIC)?.configs['cleanup.policy'], 'delete');

  for (let i = 0; i < 5; i++) {
    const written = await conn.request(Api.WriteShareGroupState, {
      groupId: 'sg',
      topics: [{ topicId, partitions: [{
        partition: 1, stateEpoch: 0, leaderEpoch: 0, startOffset: BigInt(i), deliveryCompleteCount: i,
        stateBatches: [{ firstOffset: BigInt(i * 10), lastOffset: BigInt(i * 10 + 4), deliveryState: 2, deliveryCount: 1 }],
      }] }],
    }, { version: 1 });
    assert.equal(written.results[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
  }
  const read = await conn.request(Api.ReadShareGroupState, { groupId: 'sg', topics: [{ topicId, partitions: [{ partition: 1, leaderEpoch: 2 }] }] });
  assert.deepEqual(read.results[0]!.partitions[0], {
    partition: 1, errorCode: 0, errorMessage: null, stateEpoch: 0, startOffset: 4n,
    // The first write's batch, 0-4, cut at the start offset 4 the last write moved to.
    stateBatches: [[4, 4], [10, 14], [20, 24], [30, 34], [40, 44]].map(([f, l]) => ({ firstOffset: BigInt(f!), lastOffset: BigInt(l!), deliveryState: 2, deliveryCount: 1 })),
  });
  const summary = await conn.request(Api.ReadShareGroupStateSummary, { groupId: 'sg', topics: [{ topicId, partitions: [{ partition: 1, leaderEpoch: 0 }, { partition: 0, leaderEpoch: 0 }] }] }, { version: 1 });
  assert.deepEqual(summary.results[0]!.partitions, [
    { partition: 1, errorCode: 0, errorMessage: null, stateEpoch: 0, leaderEpoch: 2, startOffset: 4n, deliveryCompleteCount: 4 },
    { partition: 0, errorCode: 0, errorMessage: null, stateEpoch: 0, leaderEpoch: 0, startOffset: -1n, deliveryCompleteCount: -1 },
  ]);
  const fenced = await conn.request(Api.WriteShareGroupState, {
    groupId: 'sg', topics: [{ topicId, partitions: [{ partition: 1, stateEpoch: 0, leaderEpoch: 1, startOffset: -1n, deliveryCompleteCount: -1, stateBatches: [] }] }],
  }, { version: 1 });
  assert.equal(fenced.results[0]!.partitions[0]!.errorCode, ErrorCode.FENCED_LEADER_EPOCH);

  const deleted = await conn.request(Api.DeleteShareGroupState, { groupId: 'sg', topics: [{ topicId, partitions: [{ partition: 1 }] }] });
  assert.deepEqual(deleted.results[0]!.partitions, [{ partition: 1, errorCode: 0, errorMessage: null }]);
  const after = await broker.context.shareState.readSummary({ groupId: 'sg', topics: [{ topicId, partitions: [{ partition: 1, leaderEpoch: 0 }] }] });
  assert.equal(after.results[0]!.partitions[0]!.startOffset, -1n, 'deleted state reads as uninitialized');
  const empty = await broker.context.shareState.writeState({ groupId: '', topics: [{ topicId, partitions: [] }] });
  assert.deepEqual(empty, { results: [] }, 'Kafka answers a request without group or partitions empty');
});

test('a restarted broker reads the state it wrote: snapshots and the updates after them', { timeout: 60_000 }, async () => {
  const dir = tempDir('brook-share-state-');
  const options = { dataDir: dir.path, shareCoordinatorSnapshotUpdateRecordsPerSnapshot: 3, shareCoordinatorStateTopicNumPartitions: 3 };
  let broker = await startBrook(options);
  const conn = await KafkaConnection.connect({ host: '127.0.0.1', port: broker.port });
  const topicId = await createTopic(conn, 'durable', 4);
  conn.close();
  const persister = broker.context.shareState;
  for (let p = 0; p < 4; p++) {
    await persister.initializeState({ groupId: `g${p % 2}`, topics: [{ topicId, partitions: [{ partition: p, stateEpoch: 1, startOffset: 0n }] }] });
    for (let i = 0; i < 2 + p * 2; i++) {
      const w = await persister.writeState({
        groupId: `g${p % 2}`,
        topics: [{ topicId, partitions: [{
          partition: p, stateEpoch: 1, leaderEpoch: i, startOffset: BigInt(i * 3), deliveryCompleteCount: i,
          stateBatches: [{ firstOffset: BigInt(i * 5), lastOffset: BigInt(i * 5 + 7), deliveryState: i % 3 === 0 ? 4 : 2, deliveryCount: 1 + (i % 2) }],
        }] }],
      });
      assert.equal(w.results[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
    }
    await persister.readState({ groupId: `g${p % 2}`, topics: [{ topicId, partitions: [{ partition: p, leaderEpoch: 7 }] }] });
  }
  await persister.deleteState({ groupId: 'g1', topics: [{ topicId, partitions: [{ partition: 3 }] }] });
  const before = persister.shard.states();
  assert.equal(before.length, 3);
  const summaryRequest = { groupId: 'g0', topics: [{ topicId, partitions: [0, 2].map((partition) => ({ partition, leaderEpoch: 0 })) }] };
  const summaryBefore = await persister.readSummary(summaryRequest);
  await broker.stop();

  broker = await startBrook(options);
  try {
    assert.deepEqual(broker.context.shareState.shard.states(), before);
    assert.deepEqual(await broker.context.shareState.readSummary(summaryRequest), summaryBefore);
    const fenced = await broker.context.shareState.readState({ groupId: 'g0', topics: [{ topicId, partitions: [{ partition: 2, leaderEpoch: 6 }] }] });
    assert.equal(fenced.results[0]!.partitions[0]!.errorCode, ErrorCode.FENCED_LEADER_EPOCH, 'the leader epoch survives the restart');
  } finally {
    await broker.stop();
    dir.remove();
  }
});

test('a write resolves once its record is durable; a failed fsync answers the mapped error and the state goes back', { timeout: 60_000 }, async () => {
  const dir = tempDir('brook-share-state-faults-');
  const faults = new FaultyFileSystem();
  const broker = await startBrook({ dataDir: dir.path, fileSystem: faults, shareCoordinatorStateTopicNumPartitions: 1 });
  try {
    const topicId = (broker.createTopic('faulty', 1), broker.context.storage.topic('faulty')!.topicId);
    const persister = broker.context.shareState;
    await persister.initializeState({ groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, startOffset: 0n }] }] });
    const write = (startOffset: bigint) => persister.writeState({
      groupId: 'g',
      topics: [{ topicId, partitions: [{ partition: 0, stateEpoch: 0, leaderEpoch: 0, startOffset, deliveryCompleteCount: -1, stateBatches: [{ firstOffset: startOffset, lastOffset: startOffset + 9n, deliveryState: 2, deliveryCount: 1 }] }] }],
    });
    const summaryOf = async () => (await persister.readSummary({ groupId: 'g', topics: [{ topicId, partitions: [{ partition: 0, leaderEpoch: 0 }] }] })).results[0]!.partitions[0]!;

    const held = faults.inject({ op: ['fdatasync', 'fsync'], path: SHARE_GROUP_STATE_TOPIC, hold: true });
    let answered = false;
    const pending = write(5n).then((r) => ((answered = true), r));
    await waitFor(() => held.hits > 0);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(answered, false, 'not answered before its record is durable');
    held.remove();
    assert.equal((await pending).results[0]!.partitions[0]!.errorCode, ErrorCode.NONE);
    assert.equal((await summaryOf()).startOffset, 5n);

    faults.inject({ op: ['fdatasync', 'fsync'], path: SHARE_GROUP_STATE_TOPIC, errno: 'EIO', times: 1 });
    const failed = await write(9n);
    const partition = failed.results[0]!.partitions[0]!;
    // Kafka's coordinator runtime maps a storage error to NOT_COORDINATOR (the leader looks again).
    assert.deepEqual([partition.errorCode, partition.errorMessage], [ErrorCode.NOT_COORDINATOR, 'This is not the correct coordinator.']);
    faults.clear();
    await waitFor(async () => (await summaryOf()).errorCode === ErrorCode.NONE);
    assert.equal((await summaryOf()).startOffset, 5n, 'the failed write is not in the state');
  } finally {
    faults.clear();
    await broker.stop();
    dir.remove();
  }
});
