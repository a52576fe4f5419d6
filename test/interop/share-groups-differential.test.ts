/**
 * Differential conformance of KIP-932 share-group membership: scripted ShareGroupHeartbeat
 * (v1) and ShareGroupDescribe (v1) sequences, and ListGroups (type filter), DescribeGroups,
 * DeleteGroups, JoinGroup and OffsetCommit against share groups, go as raw requests to a real
 * Apache Kafka 4.4 broker and to Brook, and the answers are compared field by field after the
 * normalisations of test/support/differential/normalize.ts plus, as for consumer groups:
 *
 *   - topic ids are made equal (each topic is created on Kafka, then on Brook with Kafka's
 *     id), and member ids are the script's own (v1: the client chooses them), so the simple
 *     assignor, which walks members and topics in Java hash order, assigns alike;
 *   - partitions and topics of an assignment, members of a described group and their
 *     subscribed topic names are sorted (Kafka lists them from hash sets and maps), and so
 *     are described groups (Kafka orders them by __consumer_offsets partition).
 *
 * Kafka runs with settings that make it deterministic for a script: heartbeat interval 1 s,
 * session timeout 6 s (their minimums lowered), group.share.assignment.interval.ms 0 (a new
 * target at every change) and group.share.assignor.offload.enable false (the assignment is
 * computed in the heartbeat, as Brook does), group.share.max.size 3. Brook takes the same.
 *
 * A share group assigns a partition only once the share coordinator initialized its state,
 * which Kafka does asynchronously after the heartbeat that subscribed to it (Brook's broker
 * marks them initialized at once, until its share coordinator exists): the first answer to a
 * new subscription assigns nothing on both; the script then heartbeats each side until it has
 * its assignment and compares the settled answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both, type Side } from '../support/differential/pair.js';
import type { RequestBody } from '../support/kafka/raw-client.js';
import type { ShareGroupHeartbeatResponseData } from '../../src/protocol/messages/share-group-heartbeat.js';
import type { ShareGroupDescribeResponseData } from '../../src/protocol/messages/share-group-describe.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';

const SIDES: readonly Side[] = ['kafka', 'brook'];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const errorName = (code: number): string => `${code} ${errorInfo(code).name}`;

type Heartbeat = RequestBody<'ShareGroupHeartbeat'>;

function sortAssignment<T extends { topicId: string; partitions: number[] }>(list: T[]): T[] {
  return list.map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a - b) })).sort((a, b) => (a.topicId < b.topicId ? -1 : a.topicId > b.topicId ? 1 : 0));
}

function sortHeartbeat(r: ShareGroupHeartbeatResponseData): ShareGroupHeartbeatResponseData {
  return r.assignment === null ? r : { ...r, assignment: { ...r.assignment, topicPartitions: sortAssignment(r.assignment.topicPartitions) } };
}

function sortDescribe(r: ShareGroupDescribeResponseData): ShareGroupDescribeResponseData {
  return {
    ...r,
    groups: [...r.groups].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0)).map((g) => ({
      ...g,
      members: g.members
        .map((m) => ({ ...m, subscribedTopicNames: [...m.subscribedTopicNames].sort(), assignment: { ...m.assignment, topicPartitions: sortAssignment(m.assignment.topicPartitions) } }))
        .sort((a, b) => (a.memberId < b.memberId ? -1 : 1)),
    })),
  };
}

describe('share groups (KIP-932): Brook answers as Apache Kafka', { timeout: 120_000 }, () => {
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
        'group.share.max.size': '3',
        'auto.create.topics.enable': 'false',
        'group.initial.rebalance.delay.ms': '0',
      },
      {
        groupShareHeartbeatIntervalMs: 1000,
        groupShareMinHeartbeatIntervalMs: 1000,
        groupShareSessionTimeoutMs: 6000,
        groupShareMinSessionTimeoutMs: 6000,
        groupShareAssignmentIntervalMs: 0,
        groupShareMaxSize: 3,
        autoCreateTopics: false,
        groupInitialRebalanceDelayMs: 0,
      },
    );
    // Kafka creates __consumer_offsets at the first FindCoordinator and loads it asynchronously.
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
      topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    const t = res.topics[0]!;
    assert.equal(t.errorCode, 0, `kafka: creating ${name}: ${t.errorMessage}`);
    assert.ok(t.topicId !== undefined);
    topicIds.set(name, t.topicId);
    await pair.waitForKafkaTopic(name, partitions);
    pair.brookBroker.createTopic(name, partitions, { topicId: t.topicId });
    for (const side of SIDES) pair.normaliser[side].registerTopic(name, t.topicId);
  }

  function hb(groupId: string, memberId: string, memberEpoch: number, subscribedTopicNames: string[] | null = null, rackId: string | null = null): Heartbeat {
    return { groupId, memberId, memberEpoch, rackId, subscribedTopicNames };
  }

  /** Sends the heartbeat to both, asserts the answers agree, returns both. */
  async function heartbeat(what: string, body: Heartbeat | Both<Heartbeat>): Promise<Both<ShareGroupHeartbeatResponseData>> {
    const raw = await pair.both('ShareGroupHeartbeat', 1, body);
    const { kafka, brook, diffs } = pair.normalize({ kafka: sortHeartbeat(raw.kafka), brook: sortHeartbeat(raw.brook) });
    assert.deepEqual(diffs, [], `${what}\nkafka: ${JSON.stringify(kafka)}\nbrook: ${JSON.stringify(brook)}`);
    return raw;
  }

  /** The same error code and message on both. */
  async function refused(what: string, body: Heartbeat, errorCode: number): Promise<void> {
    const raw = await heartbeat(what, body);
    for (const side of SIDES) assert.equal(errorName(raw[side].errorCode), errorName(errorCode), `${what} (${side})`);
    assert.equal(raw.brook.errorMessage, raw.kafka.errorMessage, `${what}: Kafka's message`);
  }

  async function describeGroups(what: string, groupIds: string[]): Promise<ShareGroupDescribeResponseData> {
    const raw = await pair.both('ShareGroupDescribe', 1, { groupIds, includeAuthorizedOperations: false });
    const { kafka, brook, diffs } = pair.normalize({ kafka: sortDescribe(raw.kafka), brook: sortDescribe(raw.brook) });
    assert.deepEqual(diffs, [], `${what}\nkafka: ${JSON.stringify(kafka)}\nbrook: ${JSON.stringify(brook)}`);
    for (const g of raw.kafka.groups) assert.equal(raw.brook.groups.find((b) => b.groupId === g.groupId)?.errorMessage, g.errorMessage, `${what}: Kafka's message for ${g.groupId}`);
    return raw.kafka;
  }

  /**
   * Heartbeats each side on its own until the member holds `partitions` partitions (its share
   * partitions were initialized), then once more on both, compared; returns Kafka's answer.
   */
  async function settle(what: string, group: string, memberId: string, from: Both<number>, partitions: number): Promise<ShareGroupHeartbeatResponseData> {
    const epochs = { ...from };
    for (const side of SIDES) {
      let epoch = epochs[side];
      for (let i = 0; ; i++) {
        const r = await pair.conn[side].request('ShareGroupHeartbeat', 1, hb(group, memberId, epoch));
        assert.equal(r.errorCode, 0, `${what} (${side}): ${r.errorMessage}`);
        epoch = r.memberEpoch;
        const held = await pair.conn[side].request('ShareGroupDescribe', 1, { groupIds: [group], includeAuthorizedOperations: false });
        const m = held.groups[0]!.members.find((x) => x.memberId === memberId)!;
        if (m.assignment.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) === partitions) break;
        if (i > 100) throw new Error(`${what} (${side}): never got ${partitions} partitions: ${JSON.stringify(held)}`);
        await sleep(100);
      }
      epochs[side] = epoch;
    }
    assert.equal(epochs.brook, epochs.kafka, `${what}: settled epochs`);
    return (await heartbeat(`${what}, settled`, hb(group, memberId, epochs.kafka))).kafka;
  }

  it('members join, get their share partitions once initialized, leave; describe, list and delete as Kafka', async () => {
    await createTopic('sg-t', 4);
    const G = 'sg-one';

    // A new group is at epoch 1: A's join bumps it to 2; no share partition is initialized yet.
    const a1 = await heartbeat('A joins', hb(G, 'member-a', 0, ['sg-t']));
    assert.equal(a1.kafka.memberEpoch, 2);
    assert.deepEqual(a1.kafka.assignment?.topicPartitions, []);
    assert.equal(a1.kafka.heartbeatIntervalMs, 1000);
    const a2 = await settle('A, until its partitions are initialized', G, 'member-a', { kafka: 2, brook: 2 }, 4);
    assert.equal(a2.memberEpoch, 3, 'the initialized partitions bumped the group epoch');
    const one = await describeGroups('A alone', [G]);
    assert.deepEqual([one.groups[0]!.groupState, one.groups[0]!.groupEpoch, one.groups[0]!.assignmentEpoch, one.groups[0]!.assignorName], ['Stable', 3, 3, 'simple']);

    // B joins: the partitions are initialized, so B gets its share at once, at the new epoch.
    const b1 = await heartbeat('B joins', hb(G, 'member-b', 0, ['sg-t'], 'rack-b'));
    assert.equal(b1.kafka.memberEpoch, 4);
    assert.equal(b1.kafka.assignment?.topicPartitions[0]?.partitions.length, 2);
    const a3 = await heartbeat('A moves to the new target', hb(G, 'member-a', 3));
    assert.equal(a3.kafka.memberEpoch, 4);
    await heartbeat('A again: nothing new', hb(G, 'member-a', 4));
    await heartbeat('A with its previous epoch (a lost answer)', hb(G, 'member-a', 3));
    await describeGroups('A and B', [G, 'sg-unknown']);

    await refused('an unknown member', hb(G, 'member-x', 4), ErrorCode.UNKNOWN_MEMBER_ID);
    await refused('an epoch ahead', hb(G, 'member-a', 9), ErrorCode.FENCED_MEMBER_EPOCH);
    await refused('an old epoch', hb(G, 'member-a', 2), ErrorCode.FENCED_MEMBER_EPOCH);
    await refused('an unknown group', hb('sg-none', 'member-a', 1), ErrorCode.GROUP_ID_NOT_FOUND);
    await refused('an empty member id (KafkaApis)', hb(G, '', 0, ['sg-t']), ErrorCode.INVALID_REQUEST);
    await refused('a member id over 36 characters (KafkaApis)', hb(G, 'm'.repeat(37), 0, ['sg-t']), ErrorCode.INVALID_REQUEST);
    await refused('a join without topics', hb(G, 'member-c', 0, []), ErrorCode.INVALID_REQUEST);
    await refused('epoch -2', hb(G, 'member-a', -2), ErrorCode.INVALID_REQUEST);
    await refused('an empty rack', hb(G, 'member-a', 4, null, ''), ErrorCode.INVALID_REQUEST);

    // group.share.max.size is 3.
    await heartbeat('C joins', hb(G, 'member-c', 0, ['sg-t']));
    await refused('D finds the group full', hb(G, 'member-d', 0, ['sg-t']), ErrorCode.GROUP_MAX_SIZE_REACHED);
    await heartbeat('C leaves', hb(G, 'member-c', -1));

    // The other group APIs know the share group.
    const listed = await pair.both('ListGroups', 5, { statesFilter: [], typesFilter: ['share'] });
    for (const side of SIDES) {
      assert.deepEqual(listed[side].groups.filter((g) => g.groupId.startsWith('sg-')), [{ groupId: G, protocolType: 'share', groupState: 'Stable', groupType: 'share' }], side);
    }
    const consumerOnly = await pair.both('ListGroups', 5, { statesFilter: [], typesFilter: ['consumer'] });
    for (const side of SIDES) assert.deepEqual(consumerOnly[side].groups.filter((g) => g.groupId.startsWith('sg-')), [], side);
    const byState = await pair.both('ListGroups', 5, { statesFilter: ['stable'], typesFilter: [] });
    for (const side of SIDES) assert.deepEqual(byState[side].groups.filter((g) => g.groupId.startsWith('sg-')).map((g) => g.groupId), [G], side);
    const described = await pair.compare('DescribeGroups', 6, { groups: [G], includeAuthorizedOperations: false });
    assert.deepEqual(described.diffs, [], JSON.stringify(described.raw));
    assert.equal(described.raw.brook.groups[0]!.errorMessage, described.raw.kafka.groups[0]!.errorMessage);
    const deleting = await pair.compare('DeleteGroups', 2, { groupsNames: [G] });
    assert.deepEqual(deleting.diffs, [], JSON.stringify(deleting.raw));
    assert.equal(errorName(deleting.raw.kafka.results[0]!.errorCode), errorName(ErrorCode.NON_EMPTY_GROUP));
    const join = await pair.compare('JoinGroup', 9, {
      groupId: G, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.alloc(0) }], reason: null,
    });
    assert.deepEqual(join.diffs, [], JSON.stringify(join.raw));
    const commit = await pair.compare('OffsetCommit', 9, {
      groupId: G, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'sg-t', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    assert.deepEqual(commit.diffs, [], JSON.stringify(commit.raw));
    // The classic APIs and offsets: a share group has no classic members and keeps no offsets.
    const classicApis = [
      await pair.compare('Heartbeat', 4, { groupId: G, generationId: 1, memberId: 'member-a', groupInstanceId: null }),
      await pair.compare('SyncGroup', 5, { groupId: G, generationId: 1, memberId: 'member-a', groupInstanceId: null, protocolType: 'consumer', protocolName: 'range', assignments: [] }),
      await pair.compare('LeaveGroup', 5, { groupId: G, members: [{ memberId: 'member-a', groupInstanceId: null, reason: null }] }),
      await pair.compare('OffsetFetch', 9, { requireStable: false, groups: [{ groupId: G, memberId: null, memberEpoch: -1, topics: null }] }),
      await pair.compare('OffsetFetch', 9, { requireStable: false, groups: [{ groupId: G, memberId: 'member-a', memberEpoch: 4, topics: [{ name: 'sg-t', partitionIndexes: [0] }] }] }),
      await pair.compare('OffsetFetch', 7, { groupId: G, requireStable: false, topics: [{ name: 'sg-t', partitionIndexes: [0] }], groups: [] }),
      await pair.compare('OffsetDelete', 0, { groupId: G, topics: [{ name: 'sg-t', partitions: [{ partitionIndex: 0 }] }] }),
    ];
    for (const c of classicApis) assert.deepEqual(c.diffs, [], JSON.stringify(c.raw, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)));

    // Both leave: Empty, then deletable.
    await heartbeat('B leaves', hb(G, 'member-b', -1));
    await heartbeat('A heartbeats after B left', hb(G, 'member-a', 4));
    await heartbeat('A leaves', hb(G, 'member-a', -1));
    await refused('A leaves again', hb(G, 'member-a', -1), ErrorCode.UNKNOWN_MEMBER_ID);
    const empty = await describeGroups('nobody left', [G]);
    assert.equal(empty.groups[0]!.groupState, 'Empty');
    const emptyList = await pair.both('ListGroups', 5, { statesFilter: ['Empty'], typesFilter: ['share'] });
    for (const side of SIDES) assert.deepEqual(emptyList[side].groups.filter((g) => g.groupId.startsWith('sg-')).map((g) => g.groupState), ['Empty'], side);
    const deleted = await pair.compare('DeleteGroups', 2, { groupsNames: [G] });
    assert.deepEqual(deleted.diffs, [], JSON.stringify(deleted.raw));
    assert.equal(errorName(deleted.raw.kafka.results[0]!.errorCode), errorName(ErrorCode.NONE));
    await describeGroups('deleted', [G]);
  });

  it('a group id of another type is refused, and a new subscription bumps the epoch', async () => {
    await createTopic('sg-u', 2);
    // A simple group (an OffsetCommit without a generation) holds the id.
    const commit = await pair.both('OffsetCommit', 9, {
      groupId: 'sg-classic', generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ name: 'sg-u', partitions: [{ partitionIndex: 0, committedOffset: 1n, committedLeaderEpoch: -1, committedMetadata: '' }] }],
    });
    for (const side of SIDES) assert.equal(commit[side].topics[0]!.partitions[0]!.errorCode, 0, side);
    await refused('a share member joining a classic group', hb('sg-classic', 'member-a', 0, ['sg-u']), ErrorCode.GROUP_ID_NOT_FOUND);
    await describeGroups('ShareGroupDescribe of a classic group', ['sg-classic']);
    await refused('leaving a classic group', hb('sg-classic', 'member-a', -1), ErrorCode.GROUP_ID_NOT_FOUND);

    const G = 'sg-two';
    const a1 = await heartbeat('A joins sg-u', hb(G, 'member-a', 0, ['sg-u']));
    const a2 = await settle('A, until sg-u is initialized', G, 'member-a', { kafka: a1.kafka.memberEpoch, brook: a1.brook.memberEpoch }, 2);
    // A subscribes to sg-t as well: its share partitions are per group, initialized again.
    const a3 = await heartbeat('A adds sg-t', hb(G, 'member-a', a2.memberEpoch, ['sg-u', 'sg-t']));
    assert.equal(a3.kafka.memberEpoch, a2.memberEpoch + 1);
    await settle('A, until sg-t is initialized for this group', G, 'member-a', { kafka: a3.kafka.memberEpoch, brook: a3.brook.memberEpoch }, 6);
    await describeGroups('A on two topics', [G]);

    // A consumer group's APIs do not take the share group's id.
    const cg = await pair.both('ConsumerGroupHeartbeat', 1, {
      groupId: G, memberId: 'member-z', memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['sg-u'], subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [],
    });
    for (const side of SIDES) assert.equal(errorName(cg[side].errorCode), errorName(ErrorCode.GROUP_ID_NOT_FOUND), side);
    assert.equal(cg.brook.errorMessage, cg.kafka.errorMessage);
    const cgd = await pair.both('ConsumerGroupDescribe', 1, { groupIds: [G], includeAuthorizedOperations: false });
    for (const side of SIDES) assert.equal(errorName(cgd[side].groups[0]!.errorCode), errorName(ErrorCode.GROUP_ID_NOT_FOUND), side);
    assert.equal(cgd.brook.groups[0]!.errorMessage, cgd.kafka.groups[0]!.errorMessage);
  });
});
