/**
 * Differential conformance of KIP-848 consumer groups: scripted ConsumerGroupHeartbeat and
 * ConsumerGroupDescribe sequences, and ListGroups (state and type filters) and DescribeGroups
 * over consumer and classic groups, go as raw requests to a real Apache Kafka broker (the
 * version test/support/kafka starts) and to Brook, and the answers are compared field by
 * field after the normalisations of test/support/differential/normalize.ts plus these, for
 * consumer groups (listed in NORMALISATIONS there):
 *
 *   - topic ids are made equal rather than normalised: each topic is created on Kafka, then
 *     on Brook with Kafka's id (Broker.createTopic), because the uniform assignor walks topics
 *     in hash order of their ids; member ids are the scripted members' own (v1 lets the
 *     client choose them, KIP-1082), so Kafka's hash order of members is Brook's too;
 *   - partitions of an assignment, topics of an assignment, members of a described group and
 *     their subscribed topic names are sorted (Kafka lists them from hash sets and maps), and
 *     so are described groups (Kafka orders them by __consumer_offsets partition).
 *
 * Kafka runs with settings that make it deterministic for a script: heartbeat interval 1 s,
 * session timeout 6 s, group.consumer.migration.policy=disabled (on both: each group keeps its
 * protocol).
 * Both keep Kafka 4.4's group.consumer.assignment.interval.ms (1 s, KIP-1263): a group
 * computes a new target at most once a second, so a script waits for it (ASSIGNMENT_INTERVAL)
 * where a step needs the new target, and compares what each side answers meanwhile.
 *
 * Where an answer depends on timing inside Kafka (a regex is resolved by an executor; a
 * topic created later reaches the coordinator with the next metadata image), each side is
 * driven until the group settles and the settled answers are compared.
 *
 * With group.consumer.migration.policy=disabled, Kafka 4.4 answers a JoinGroup to a consumer
 * group with members INCONSISTENT_GROUP_PROTOCOL, as Brook does (Kafka 4.1 took the member
 * in); online migration is compared by consumer-groups-migration-differential.test.ts.
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both, type Side } from '../support/differential/pair.js';
import { diffValues } from '../support/differential/normalize.js';
import type { RequestBody } from '../support/kafka/raw-client.js';
import type { ConsumerGroupHeartbeatResponseData } from '../../src/protocol/messages/consumer-group-heartbeat.js';
import type { ConsumerGroupDescribeResponseData } from '../../src/protocol/messages/consumer-group-describe.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { encodeSubscription } from '../../src/protocol/consumer-protocol.js';

const SIDES: readonly Side[] = ['kafka', 'brook'];
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Kafka 4.4's group.consumer.assignment.interval.ms default, with a margin. */
const ASSIGNMENT_INTERVAL = 1100;
const errorName = (code: number): string => `${code} ${errorInfo(code).name}`;

type Heartbeat = RequestBody<'ConsumerGroupHeartbeat'>;
type Owned = Record<string, number[]>;

/** Sorts what Kafka lists from hash sets and maps (see the module comment). */
function sortAssignment<T extends { topicId: string; partitions: number[] }>(list: T[]): T[] {
  return list.map((t) => ({ ...t, partitions: [...t.partitions].sort((a, b) => a - b) })).sort((a, b) => (a.topicId < b.topicId ? -1 : a.topicId > b.topicId ? 1 : 0));
}

function sortHeartbeat(r: ConsumerGroupHeartbeatResponseData): ConsumerGroupHeartbeatResponseData {
  return r.assignment === null ? r : { ...r, assignment: { ...r.assignment, topicPartitions: sortAssignment(r.assignment.topicPartitions) } };
}

function sortDescribe(r: ConsumerGroupDescribeResponseData): ConsumerGroupDescribeResponseData {
  return {
    ...r,
    groups: [...r.groups].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0)).map((g) => ({
      ...g,
      members: g.members
        .map((m) => ({
          ...m,
          subscribedTopicNames: [...m.subscribedTopicNames].sort(),
          assignment: { ...m.assignment, topicPartitions: sortAssignment(m.assignment.topicPartitions) },
          targetAssignment: { ...m.targetAssignment, topicPartitions: sortAssignment(m.targetAssignment.topicPartitions) },
        }))
        .sort((a, b) => (a.memberId < b.memberId ? -1 : 1)),
    })),
  };
}

describe('consumer groups (KIP-848): Brook answers as Apache Kafka', { timeout: 240_000 }, () => {
  let pair: DiffPair;
  const topicIds = new Map<string, string>();
  /** What each scripted member holds, from its last answer with an assignment. */
  const held = new Map<string, Owned>();

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    const settings = {
      'group.consumer.heartbeat.interval.ms': '1000',
      'group.consumer.min.heartbeat.interval.ms': '1000',
      'group.consumer.session.timeout.ms': '6000',
      'group.consumer.min.session.timeout.ms': '6000',
    };
    pair = await DiffPair.start(
      { ...settings, 'group.consumer.migration.policy': 'disabled', 'auto.create.topics.enable': 'false', 'group.initial.rebalance.delay.ms': '0' },
      {
        groupConsumerHeartbeatIntervalMs: 1000,
        groupConsumerMinHeartbeatIntervalMs: 1000,
        groupConsumerSessionTimeoutMs: 6000,
        groupConsumerMinSessionTimeoutMs: 6000,
        groupInitialRebalanceDelayMs: 0,
        autoCreateTopics: false,
        // Brook's default is Kafka's, bidirectional; this file compares the disabled policy.
        groupConsumerMigrationPolicy: 'disabled',
      },
    );
    // Kafka creates __consumer_offsets at the first FindCoordinator and loads it asynchronously.
    for (let i = 0; ; i++) {
      const fc = await pair.conn.kafka.request('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: ['warm-up'] });
      const d = await pair.conn.kafka.request('ConsumerGroupDescribe', 0, { groupIds: ['warm-up'], includeAuthorizedOperations: false });
      if ((fc.coordinators ?? []).every((c) => c.errorCode === 0) && d.groups[0]?.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) break;
      if (i > 300) throw new Error(`Kafka's group coordinator did not load\n${pair.kafkaBroker.logTail(30)}`);
      await sleep(50);
    }
  });

  after(async () => {
    await pair?.stop();
  });

  /** Creates the topic on Kafka, then on Brook with Kafka's topic id. */
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

  function owned(partitions: Owned | null): Heartbeat['topicPartitions'] {
    if (partitions === null) return null;
    return Object.entries(partitions).map(([topic, ps]) => ({ topicId: topicIds.get(topic)!, partitions: ps }));
  }

  function join(group: string, memberId: string, o: Partial<Heartbeat> = {}): Heartbeat {
    return {
      groupId: group, memberId, memberEpoch: 0, instanceId: null, rackId: null, rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: [], ...o,
    };
  }

  function beat(group: string, memberId: string, memberEpoch: number, partitions: Owned | null = null, o: Partial<Heartbeat> = {}): Heartbeat {
    return {
      groupId: group, memberId, memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: -1,
      subscribedTopicNames: null, subscribedTopicRegex: null, serverAssignor: null, topicPartitions: owned(partitions), ...o,
    };
  }

  /** Sends the heartbeat to both, asserts the answers agree, returns Kafka's. */
  async function heartbeat(what: string, body: Heartbeat, version = 1): Promise<ConsumerGroupHeartbeatResponseData> {
    const raw = await pair.both('ConsumerGroupHeartbeat', version, body);
    const { kafka, brook, diffs } = pair.normalize({ kafka: sortHeartbeat(raw.kafka), brook: sortHeartbeat(raw.brook) });
    assert.deepEqual(diffs, [], `${what}\nkafka: ${JSON.stringify(kafka)}\nbrook: ${JSON.stringify(brook)}`);
    return raw.kafka;
  }

  /** ConsumerGroupDescribe v1 (v1 adds each member's type, KIP-1099). */
  async function describeGroups(what: string, groupIds: string[], version = 1): Promise<ConsumerGroupDescribeResponseData> {
    const raw = await pair.both('ConsumerGroupDescribe', version, { groupIds, includeAuthorizedOperations: false });
    const { kafka, brook, diffs } = pair.normalize({ kafka: sortDescribe(raw.kafka), brook: sortDescribe(raw.brook) });
    assert.deepEqual(diffs, [], `${what}\nkafka: ${JSON.stringify(kafka)}\nbrook: ${JSON.stringify(brook)}`);
    return raw.kafka;
  }

  /** The partitions a response assigns, by topic name. */
  function assigned(r: ConsumerGroupHeartbeatResponseData): Owned {
    const out: Owned = {};
    for (const t of r.assignment?.topicPartitions ?? []) out[[...topicIds].find(([, id]) => id === t.topicId)![0]] = [...t.partitions].sort();
    return out;
  }

  it('two members join, reconcile through revocation, one leaves, the other takes everything', async () => {
    await createTopic('cg-t', 4);
    const G = 'cg-two';
    // A new group is at epoch 1 (Kafka 4.4, KAFKA-20268): A's join bumps it to 2.
    const a1 = await heartbeat('A joins', join(G, 'member-a', { subscribedTopicNames: ['cg-t'] }));
    assert.equal(a1.memberEpoch, 2);
    // Within the assignment interval: B waits at the last target's epoch, with nothing.
    const b1 = await heartbeat('B joins', join(G, 'member-b', { subscribedTopicNames: ['cg-t'] }));
    assert.equal(b1.memberEpoch, 2);
    const assigning = await describeGroups('after B joined (Assigning)', [G]);
    assert.equal(assigning.groups[0]!.groupState, 'Assigning');
    await heartbeat('A heartbeats within the interval', beat(G, 'member-a', 2, assigned(a1)));
    await sleep(ASSIGNMENT_INTERVAL);
    const a2 = await heartbeat('A heartbeats owning all, after the interval', beat(G, 'member-a', 2, assigned(a1)));
    assert.equal(a2.memberEpoch, 2, 'A revokes before moving on');
    const a3 = await heartbeat('A revoked', beat(G, 'member-a', a2.memberEpoch, assigned(a2)));
    assert.equal(a3.memberEpoch, 3);
    // A commit A sent before it read that answer still carries epoch 2. Kafka 4.4 checks such
    // a commit partition by partition against the epoch the member got it at (assignment
    // epochs, KIP-1251), by the topic's id (the request's from v10, the broker's look-up of the
    // name before): the commit lands when A had every partition at epoch 2, and one partition
    // it did not have fails the whole request. Epoch 4 is ahead of A: refused.
    const keptByA = assigned(a2)['cg-t'] ?? [];
    const commitBody = (version: number, epoch: number, partitions: number[]): RequestBody<'OffsetCommit'> => ({
      groupId: G, generationIdOrMemberEpoch: epoch, memberId: 'member-a', groupInstanceId: null, retentionTimeMs: -1n,
      topics: [{ ...(version >= 10 ? { topicId: topicIds.get('cg-t')! } : { name: 'cg-t' }), partitions: partitions.map((p) => ({ partitionIndex: p, committedOffset: 0n, committedLeaderEpoch: -1, committedMetadata: '' })) }],
    });
    const cases: [number, number, number[], number][] = [
      [10, 2, keptByA, ErrorCode.NONE],
      [10, 2, [0, 1, 2, 3], ErrorCode.STALE_MEMBER_EPOCH],
      [9, 2, keptByA, ErrorCode.NONE],
      [9, 2, [0, 1, 2, 3], ErrorCode.STALE_MEMBER_EPOCH],
      [10, 3, [0, 1, 2, 3], ErrorCode.NONE],
      [9, 3, [0, 1, 2, 3], ErrorCode.NONE],
      [10, 4, keptByA, ErrorCode.STALE_MEMBER_EPOCH],
    ];
    for (const [version, epoch, partitions, expected] of cases) {
      const raw = await pair.both('OffsetCommit', version, commitBody(version, epoch, partitions));
      for (const side of SIDES) {
        assert.deepEqual(raw[side].topics[0]!.partitions.map((p) => errorName(p.errorCode)), partitions.map(() => errorName(expected)), `${side}, OffsetCommit v${version} with epoch ${epoch} of ${partitions.join(',')}`);
      }
    }
    const b2 = await heartbeat('B gets what A released', beat(G, 'member-b', 2, {}));
    assert.equal(Object.values(assigned(b2)).flat().length, 2);
    const stable = await describeGroups('stable', [G]);
    assert.equal(stable.groups[0]!.groupState, 'Stable');
    await heartbeat('B leaves', beat(G, 'member-b', -1));
    await sleep(ASSIGNMENT_INTERVAL);
    const a4 = await heartbeat('A after B left', beat(G, 'member-a', 3, assigned(a3)));
    assert.equal(a4.memberEpoch, 4);
    await describeGroups('after B left', [G]);
  });

  it('fences wrong epochs and unknown members, and validates requests as Kafka', async () => {
    const G = 'cg-fence';
    const a = await heartbeat('A joins', join(G, 'member-a', { subscribedTopicNames: ['cg-t'] }));
    const b = await heartbeat('B joins', join(G, 'member-b', { subscribedTopicNames: ['cg-t'] }));
    const cases: [string, Heartbeat, number][] = [
      ['epoch ahead', beat(G, 'member-a', a.memberEpoch + 1, {}), ErrorCode.FENCED_MEMBER_EPOCH],
      ['epoch behind, not the previous one', beat(G, 'member-b', b.memberEpoch - 1, {}), ErrorCode.FENCED_MEMBER_EPOCH],
      ['unknown member', beat(G, 'member-x', 1, {}), ErrorCode.UNKNOWN_MEMBER_ID],
      ['unknown group', beat('cg-nope', 'member-x', 1), ErrorCode.GROUP_ID_NOT_FOUND],
      ['join without rebalance timeout', join(G, 'member-y', { subscribedTopicNames: ['cg-t'], rebalanceTimeoutMs: -1 }), ErrorCode.INVALID_REQUEST],
      ['join owning partitions', join(G, 'member-y', { subscribedTopicNames: ['cg-t'], topicPartitions: owned({ 'cg-t': [0] }) }), ErrorCode.INVALID_REQUEST],
      ['join without subscription', join(G, 'member-y'), ErrorCode.INVALID_REQUEST],
      ['v1 without member id', join(G, '', { subscribedTopicNames: ['cg-t'] }), ErrorCode.INVALID_REQUEST],
      ['empty group id', join('', 'member-y', { subscribedTopicNames: ['cg-t'] }), ErrorCode.INVALID_REQUEST],
      ['epoch -3', beat(G, 'member-a', -3), ErrorCode.INVALID_REQUEST],
      ['static leave without instance id', beat(G, 'member-a', -2), ErrorCode.INVALID_REQUEST],
      ['unknown assignor', join(G, 'member-y', { subscribedTopicNames: ['cg-t'], serverAssignor: 'sticky' }), ErrorCode.UNSUPPORTED_ASSIGNOR],
      ['invalid regex', join(G, 'member-y', { subscribedTopicRegex: '(' }), ErrorCode.INVALID_REGULAR_EXPRESSION],
      ['leave of an unknown member', beat(G, 'member-x', -1), ErrorCode.UNKNOWN_MEMBER_ID],
    ];
    for (const [what, body, expected] of cases) {
      const r = await heartbeat(what, body);
      assert.equal(errorName(r.errorCode), errorName(expected), what);
    }
    await describeGroups('A and B joined', [G, 'cg-nope', '']);
  });

  it('a member with a regex gets the matching topics, and a matching topic created later', async () => {
    await createTopic('cg-rx-a', 2);
    const G = 'cg-regex';
    const first = await heartbeat('join with a regex', join(G, 'member-r', { subscribedTopicRegex: 'cg-rx-.*' }));
    assert.equal(first.memberEpoch, 1, 'the regex is not resolved in the heartbeat itself');
    const settled = await settle(G, 'member-r', (r) => Object.keys(assigned(r)).length === 1, 'cg-rx-a assigned');
    await createTopic('cg-rx-b', 3);
    // Kafka refreshes regexes at most every 10 s, at a heartbeat.
    await settle(G, 'member-r', (r) => Object.keys(assigned(r)).length === 2, 'cg-rx-b assigned too', settled, 20_000);
    await describeGroups('regex group', [G]);
  });

  it('regex members: a second member with a resolved regex, reconciliation, a switch from the regex to names, the regex member leaving', async () => {
    await createTopic('cg-ry-a', 4);
    const G = 'cg-regex-two';
    const RE = 'cg-ry-.*';
    const a1 = await heartbeat('A joins with a regex', join(G, 'member-a', { subscribedTopicRegex: RE }));
    assert.equal(a1.memberEpoch, 1, 'the regex is not resolved in the heartbeat itself');
    // Kafka resolves the regex on its executor: A heartbeats until it has the topic on each side.
    const a2 = await settle(G, 'member-a', (r) => Object.values(assigned(r)).flat().length === 4, 'cg-ry-a assigned to A');
    await describeGroups('A alone, its regex resolved', [G]);
    // Past the assignment interval, B's join computes a new target at once on both sides. Its
    // regex is resolved already: the join bumps the group epoch (no refresh to wait for).
    await sleep(ASSIGNMENT_INTERVAL);
    const b1 = await heartbeat('B joins with the same regex', join(G, 'member-b', { subscribedTopicRegex: RE }));
    assert.equal(b1.memberEpoch, a2.kafka.memberEpoch + 1, 'B\'s join bumped the group epoch');
    const d1 = await describeGroups('B joined, A still owns everything', [G]);
    assert.equal(d1.groups[0]!.groupState, 'Reconciling');
    // A revokes, B gets what A released.
    const d2 = await settleGroup(G, ['member-a', 'member-b'], 'A and B share the topic');
    const memberOf = (d: ConsumerGroupDescribeResponseData, id: string) => d.groups[0]!.members.find((m) => m.memberId === id)!;
    const ownedBy = (d: ConsumerGroupDescribeResponseData, id: string): Owned => {
      const out: Owned = {};
      for (const t of memberOf(d, id).assignment.topicPartitions) out[[...topicIds].find(([, tid]) => tid === t.topicId)![0]] = [...t.partitions].sort();
      return out;
    };
    assert.deepEqual(Object.values(ownedBy(d2, 'member-b')).flat().length, 2);
    // B moves from the regex to topic names: the regex stays (A's), the epoch goes up.
    await sleep(ASSIGNMENT_INTERVAL);
    const b2 = await heartbeat('B switches to topic names', beat(G, 'member-b', memberOf(d2, 'member-b').memberEpoch, ownedBy(d2, 'member-b'), { subscribedTopicNames: ['cg-ry-a'], subscribedTopicRegex: '' }));
    assert.equal(b2.memberEpoch, memberOf(d2, 'member-b').memberEpoch + 1, 'the subscription change bumped the group epoch');
    const d3 = await settleGroup(G, ['member-a', 'member-b'], 'after B\'s switch');
    const both = await heartbeat('A with both a regex and names', beat(G, 'member-a', memberOf(d3, 'member-a').memberEpoch, ownedBy(d3, 'member-a'), { subscribedTopicNames: ['cg-ry-a'], subscribedTopicRegex: RE }));
    // Kafka 4.4 takes names and a regex in one heartbeat; names the regex covers already change no topic: no new epoch.
    assert.deepEqual([errorName(both.errorCode), both.memberEpoch], [errorName(ErrorCode.NONE), memberOf(d3, 'member-a').memberEpoch]);
    // The regex member leaves: its regex goes with it, B gets everything.
    await heartbeat('A leaves', beat(G, 'member-a', -1));
    await sleep(ASSIGNMENT_INTERVAL);
    const d4 = await settleGroup(G, ['member-b'], 'B alone');
    assert.equal(Object.values(ownedBy(d4, 'member-b')).flat().length, 4);
  });

  it('a topic created after the members subscribed to it bumps the group epoch and is assigned', async () => {
    const G = 'cg-late';
    const a = await heartbeat('A joins before the topic exists', join(G, 'member-a', { subscribedTopicNames: ['cg-late-t'] }));
    assert.deepEqual(assigned(a), {});
    await createTopic('cg-late-t', 2);
    await settle(G, 'member-a', (r) => Object.keys(assigned(r)).length === 1, 'cg-late-t assigned', { kafka: a, brook: a });
    await describeGroups('after the topic came', [G]);
  });

  it('a static member leaves for a while (-2) and comes back under a new member id with its assignment', async () => {
    const G = 'cg-static';
    const s1 = await heartbeat('static member joins', join(G, 'static-1', { instanceId: 'inst', subscribedTopicNames: ['cg-t'] }));
    await heartbeat('a second static instance joins', join(G, 'static-2', { instanceId: 'other', subscribedTopicNames: ['cg-t'] }));
    const sameInstance = await heartbeat('same instance, another member', join(G, 'static-3', { instanceId: 'inst', subscribedTopicNames: ['cg-t'] }));
    assert.equal(errorName(sameInstance.errorCode), errorName(ErrorCode.UNRELEASED_INSTANCE_ID));
    await heartbeat('static leave', beat(G, 'static-1', -2, null, { instanceId: 'inst' }));
    await describeGroups('static member away', [G]);
    await heartbeat('back with a new member id', join(G, 'static-1b', { instanceId: 'inst', subscribedTopicNames: ['cg-t'] }));
    await heartbeat('the old member id is fenced', beat(G, 'static-1', s1.memberEpoch, null, { instanceId: 'inst' }));
    await describeGroups('static member back', [G]);
  });

  it('three members share five partitions as Kafka shares them (uniform: who gets the extra partitions)', async () => {
    await createTopic('cg-five', 5);
    const G = 'cg-three';
    const ids = ['zeta-member', 'alpha-member', 'mid-member'];
    const answers = new Map<string, ConsumerGroupHeartbeatResponseData>();
    for (const id of ids) answers.set(id, await heartbeat(`${id} joins`, join(G, id, { subscribedTopicNames: ['cg-five'] })));
    await sleep(ASSIGNMENT_INTERVAL);
    // Every member heartbeats with what it holds until the group is stable.
    for (let round = 0; round < 4; round++) {
      for (const id of ids) {
        const last = answers.get(id)!;
        const r = await heartbeat(`${id}, round ${round}`, beat(G, id, last.memberEpoch, held.get(id) ?? {}));
        answers.set(id, r);
        if (r.assignment !== null) held.set(id, assigned(r));
      }
    }
    const d = await describeGroups('three members settled', [G]);
    assert.equal(d.groups[0]!.groupState, 'Stable');
  });

  it('a member that stops heartbeating is fenced after the session timeout; the others get its partitions', async () => {
    const G = 'cg-session';
    await heartbeat('A joins', join(G, 'member-a', { subscribedTopicNames: ['cg-t'] }));
    const b = await heartbeat('B joins', join(G, 'member-b', { subscribedTopicNames: ['cg-t'] }));
    await sleep(ASSIGNMENT_INTERVAL);
    let a = await heartbeat('A revokes', beat(G, 'member-a', 2, { 'cg-t': [0, 1, 2, 3] }));
    const kept = assigned(a);
    a = await heartbeat('A done', beat(G, 'member-a', a.memberEpoch, kept));
    // A owns what it kept: an answer without an assignment leaves it as it is.
    let owned = a.assignment !== null ? assigned(a) : kept;
    let epoch = a.memberEpoch;
    // B goes silent; A keeps heartbeating past B's 6 s session, and gets B's partitions.
    for (let i = 0; i < 8; i++) {
      await sleep(1000);
      const r = await heartbeat(`A alone, ${i} s`, beat(G, 'member-a', epoch, owned));
      epoch = r.memberEpoch;
      if (r.assignment !== null) owned = assigned(r);
    }
    assert.equal(epoch, 4, 'B\'s expiry bumped the group epoch');
    assert.equal(Object.values(owned).flat().length, 4);
    const gone = await heartbeat('B after its session', beat(G, 'member-b', b.memberEpoch, {}));
    assert.equal(errorName(gone.errorCode), errorName(ErrorCode.UNKNOWN_MEMBER_ID));
  });

  it('members selecting the range assignor get ranges', async () => {
    await createTopic('cg-range', 5);
    const G = 'cg-range-group';
    const o = { subscribedTopicNames: ['cg-range'], serverAssignor: 'range' };
    const a = await heartbeat('A joins with range', join(G, 'range-a', o));
    await heartbeat('B joins with range', join(G, 'range-b', o));
    await sleep(ASSIGNMENT_INTERVAL);
    await heartbeat('A after the interval', beat(G, 'range-a', a.memberEpoch, assigned(a)));
    await describeGroups('range target assignment', [G]);
  });

  it('the classic protocol and the consumer protocol keep to their own group ids', async () => {
    const subscription = encodeSubscription({ topics: ['cg-t'], userData: null }, 0);
    const joinClassic = (groupId: string): RequestBody<'JoinGroup'> => ({
      groupId, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: subscription }], reason: null,
    });
    // A non-empty classic group refuses the consumer protocol (migration disabled).
    const classic = await pair.both('JoinGroup', 3, joinClassic('cg-classic'));
    for (const side of SIDES) assert.equal(classic[side].errorCode, ErrorCode.NONE, side);
    const refused = await heartbeat('ConsumerGroupHeartbeat to a classic group', join('cg-classic', 'member-c', { subscribedTopicNames: ['cg-t'] }));
    assert.equal(errorName(refused.errorCode), errorName(ErrorCode.GROUP_ID_NOT_FOUND));
    await describeGroups('a classic group is not a consumer group', ['cg-classic']);

    // A JoinGroup to a consumer group with members, migration disabled.
    const G = 'cg-mixed';
    await heartbeat('consumer member', join(G, 'member-m', { subscribedTopicNames: ['cg-t'] }));
    const mixed = await pair.both('JoinGroup', 5, joinClassic(G));
    const { diffs } = pair.normalize(mixed);
    assert.deepEqual(diffs, [], `JoinGroup to a consumer group\nkafka: ${JSON.stringify(mixed.kafka)}\nbrook: ${JSON.stringify(mixed.brook)}`);
    assert.equal(errorName(mixed.kafka.errorCode), errorName(ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    // Classic heartbeats and syncs find no classic member there.
    const hb = await pair.both('Heartbeat', 4, { groupId: G, generationId: 1, memberId: 'member-m', groupInstanceId: null });
    for (const side of SIDES) assert.equal(errorName(hb[side].errorCode), errorName(ErrorCode.UNKNOWN_MEMBER_ID), side);
  });

  it('ListGroups (state and type filters) and DescribeGroups see consumer groups as Kafka', async () => {
    await createTopic('cg-ls-t', 2);
    const live = 'cg-ls-live';
    const idle = 'cg-ls-idle';
    const classic = 'cg-ls-classic';
    const mine = (id: string): boolean => id.startsWith('cg-ls-');
    // A consumer group with a member, one whose only member left (Empty), a classic group.
    const a = await heartbeat('live member joins', join(live, 'member-l', { subscribedTopicNames: ['cg-ls-t'] }));
    await heartbeat('live member acknowledges', beat(live, 'member-l', a.memberEpoch, assigned(a)));
    const i = await heartbeat('idle member joins', join(idle, 'member-i', { subscribedTopicNames: ['cg-ls-t'] }));
    assert.equal(i.errorCode, ErrorCode.NONE);
    await heartbeat('idle member leaves', beat(idle, 'member-i', -1));
    const subscription = encodeSubscription({ topics: ['cg-ls-t'], userData: null }, 0);
    const joined = await pair.both('JoinGroup', 3, {
      groupId: classic, sessionTimeoutMs: 10_000, rebalanceTimeoutMs: 10_000, memberId: '', groupInstanceId: null, protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: subscription }], reason: null,
    });
    for (const side of SIDES) assert.equal(joined[side].errorCode, ErrorCode.NONE, side);

    const listCases: [string, number, RequestBody<'ListGroups'>][] = [
      ['v3, no filters', 3, {}],
      ['v4, no filters', 4, { statesFilter: [] }],
      ['v4, states Stable and EMPTY', 4, { statesFilter: ['Stable', 'EMPTY'] }],
      ['v4, state CompletingRebalance (classic only)', 4, { statesFilter: [' completingrebalance '] }],
      ['v4, state Assigning/Reconciling (consumer only)', 4, { statesFilter: ['Assigning', 'Reconciling'] }],
      ['v4, unknown state', 4, { statesFilter: ['Sleeping'] }],
      ['v5, no filters', 5, { statesFilter: [], typesFilter: [] }],
      ['v5, type consumer', 5, { statesFilter: [], typesFilter: ['consumer'] }],
      ['v5, type Classic', 5, { statesFilter: [], typesFilter: ['Classic'] }],
      ['v5, types consumer and classic', 5, { statesFilter: [], typesFilter: ['consumer', 'classic'] }],
      ['v5, type share', 5, { statesFilter: [], typesFilter: ['share'] }],
      ['v5, unknown type', 5, { statesFilter: [], typesFilter: ['nope'] }],
      ['v5, type consumer, state empty', 5, { statesFilter: ['empty'], typesFilter: ['CONSUMER'] }],
      ['v5, type classic, state stable', 5, { statesFilter: ['stable'], typesFilter: ['classic'] }],
    ];
    for (const [what, version, body] of listCases) {
      const raw = await pair.both('ListGroups', version, body);
      const only = (r: typeof raw.kafka): typeof raw.kafka => ({ ...r, groups: r.groups.filter((g) => mine(g.groupId)).sort((x, y) => (x.groupId < y.groupId ? -1 : 1)) });
      const { kafka, brook, diffs } = pair.normalize({ kafka: only(raw.kafka), brook: only(raw.brook) });
      assert.deepEqual(diffs, [], `ListGroups ${what}\nkafka: ${JSON.stringify(kafka)}\nbrook: ${JSON.stringify(brook)}`);
    }
    const typed = await pair.conn.kafka.request('ListGroups', 5, { statesFilter: [], typesFilter: [] });
    assert.deepEqual(typed.groups.filter((g) => mine(g.groupId)).map((g) => [g.groupId, g.groupType, g.protocolType]).sort(),
      [[classic, 'classic', 'consumer'], [idle, 'consumer', 'consumer'], [live, 'consumer', 'consumer']]);

    // DescribeGroups (the classic describe) on a consumer group: Kafka 4.4 answers Dead, no
    // error, no members below v6 (its coordinator finds no classic group of that id).
    for (const [version, withOperations] of [[0, false], [3, true], [4, false], [5, false], [5, true], [6, false]] as const) {
      const raw = await pair.both('DescribeGroups', version, { groups: [live, idle, classic, 'cg-ls-unknown'], includeAuthorizedOperations: withOperations });
      // The classic member's id is the broker's own (client id + random UUID).
      const sorted = (r: typeof raw.kafka): typeof raw.kafka => ({
        ...r,
        groups: [...r.groups].sort((x, y) => (x.groupId < y.groupId ? -1 : 1)).map((g) => ({ ...g, members: g.members.map((m) => ({ ...m, memberId: m.memberId.replace(/-[0-9a-f-]{36}$/, '-UUID') })) })),
      });
      const { kafka, brook, diffs } = pair.normalize({ kafka: sorted(raw.kafka), brook: sorted(raw.brook) });
      assert.deepEqual(diffs, [], `DescribeGroups v${version}\nkafka: ${JSON.stringify(kafka)}\nbrook: ${JSON.stringify(brook)}`);
      const liveAnswer = raw.kafka.groups.find((g) => g.groupId === live)!;
      assert.equal(liveAnswer.groupState, 'Dead');
      // v6 (KIP-1043) says why: GROUP_ID_NOT_FOUND, "Group ... is not a classic group."
      assert.equal(errorName(liveAnswer.errorCode), errorName(version >= 6 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.NONE));
    }
    await describeGroups('ConsumerGroupDescribe of the listed groups', [live, idle, classic]);
    const v1 = await describeGroups('ConsumerGroupDescribe v1: a consumer member\'s type', [live]);
    assert.deepEqual(v1.groups[0]!.members.map((m) => m.memberType), v1.groups[0]!.members.map(() => 1));
    await describeGroups('ConsumerGroupDescribe v0 of the listed groups', [live, idle, classic], 0);
    const operations = await pair.both('ConsumerGroupDescribe', 0, { groupIds: [live], includeAuthorizedOperations: true });
    assert.equal(operations.brook.groups[0]!.authorizedOperations, operations.kafka.groups[0]!.authorizedOperations, 'a group\'s authorized operations');
  });

  /**
   * Heartbeats each side (epoch and owned partitions taken from its own last answer) until
   * `done` holds for its answer, then compares the two settled answers.
   */
  async function settle(
    group: string,
    memberId: string,
    done: (r: ConsumerGroupHeartbeatResponseData) => boolean,
    what: string,
    from?: Both<ConsumerGroupHeartbeatResponseData>,
    timeoutMs = 10_000,
  ): Promise<Both<ConsumerGroupHeartbeatResponseData>> {
    const last: Record<Side, ConsumerGroupHeartbeatResponseData | null> = { kafka: from?.kafka ?? null, brook: from?.brook ?? null };
    const current: Record<Side, Owned> = { kafka: from ? assigned(from.kafka) : {}, brook: from ? assigned(from.brook) : {} };
    const epochs: Record<Side, number> = { kafka: from?.kafka.memberEpoch ?? 1, brook: from?.brook.memberEpoch ?? 1 };
    const deadline = Date.now() + timeoutMs;
    // Both sides in turn, so that neither member's session expires while the other settles.
    const settledSides = new Set<Side>();
    while (settledSides.size < SIDES.length) {
      assert.ok(Date.now() < deadline, `${what} not reached; last answers ${JSON.stringify(last)}`);
      await sleep(500);
      for (const side of SIDES) {
        if (settledSides.has(side)) continue;
        const r = await pair.conn[side].request('ConsumerGroupHeartbeat', 1, beat(group, memberId, epochs[side], current[side]));
        assert.equal(r.errorCode, ErrorCode.NONE, `${side}: ${JSON.stringify(r)}`);
        epochs[side] = r.memberEpoch;
        if (r.assignment !== null) current[side] = assigned(r);
        last[side] = r.assignment === null ? { ...r, assignment: { topicPartitions: owned(current[side])! } } : r;
        if (done(last[side]!)) settledSides.add(side);
      }
    }
    const settled = { kafka: last.kafka!, brook: last.brook! };
    const { kafka, brook } = pair.normalize({ kafka: sortHeartbeat(settled.kafka), brook: sortHeartbeat(settled.brook) });
    assert.deepEqual(diffValues(kafka, brook), [], `${what}: settled answers differ`);
    return settled;
  }

  /**
   * Heartbeats every member of `members` on each side (epoch and owned partitions from its own
   * last answer there, starting from what ConsumerGroupDescribe says) until the group is
   * Stable with exactly these members on both sides, then compares the two descriptions.
   */
  async function settleGroup(group: string, members: readonly string[], what: string, timeoutMs = 15_000): Promise<ConsumerGroupDescribeResponseData> {
    const state: Record<Side, Map<string, { epoch: number; owned: Owned }>> = { kafka: new Map(), brook: new Map() };
    const byId = (topicId: string): string => [...topicIds].find(([, id]) => id === topicId)![0];
    for (const side of SIDES) {
      const d = await pair.conn[side].request('ConsumerGroupDescribe', 0, { groupIds: [group], includeAuthorizedOperations: false });
      for (const m of d.groups[0]!.members) {
        const owned: Owned = {};
        for (const t of m.assignment.topicPartitions) owned[byId(t.topicId)] = [...t.partitions].sort();
        state[side].set(m.memberId, { epoch: m.memberEpoch, owned });
      }
    }
    const deadline = Date.now() + timeoutMs;
    const last: Partial<Record<Side, unknown>> = {};
    for (const settledSides = new Set<Side>(); settledSides.size < SIDES.length;) {
      assert.ok(Date.now() < deadline, `${what} not reached; last descriptions ${JSON.stringify(last)}`);
      await sleep(500);
      for (const side of SIDES) {
        if (settledSides.has(side)) continue;
        for (const id of members) {
          const m = state[side].get(id);
          assert.ok(m !== undefined, `${side}: ${id} is not in ${group}`);
          const r = await pair.conn[side].request('ConsumerGroupHeartbeat', 1, beat(group, id, m.epoch, m.owned));
          assert.equal(r.errorCode, ErrorCode.NONE, `${side}, ${id}: ${JSON.stringify(r)}`);
          m.epoch = r.memberEpoch;
          if (r.assignment !== null) m.owned = assigned(r);
        }
        const d = (await pair.conn[side].request('ConsumerGroupDescribe', 0, { groupIds: [group], includeAuthorizedOperations: false })).groups[0]!;
        last[side] = { state: d.groupState, epoch: d.groupEpoch, members: d.members.map((m) => [m.memberId, m.memberEpoch]) };
        if (d.groupState === 'Stable' && d.members.length === members.length) settledSides.add(side);
      }
    }
    return describeGroups(`${what}: settled`, [group]);
  }
});
