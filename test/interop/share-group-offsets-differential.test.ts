/**
 * Differential conformance of the share-group offset APIs (KIP-932): DescribeShareGroupOffsets
 * (v0, v1), AlterShareGroupOffsets and DeleteShareGroupOffsets, and DeleteGroups of a share
 * group with share state, go as raw requests to a real Apache Kafka 4.4 broker and to Brook;
 * the answers are compared field by field (topic ids are made equal: each topic is created on
 * Kafka, then on Brook with Kafka's id), error messages included. Share groups are driven by
 * raw ShareGroupHeartbeat (member ids of the script's own) and ShareFetch, as in
 * share-groups-differential.test.ts, whose settings this suite takes.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Side } from '../support/differential/pair.js';
import { testBatch } from '../support/differential/records.js';
import type { ApiName, RequestBody, ResponseBody } from '../support/kafka/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const SIDES: readonly Side[] = ['kafka', 'brook'];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const json = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? String(x) : x));

describe('share-group offsets (KIP-932): Brook answers as Apache Kafka', { timeout: 180_000 }, () => {
  let pair: DiffPair;
  const topicIds = new Map<string, string>();

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    pair = await DiffPair.start(
      {
        'group.share.heartbeat.interval.ms': '1000',
        'group.share.min.heartbeat.interval.ms': '1000',
        'group.share.session.timeout.ms': '6000',
        'group.share.min.session.timeout.ms': '6000',
        'group.share.assignment.interval.ms': '0',
        'group.share.assignor.offload.enable': 'false',
        'auto.create.topics.enable': 'false',
        'group.initial.rebalance.delay.ms': '0',
      },
      {
        groupShareHeartbeatIntervalMs: 1000,
        groupShareMinHeartbeatIntervalMs: 1000,
        groupShareSessionTimeoutMs: 6000,
        groupShareMinSessionTimeoutMs: 6000,
        groupShareAssignmentIntervalMs: 0,
        autoCreateTopics: false,
        groupInitialRebalanceDelayMs: 0,
      },
    );
    for (let i = 0; ; i++) {
      const fc = await pair.conn.kafka.request('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: ['warm-up'] });
      const d = await pair.conn.kafka.request('ShareGroupDescribe', 1, { groupIds: ['warm-up'], includeAuthorizedOperations: false });
      if ((fc.coordinators ?? []).every((c) => c.errorCode === 0) && d.groups[0]?.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) break;
      if (i > 300) throw new Error(`Kafka's group coordinator did not load\n${pair.kafkaBroker.logTail(30)}`);
      await sleep(50);
    }
  });

  after(async () => {
    await pair?.stop();
  });

  async function createTopic(name: string, partitions: number): Promise<void> {
    const res = await pair.conn.kafka.request('CreateTopics', 7, {
      topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false,
    });
    const t = res.topics[0]!;
    assert.equal(t.errorCode, 0, `kafka: creating ${name}: ${t.errorMessage}`);
    topicIds.set(name, t.topicId!);
    await pair.waitForKafkaTopic(name, partitions);
    pair.brookBroker.createTopic(name, partitions, { topicId: t.topicId! });
    for (const side of SIDES) pair.normaliser[side].registerTopic(name, t.topicId!);
  }

  async function produce(topic: string, partition: number, count: number): Promise<void> {
    const res = await pair.both('Produce', 9, { transactionalId: null, acks: 1, timeoutMs: 10_000, topicData: [{ name: topic, partitionData: [{ index: partition, records: testBatch(count) }] }] });
    for (const side of SIDES) assert.equal(res[side]!.responses[0]!.partitionResponses[0]!.errorCode, 0, side);
  }

  /** Sends the same request to both and asserts the answers agree, error messages included; returns Kafka's. */
  async function same<N extends ApiName>(what: string, api: N, version: number, body: RequestBody<N>): Promise<ResponseBody<N>> {
    const c = await pair.compare(api, version, body);
    if (process.env.BROOK_TEST_VERBOSE) console.log(`${what}\n  kafka: ${json(c.raw.kafka)}\n  brook: ${json(c.raw.brook)}`);
    assert.deepEqual(c.diffs, [], `${what}\nkafka: ${json(c.raw.kafka)}\nbrook: ${json(c.raw.brook)}`);
    // The normaliser leaves messages alone unless told; check them as they are.
    assert.equal(json(c.raw.brook), json(c.raw.kafka), `${what}: byte-for-byte the same fields`);
    return c.raw.kafka;
  }

  const describeOffsets = (what: string, groupId: string, topics: { topicName: string; partitions: number[] }[] | null, version = 1) =>
    same(what, 'DescribeShareGroupOffsets', version, { groups: [{ groupId, topics }] });

  /** A member joins (or heartbeats) on each side until it holds `partitions` partitions; returns its epochs. */
  async function joinUntilAssigned(group: string, memberId: string, topics: string[], partitions: number): Promise<Record<Side, number>> {
    const epochs = { kafka: 0, brook: 0 };
    for (const side of SIDES) {
      let epoch = 0;
      for (let i = 0; ; i++) {
        const r = await pair.conn[side].request('ShareGroupHeartbeat', 1, { groupId: group, memberId, memberEpoch: epoch, rackId: null, subscribedTopicNames: epoch === 0 ? topics : null });
        assert.equal(r.errorCode, 0, `${side}: ${r.errorMessage}`);
        epoch = r.memberEpoch;
        const held = await pair.conn[side].request('ShareGroupDescribe', 1, { groupIds: [group], includeAuthorizedOperations: false });
        const m = held.groups[0]!.members.find((x) => x.memberId === memberId);
        if (m !== undefined && m.assignment.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) === partitions) break;
        if (i > 100) throw new Error(`${side}: never got ${partitions} partitions: ${json(held)}`);
        await sleep(100);
      }
      epochs[side] = epoch;
    }
    return epochs;
  }

  async function leave(group: string, memberId: string): Promise<void> {
    for (const side of SIDES) {
      const r = await pair.conn[side].request('ShareGroupHeartbeat', 1, { groupId: group, memberId, memberEpoch: -1, rackId: null, subscribedTopicNames: null });
      assert.equal(r.errorCode, 0, `${side} leaving: ${r.errorMessage}`);
    }
  }

  /** ShareFetch on each side until records are acquired from the partition; the first acquired offset, per side. */
  async function firstAcquired(group: string, memberId: string, topic: string, partition: number): Promise<Record<Side, bigint>> {
    const out = { kafka: -1n, brook: -1n };
    for (const side of SIDES) {
      for (let epoch = 0; ; epoch++) {
        const r = await pair.conn[side].request('ShareFetch', 1, {
          groupId: group, memberId, shareSessionEpoch: epoch, maxWaitMs: 500, minBytes: 1, maxBytes: 1 << 20, maxRecords: 500, batchSize: 500,
          topics: epoch === 0 ? [{ topicId: topicIds.get(topic)!, partitions: [{ partitionIndex: partition, acknowledgementBatches: [] }] }] : [],
          forgottenTopicsData: [],
        });
        assert.equal(r.errorCode, 0, `${side} ShareFetch: ${r.errorMessage}`);
        const p = r.responses.flatMap((t) => t.partitions).find((x) => x.partitionIndex === partition);
        if (p !== undefined && p.acquiredRecords.length > 0) {
          out[side] = p.acquiredRecords[0]!.firstOffset;
          break;
        }
        if (epoch > 40) throw new Error(`${side}: nothing acquired: ${json(r)}`);
      }
    }
    return out;
  }

  it('unknown groups and topics, a non-empty group, alter then fetch from the new start, delete, DeleteGroups', async () => {
    await createTopic('so-t', 2);
    await produce('so-t', 0, 10);
    const G = 'so-group';

    // Nothing known: every share-partition reads as uninitialized; v0 has no lag.
    await describeOffsets('an unknown group', 'so-none', [{ topicName: 'so-t', partitions: [0, 1] }, { topicName: 'so-missing', partitions: [0] }]);
    await describeOffsets('an unknown group, v0', 'so-none', [{ topicName: 'so-t', partitions: [0] }], 0);
    await describeOffsets('an unknown group, all topics', 'so-none', null);
    await describeOffsets('an unknown group, no topics', 'so-none', []);
    await same('DeleteShareGroupOffsets of an unknown group', 'DeleteShareGroupOffsets', 0, { groupId: 'so-none', topics: [{ topicName: 'so-t' }] });
    await same('AlterShareGroupOffsets with an empty group id', 'AlterShareGroupOffsets', 0, { groupId: '', topics: [{ topicName: 'so-t', partitions: [{ partitionIndex: 0, startOffset: 1n }] }] });

    // A member holds the group: it is not Empty.
    await joinUntilAssigned(G, 'member-a', ['so-t'], 2);
    await same('AlterShareGroupOffsets of a group with a member', 'AlterShareGroupOffsets', 0, { groupId: G, topics: [{ topicName: 'so-t', partitions: [{ partitionIndex: 0, startOffset: 1n }] }] });
    await same('DeleteShareGroupOffsets of a group with a member', 'DeleteShareGroupOffsets', 0, { groupId: G, topics: [{ topicName: 'so-t' }] });
    await describeOffsets('initialized, never fetched', G, [{ topicName: 'so-t', partitions: [0, 1] }]);
    await leave(G, 'member-a');

    // Empty: new start offsets; a partition past the topic's and an unknown topic are refused.
    await same('AlterShareGroupOffsets', 'AlterShareGroupOffsets', 0, {
      groupId: G,
      topics: [
        { topicName: 'so-t', partitions: [{ partitionIndex: 0, startOffset: 3n }, { partitionIndex: 1, startOffset: 0n }, { partitionIndex: 7, startOffset: 0n }] },
        { topicName: 'so-missing', partitions: [{ partitionIndex: 0, startOffset: 0n }] },
      ],
    });
    const altered = await describeOffsets('after the alter: start offsets and lag', G, [{ topicName: 'so-t', partitions: [0, 1] }]);
    const p0 = altered.groups[0]!.topics[0]!.partitions.find((p) => p.partitionIndex === 0)!;
    assert.deepEqual([p0.startOffset, p0.lag], [3n, 7n]);
    await describeOffsets('after the alter, all topics', G, null);

    // A member joining again fetches from the new start offset.
    await joinUntilAssigned(G, 'member-a', ['so-t'], 2);
    const first = await firstAcquired(G, 'member-a', 'so-t', 0);
    assert.deepEqual(first, { kafka: 3n, brook: 3n });
    await leave(G, 'member-a');

    // Delete: the topic's share state goes; a second delete has nothing to delete.
    await same('DeleteShareGroupOffsets', 'DeleteShareGroupOffsets', 0, { groupId: G, topics: [{ topicName: 'so-t' }, { topicName: 'so-missing' }] });
    await describeOffsets('after the delete', G, [{ topicName: 'so-t', partitions: [0, 1] }]);
    await describeOffsets('after the delete, all topics', G, null);
    await same('DeleteShareGroupOffsets again', 'DeleteShareGroupOffsets', 0, { groupId: G, topics: [{ topicName: 'so-t' }] });

    // DeleteGroups of a share group with share state: the state goes with it.
    await same('AlterShareGroupOffsets before DeleteGroups', 'AlterShareGroupOffsets', 0, { groupId: G, topics: [{ topicName: 'so-t', partitions: [{ partitionIndex: 0, startOffset: 5n }] }] });
    await describeOffsets('altered again', G, [{ topicName: 'so-t', partitions: [0] }]);
    await same('DeleteGroups', 'DeleteGroups', 2, { groupsNames: [G] });
    await describeOffsets('after DeleteGroups: no share state', G, [{ topicName: 'so-t', partitions: [0] }]);
    await same('DeleteShareGroupOffsets of the deleted group', 'DeleteShareGroupOffsets', 0, { groupId: G, topics: [{ topicName: 'so-t' }] });
  });

  it('other group types and an unknown group created by an alter', async () => {
    await createTopic('so-u', 1);
    const commit = await pair.both('OffsetCommit', 9, {
      groupId: 'so-classic', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'so-u', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    for (const side of SIDES) assert.equal(commit[side].topics[0]!.partitions[0]!.errorCode, 0, side);
    await same('AlterShareGroupOffsets of a classic group', 'AlterShareGroupOffsets', 0, { groupId: 'so-classic', topics: [{ topicName: 'so-u', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] });
    await same('DeleteShareGroupOffsets of a classic group', 'DeleteShareGroupOffsets', 0, { groupId: 'so-classic', topics: [{ topicName: 'so-u' }] });
    await describeOffsets('DescribeShareGroupOffsets of a classic group', 'so-classic', null);

    // An alter of an unknown group creates it, Empty, with the share state.
    await same('AlterShareGroupOffsets of a new group', 'AlterShareGroupOffsets', 0, { groupId: 'so-new', topics: [{ topicName: 'so-u', partitions: [{ partitionIndex: 0, startOffset: 0n }] }] });
    await describeOffsets('the new group', 'so-new', null);
    const listed = await pair.both('ListGroups', 5, { statesFilter: [], typesFilter: ['share'] });
    for (const side of SIDES) assert.deepEqual(listed[side].groups.filter((g) => g.groupId === 'so-new'), [{ groupId: 'so-new', protocolType: 'share', groupState: 'Empty', groupType: 'share' }], side);
  });
});
