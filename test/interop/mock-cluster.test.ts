/**
 * librdkafka's mock cluster harness (test/support/mock-cluster) works: 3 mock brokers start,
 * Brook's client base (src/client/cluster.ts) reads their metadata and finds a group
 * coordinator the test chose, topic creation, leader moves, broker outages and injected
 * request errors show through the wire protocol, and kcat produces and consumes through it.
 * Also reports the API versions the mock advertises (the consumer tests run groups on it).
 * Needs: gcc, pkg-config, librdkafka-dev (.ci/run installs them), kcat.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { startMockCluster, mockClusterAvailable } from '../support/mock-cluster/index.js';
import { rawRequest } from '../support/kafka/raw-client.js';
import { kcatAvailable, kcatConsume, kcatProduce } from '../support/clients/kcat.js';
import { Cluster } from '../../src/client/cluster.js';
import { Api } from '../../src/protocol/messages/index.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const TOPIC = 'mock-topic';
const apiNames = new Map<number, string>(Object.values(Api).map((a) => [a.apiKey, a.name]));

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.setTimeout(2_000);
    // A down mock broker still accepts, then closes at once; either counts as refusal.
    socket.once('connect', () => socket.once('close', () => resolve(true)).once('timeout', () => { socket.destroy(); resolve(false); }));
    socket.once('error', () => resolve(true));
  });
}

test('librdkafka mock cluster: metadata, coordinator, leader moves, outages, errors, kcat', { timeout: 60_000 }, async (t) => {
  assert.ok(mockClusterAvailable(), 'gcc, pkg-config and librdkafka-dev are needed for the interop suite');
  assert.ok(kcatAvailable(), 'kcat is needed for the interop suite');
  const mock = await startMockCluster({ brokers: 3 });
  const cluster = new Cluster({ bootstrapServers: mock.bootstrap, clientId: 'brook-mock-test', requestTimeoutMs: 5_000 });
  try {
    t.diagnostic(`mock cluster ${mock.bootstrap} (pid ${mock.pid}) ready in ${mock.startupMs} ms`);

    // librdkafka 2.0's mock knows ApiVersions up to v2: it answers v3 with UNSUPPORTED_VERSION
    // and, unlike Kafka, without its own range, so clients fall back to v0.
    const broker1 = mock.brokers[0]!;
    const probe = await rawRequest(broker1.host, broker1.port, 'ApiVersions', 3, { clientSoftwareName: 'brook-test', clientSoftwareVersion: '0' });
    const ownRange = probe.apiKeys.find((k) => k.apiKey === Api.ApiVersions.apiKey);
    const version = probe.errorCode === ErrorCode.UNSUPPORTED_VERSION ? Math.min(ownRange?.maxVersion ?? 0, 2) : 3;
    t.diagnostic(`ApiVersions v3: error ${probe.errorCode}; using v${version}`);
    const versions = version === 3 ? probe : await rawRequest(broker1.host, broker1.port, 'ApiVersions', version, {});
    assert.equal(versions.errorCode, 0);
    t.diagnostic(`advertised APIs: ${versions.apiKeys.map((k) => `${apiNames.get(k.apiKey) ?? k.apiKey} v${k.minVersion}-${k.maxVersion}`).join(', ')}`);
    const advertised = new Set(versions.apiKeys.map((k) => k.apiKey));
    for (const api of [Api.Metadata, Api.FindCoordinator, Api.JoinGroup, Api.SyncGroup, Api.Heartbeat, Api.LeaveGroup, Api.OffsetCommit, Api.OffsetFetch]) {
      assert.ok(advertised.has(api.apiKey), `${api.name} advertised`);
    }

    // The mock knows Metadata v0-2 only, which cannot say "do not auto-create topics"
    // (AllowAutoTopicCreation is v4+): Brook's Cluster leaves the field out there, as librdkafka does.
    // Brokers: Brook's Cluster sees ids 1..3 at the addresses the bootstrap line named.
    await cluster.refreshMetadata([]);
    const seen = cluster.knownBrokers().map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port })).sort((a, b) => a.nodeId - b.nodeId);
    assert.deepEqual(seen, mock.brokers.map((b) => ({ ...b })));

    // Topic creation and leader moves.
    await mock.createTopic(TOPIC, 6, 3);
    const [created] = await cluster.refreshMetadata([TOPIC]);
    assert.equal(created?.errorCode, 0);
    assert.equal(created.partitions.length, 6);
    for (let p = 0; p < 6; p++) await mock.setPartitionLeader(TOPIC, p, (p % 3) + 1);
    await cluster.refreshMetadata([TOPIC]);
    const leaders = [];
    for (let p = 0; p < 6; p++) leaders.push(await cluster.leaderFor(TOPIC, p));
    assert.deepEqual(leaders, [1, 2, 3, 1, 2, 3]);
    await mock.setPartitionLeader(TOPIC, 0, 3);
    await cluster.refreshMetadata([TOPIC]);
    assert.equal(await cluster.leaderFor(TOPIC, 0), 3);

    // Coordinator: the one the test chose, then another one.
    await mock.setCoordinator('group', 'mock-group', 2);
    assert.equal((await cluster.findCoordinator('mock-group')).nodeId, 2);
    await mock.setCoordinator('group', 'mock-group', 3);
    const coordinator = await cluster.findCoordinator('mock-group');
    assert.deepEqual(coordinator, { ...mock.brokers[2]! });

    // Injected request errors: the next two Heartbeats fail with them, in order, the third gets
    // the mock's own answer: GROUP_ID_NOT_FOUND for a group it does not know (Kafka 4.4
    // answers UNKNOWN_MEMBER_ID). (Not FindCoordinator: the mock's error
    // response to it carries a null Host, which Brook's decoder, like Java's, rejects.)
    await mock.pushRequestErrors(Api.Heartbeat.apiKey, ['NOT_COORDINATOR', 27]);
    const heartbeat = async (): Promise<number> => {
      const connection = await cluster.connectionToNode(coordinator.nodeId);
      const response = await connection.request(Api.Heartbeat, { groupId: 'mock-group', generationId: 1, memberId: 'nobody', groupInstanceId: null });
      return response.errorCode;
    };
    assert.deepEqual([await heartbeat(), await heartbeat(), await heartbeat()], [ErrorCode.NOT_COORDINATOR, ErrorCode.REBALANCE_IN_PROGRESS, ErrorCode.GROUP_ID_NOT_FOUND]);

    // A broker down refuses clients; up again it answers.
    await mock.brokerDown(2);
    assert.equal(await refused(mock.brokers[1]!.port), true, 'broker 2 down');
    await mock.brokerUp(2);
    const up = await rawRequest(mock.brokers[1]!.host, mock.brokers[1]!.port, 'Metadata', 1, { topics: [] });
    assert.equal(up.brokers.length, 3);

    // Bad commands are answered with an error, and the harness keeps working.
    await assert.rejects(mock.command('topic only-a-name'), /usage/);
    await assert.rejects(mock.setPartitionLeader(TOPIC, 0, Number.NaN), /integer/);
    await mock.command('ping');

    // kcat (librdkafka) through the mock: every record back, partitions led by all brokers.
    const lines = Array.from({ length: 30 }, (_, i) => `k${i}:v${i}`);
    await kcatProduce(mock.bootstrap, TOPIC, lines);
    const records = await kcatConsume(mock.bootstrap, TOPIC);
    assert.deepEqual(records.map((r) => `${r.key}:${r.value}`).sort(), [...lines].sort());
    assert.ok(new Set(records.map((r) => r.partition)).size > 1, 'records spread over partitions');
  } finally {
    cluster.close();
    await mock.close();
  }
});
