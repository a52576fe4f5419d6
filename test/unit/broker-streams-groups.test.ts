/**
 * Streams groups (KIP-1071) through the broker: ApiVersions advertises StreamsGroupHeartbeat
 * and StreamsGroupDescribe at Kafka 4.4's versions; the handler's checks are Kafka 4.4's
 * KafkaApis.handleStreamsGroupHeartbeat (messages from its bytecode: "Use of Kafka internal
 * topics %s in a Kafka Streams topology is prohibited.", "Topic names %s are not valid topic
 * names.", UNSUPPORTED_VERSION without `streams` in group.coordinator.rebalance.protocols);
 * missing internal topics reach the connected creator once the coordinator answered.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { RawConnection, type RequestBody } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { Broker } from '../../src/broker/broker.js';
import { wordCountTopology } from '../support/coordinator/streams.js';

function join(memberId: string, topology = wordCountTopology()): RequestBody<'StreamsGroupHeartbeat'> {
  return {
    groupId: 'app', memberId, memberEpoch: 0, endpointInformationEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
    topology, activeTasks: [], standbyTasks: [], warmupTasks: [], processId: `process-${memberId}`, userEndpoint: null, clientTags: [],
    taskOffsets: null, taskEndOffsets: null, shutdownApplication: false,
  };
}

async function withBroker(options: Parameters<typeof startBrook>[0], body: (broker: Broker, conn: RawConnection) => Promise<void>): Promise<void> {
  const broker = await startBrook({ groupStreamsInitialRebalanceDelayMs: 0, groupStreamsAssignmentIntervalMs: 0, ...options });
  const conn = await RawConnection.connect(broker.host, broker.port, { clientId: 'kip1071-unit' });
  try {
    await body(broker, conn);
  } finally {
    conn.close();
    await broker.stop();
  }
}

describe('broker: KIP-1071 streams groups', { timeout: 30_000 }, () => {
  it('advertises StreamsGroupHeartbeat v0-1 and StreamsGroupDescribe v0-1', async () => {
    await withBroker({}, async (_broker, conn) => {
      const versions = await conn.request('ApiVersions', 3, { clientSoftwareName: 'unit', clientSoftwareVersion: '1' });
      const keys = new Map(versions.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
      assert.deepEqual([keys.get(88), keys.get(89)], [[0, 1], [0, 1]]);
    });
  });

  it('creates the missing internal topics, then assigns the tasks', async () => {
    await withBroker({}, async (broker, conn) => {
      broker.createTopic('input', 2);
      const first = await conn.request('StreamsGroupHeartbeat', 1, join('m1'));
      assert.equal(first.errorCode, ErrorCode.NONE);
      assert.deepEqual(first.status?.map((s) => s.statusCode), [3]);
      const md = await conn.request('Metadata', 12, { topics: [{ name: 'app-repartition' }, { name: 'app-store-changelog' }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assert.deepEqual(md.topics.map((t) => [t.name, t.errorCode, t.partitions.length]).sort(), [['app-repartition', 0, 2], ['app-store-changelog', 0, 2]]);
      const second = await conn.request('StreamsGroupHeartbeat', 1, { ...join('m1'), memberEpoch: first.memberEpoch, topology: null, processId: null, clientTags: null });
      assert.deepEqual([second.errorCode, second.status], [ErrorCode.NONE, []]);
      assert.equal(second.activeTasks?.reduce((n, t) => n + t.partitions.length, 0), 4);
      const described = await conn.request('StreamsGroupDescribe', 1, { groupIds: ['app'], includeAuthorizedOperations: false });
      assert.deepEqual([described.groups[0]!.groupState, described.groups[0]!.members.length], ['Stable', 1]);
    });
  });

  it('refuses topologies naming Kafka\'s internal topics or invalid names, and serves nothing without the streams protocol', async () => {
    await withBroker({}, async (_broker, conn) => {
      const internal = wordCountTopology();
      internal.subtopologies[0]!.sourceTopics = ['__consumer_offsets'];
      const r1 = await conn.request('StreamsGroupHeartbeat', 1, join('m1', internal));
      assert.deepEqual([r1.errorCode, r1.errorMessage], [ErrorCode.STREAMS_INVALID_TOPOLOGY, 'Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is prohibited.']);
      const invalid = wordCountTopology();
      invalid.subtopologies[0]!.sourceTopics = ['bad name'];
      const r2 = await conn.request('StreamsGroupHeartbeat', 1, join('m1', invalid));
      assert.deepEqual([r2.errorCode, r2.errorMessage], [ErrorCode.STREAMS_INVALID_TOPOLOGY, 'Topic names bad name are not valid topic names.']);
    });
    await withBroker({ groupCoordinatorRebalanceProtocols: ['classic', 'consumer'] }, async (_broker, conn) => {
      assert.equal((await conn.request('StreamsGroupHeartbeat', 1, join('m1'))).errorCode, ErrorCode.UNSUPPORTED_VERSION);
      const d = await conn.request('StreamsGroupDescribe', 1, { groupIds: ['app'], includeAuthorizedOperations: false });
      assert.equal(d.groups[0]!.errorCode, ErrorCode.UNSUPPORTED_VERSION);
    });
  });
});
