/**
 * The versions Kafka 4.4 added to the APIs Brook serves, checked in process against one
 * broker (memory storage, raw requests): what each new version means, and the versions Kafka
 * 4 removed, refused. test/interop/*-differential.test.ts compares the same with Kafka 4.4.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { requestFrame } from '../support/differential/records.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { ZERO_UUID } from '../../src/protocol/messages/runtime.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';

const UNKNOWN_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
const errorName = (code: number): string => errorInfo(code).name;

describe('broker: the versions Kafka 4.4 added, and those it removed', { timeout: 30_000 }, () => {
  let broker: Awaited<ReturnType<typeof startBrook>>;
  let conn: RawConnection;
  let topicId: string;

  before(async () => {
    broker = await startBrook();
    conn = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
    broker.createTopic('k44', 2);
    topicId = broker.storage.topic('k44')!.topicId;
  });

  after(async () => {
    conn.close();
    await broker.stop();
  });

  /** A raw request on a connection of its own: 'closed' when the broker closes it. */
  async function outcome(frame: Buffer): Promise<string> {
    const c = await RawConnection.connect('127.0.0.1', broker.port, { timeoutMs: 5000 });
    try {
      const ex = await c.sendRaw(frame);
      return `answered ${ex!.body.toString('hex')}`;
    } catch (err) {
      return /closed/.test((err as Error).message) ? 'closed' : (err as Error).message;
    } finally {
      c.close();
    }
  }

  it('ApiVersions v5 (KIP-1242): both the cluster and the node or neither; a mismatch is REBOOTSTRAP_REQUIRED with no APIs', async () => {
    const own = { clusterId: broker.storage.clusterId, nodeId: broker.config.nodeId };
    const cases: [string, { clusterId: string | null; nodeId: number }, number][] = [
      ['neither', { clusterId: null, nodeId: -1 }, ErrorCode.NONE],
      ['its own', own, ErrorCode.NONE],
      ['a node, no cluster', { clusterId: null, nodeId: own.nodeId }, ErrorCode.INVALID_REQUEST],
      ['a cluster, no node', { clusterId: own.clusterId, nodeId: -1 }, ErrorCode.INVALID_REQUEST],
      ['another cluster', { clusterId: UNKNOWN_ID, nodeId: own.nodeId }, ErrorCode.REBOOTSTRAP_REQUIRED],
      ['another node', { clusterId: own.clusterId, nodeId: own.nodeId + 1 }, ErrorCode.REBOOTSTRAP_REQUIRED],
    ];
    for (const [what, ids, expected] of cases) {
      const r = await conn.request('ApiVersions', 5, { clientSoftwareName: 'unit', clientSoftwareVersion: '1', ...ids });
      assert.equal(errorName(r.errorCode), errorName(expected), what);
      if (expected !== ErrorCode.NONE) assert.deepEqual(r.apiKeys, [], `${what}: no APIs`);
    }
  });

  it('Produce v13 by topic id: appends by the id; an unknown or zero id is UNKNOWN_TOPIC_ID and creates nothing', async () => {
    const records = encodeRecordBatch({ records: [{ value: Buffer.from('x'), timestamp: Date.now() }] });
    const r = await conn.request('Produce', 13, {
      transactionalId: null, acks: -1, timeoutMs: 5000,
      topicData: [topicId, UNKNOWN_ID, ZERO_UUID].map((id) => ({ topicId: id, partitionData: [{ index: 0, records }] })),
    });
    assert.deepEqual(r!.responses.map((t) => [t.topicId, errorName(t.partitionResponses[0]!.errorCode)]), [
      [topicId, 'NONE'], [UNKNOWN_ID, 'UNKNOWN_TOPIC_ID'], [ZERO_UUID, 'UNKNOWN_TOPIC_ID'],
    ]);
    assert.equal(broker.storage.partition('k44', 0)!.highWatermark, 1n);
    assert.equal(broker.storage.topics().length, 1, 'no topic created');
  });

  it('OffsetCommit and OffsetFetch v10 by topic id; an offset committed by name is found by id, and every topic of a group comes with its id', async () => {
    const partition = (partitionIndex: number, committedOffset: bigint) => ({ partitionIndex, committedOffset, committedLeaderEpoch: -1, committedMetadata: '' });
    const commit = await conn.request('OffsetCommit', 10, {
      groupId: 'k44-g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ topicId, partitions: [partition(0, 5n), partition(7, 1n)] }, { topicId: UNKNOWN_ID, partitions: [partition(0, 1n)] }],
    });
    const codes = Object.fromEntries(commit.topics.map((t) => [t.topicId, Object.fromEntries(t.partitions.map((p) => [p.partitionIndex, errorName(p.errorCode)]))]));
    assert.deepEqual(codes, { [topicId]: { 0: 'NONE', 7: 'UNKNOWN_TOPIC_OR_PARTITION' }, [UNKNOWN_ID]: { 0: 'UNKNOWN_TOPIC_ID' } });
    await conn.request('OffsetCommit', 9, {
      groupId: 'k44-g', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'k44', partitions: [partition(1, 6n)] }],
    });
    const byId = await conn.request('OffsetFetch', 10, {
      groups: [{ groupId: 'k44-g', memberId: null, memberEpoch: -1, topics: [{ topicId, partitionIndexes: [0, 1] }, { topicId: UNKNOWN_ID, partitionIndexes: [0] }] }], requireStable: false,
    });
    const topics = byId.groups![0]!.topics;
    assert.deepEqual(topics[0]!.partitions.map((p) => p.committedOffset), [5n, 6n]);
    assert.equal(errorName(topics[1]!.partitions[0]!.errorCode), 'UNKNOWN_TOPIC_ID');
    const all = await conn.request('OffsetFetch', 10, { groups: [{ groupId: 'k44-g', memberId: null, memberEpoch: -1, topics: null }], requireStable: false });
    assert.deepEqual(all.groups![0]!.topics.map((t) => t.topicId), [topicId]);
  });

  it('DescribeGroups v6 (KIP-1043): an unknown group is GROUP_ID_NOT_FOUND with Kafka\'s message; v5 describes it Dead without an error', async () => {
    const v6 = await conn.request('DescribeGroups', 6, { groups: ['k44-nobody'], includeAuthorizedOperations: false });
    assert.deepEqual([v6.groups[0]!.groupState, errorName(v6.groups[0]!.errorCode), v6.groups[0]!.errorMessage], ['Dead', 'GROUP_ID_NOT_FOUND', 'Group k44-nobody not found.']);
    const v5 = await conn.request('DescribeGroups', 5, { groups: ['k44-nobody'], includeAuthorizedOperations: false });
    assert.deepEqual([v5.groups[0]!.groupState, errorName(v5.groups[0]!.errorCode)], ['Dead', 'NONE']);
  });

  it('ListOffsets v11 (KIP-1023): the earliest pending upload is none, nothing being tiered', async () => {
    const r = await conn.request('ListOffsets', 11, {
      replicaId: -1, isolationLevel: 0, timeoutMs: 5000,
      topics: [{ name: 'k44', partitions: [{ partitionIndex: 0, currentLeaderEpoch: -1, timestamp: -6n }] }],
    });
    const p = r.topics[0]!.partitions[0]!;
    assert.deepEqual([errorName(p.errorCode), p.offset, p.timestamp, p.leaderEpoch], ['NONE', -1n, -1n, -1]);
  });

  it('ListTransactions v2 (KIP-1152): an invalid pattern is INVALID_REGULAR_EXPRESSION', async () => {
    const r = await conn.request('ListTransactions', 2, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: '(a' });
    assert.equal(errorName(r.errorCode), 'INVALID_REGULAR_EXPRESSION');
    const ok = await conn.request('ListTransactions', 2, { stateFilters: [], producerIdFilters: [], durationFilter: -1n, transactionalIdPattern: 'k44-.*' });
    assert.equal(errorName(ok.errorCode), 'NONE');
  });

  it('the versions Kafka 4 removed (KIP-896) and InitProducerId v6 (unstable in Kafka 4.4) close the connection; Produce v0-2 stay advertised', async () => {
    const cases: [string, Buffer][] = [
      ['CreateTopics v1', requestFrame(19, 1, 7, Buffer.from([0, 0, 0, 0, 0, 0, 0x27, 0x10, 0]), false)],
      ['DeleteTopics v0', requestFrame(20, 0, 7, Buffer.from([0, 0, 0, 0, 0, 0, 0x27, 0x10]), false)],
      ['DescribeConfigs v0', requestFrame(32, 0, 7, Buffer.from([0, 0, 0, 0]), false)],
      ['Produce v2', requestFrame(0, 2, 7, Buffer.from([0, 1, 0, 0, 0x27, 0x10, 0, 0, 0, 0]), false)],
      ['InitProducerId v6', requestFrame(22, 6, 7, Buffer.from([0, 0, 0, 0xea, 0x60, ...Array<number>(10).fill(0xff), 0, 0, 0]), true)],
    ];
    for (const [what, frame] of cases) assert.equal(await outcome(frame), 'closed', what);
    const versions = await conn.request('ApiVersions', 3, { clientSoftwareName: 'unit', clientSoftwareVersion: '1' });
    const range = (key: number): string => {
      const k = versions.apiKeys.find((x) => x.apiKey === key)!;
      return `${k.minVersion}-${k.maxVersion}`;
    };
    assert.deepEqual([0, 19, 20, 22, 32].map(range), ['0-13', '2-7', '1-6', '0-5', '1-4']);
  });
});
