/**
 * An offline partition (setPartitionOffline): described with leader -1, LEADER_NOT_AVAILABLE
 * and its replica offline (Kafka's Metadata for a partition whose only replica's broker is
 * gone); Produce, Fetch and ListOffsets answer it NOT_LEADER_OR_FOLLOWER (Kafka's answer from
 * a broker that does not lead the partition) while the topic's other partitions are served;
 * back online, it serves its records as before. Error codes are Kafka's, named by the test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../src/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';
import type { FetchRequestData, ProduceRequestData } from '../../src/protocol/messages/index.js';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';

const T = { timeout: 20_000 };

function produce(topic: string, values: [number, string][]): ProduceRequestData {
  return {
    transactionalId: null, acks: -1, timeoutMs: 5000,
    topicData: [{ name: topic, partitionData: values.map(([index, value]) => ({ index, records: encodeRecordBatch({ records: [{ value: Buffer.from(value) }] }) })) }],
  };
}

function fetch(topic: string, partitions: number[]): FetchRequestData {
  return {
    replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 1 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1, forgottenTopicsData: [], rackId: '',
    topics: [{ topic, partitions: partitions.map((partition) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 1 << 20, currentLeaderEpoch: -1, logStartOffset: -1n })) }],
  };
}

test('an offline partition has no leader in Metadata and answers NOT_LEADER_OR_FOLLOWER; its neighbours are served; online again it serves its records', T, async (t) => {
  const broker = await startBrook();
  const conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
  t.after(async () => {
    conn.close();
    await broker.stop();
  });
  const node = broker.context.config.nodeId;
  broker.createTopic('parts', 2);
  assert.deepEqual((await conn.request('Produce', 9, produce('parts', [[1, 'before']])))!.responses[0]!.partitionResponses.map((p) => p.errorCode), [ErrorCode.NONE]);

  broker.setPartitionOffline('parts', 1);
  const md = await conn.request('Metadata', 12, { topics: [{ name: 'parts', topicId: undefined as never }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  assert.equal(md.topics[0]!.errorCode, ErrorCode.NONE);
  assert.deepEqual(md.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.leaderId, p.replicaNodes, p.isrNodes, p.offlineReplicas]), [
    [0, ErrorCode.NONE, node, [node], [node], []],
    [1, ErrorCode.LEADER_NOT_AVAILABLE, -1, [node], [node], [node]],
  ]);
  const described = await conn.request('DescribeTopicPartitions', 0, { topics: [{ name: 'parts' }], responsePartitionLimit: 2000, cursor: null });
  assert.deepEqual(described.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.leaderId, p.offlineReplicas]), [
    [0, ErrorCode.NONE, node, []], [1, ErrorCode.LEADER_NOT_AVAILABLE, -1, [node]],
  ]);

  const produced = (await conn.request('Produce', 9, produce('parts', [[0, 'p0'], [1, 'p1']])))!;
  assert.deepEqual(produced.responses[0]!.partitionResponses.map((p) => [p.index, p.errorCode]), [[0, ErrorCode.NONE], [1, ErrorCode.NOT_LEADER_OR_FOLLOWER]]);
  const fetched = await conn.request('Fetch', 12, fetch('parts', [0, 1]));
  assert.deepEqual(fetched.responses[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.highWatermark]), [[0, ErrorCode.NONE, 1n], [1, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1n]]);
  const listed = await conn.request('ListOffsets', 7, { replicaId: -1, isolationLevel: 0, topics: [{ name: 'parts', partitions: [{ partitionIndex: 0, timestamp: -1n }, { partitionIndex: 1, timestamp: -1n }] }] });
  assert.deepEqual(listed.topics[0]!.partitions.map((p) => [p.partitionIndex, p.errorCode, p.offset]), [[0, ErrorCode.NONE, 1n], [1, ErrorCode.NOT_LEADER_OR_FOLLOWER, -1n]]);

  broker.setPartitionOnline('parts', 1);
  const back = await conn.request('Metadata', 12, { topics: [{ name: 'parts', topicId: undefined as never }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  assert.deepEqual(back.topics[0]!.partitions.map((p) => [p.errorCode, p.leaderId]), [[ErrorCode.NONE, node], [ErrorCode.NONE, node]]);
  assert.deepEqual((await conn.request('Produce', 9, produce('parts', [[1, 'after']])))!.responses[0]!.partitionResponses.map((p) => [p.errorCode, p.baseOffset]), [[ErrorCode.NONE, 1n]]);
  assert.deepEqual(broker.records('parts').map((r) => `${r.partition}:${r.offset}:${r.value!.toString()}`), ['0:0:p0', '1:0:before', '1:1:after']);

  assert.throws(() => broker.setPartitionOffline('parts', 2), RangeError);
  assert.throws(() => broker.setPartitionOffline('nope', 0), /no topic/);
});
