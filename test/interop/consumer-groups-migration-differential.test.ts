/**
 * Differential conformance of online migration (group.consumer.migration.policy, Kafka's
 * default bidirectional): the same script of classic (JoinGroup, SyncGroup, Heartbeat,
 * LeaveGroup) and consumer-protocol (ConsumerGroupHeartbeat) requests goes to a real Apache
 * Kafka broker and to Brook, and every answer is compared after the normalisations of
 * test/support/differential/normalize.ts plus:
 *
 *   - member ids the brokers generate are replaced by the name of the scripted member
 *     (K1, K2, ...) they were given to, per broker, and lists of members sorted by name;
 *   - topics and partitions of consumer-protocol assignments (SyncGroup bytes) are decoded
 *     and sorted (Kafka writes them from hash maps); topic ids are made equal (Brook's topic
 *     gets Kafka's id), as in consumer-groups-differential.test.ts.
 *
 * The script: a classic member forms a group; a consumer-protocol member joins it (the
 * upgrade); the classic member rejoins inside the consumer group and syncs its share; a
 * second classic member joins the consumer group; the consumer member leaves (the
 * downgrade); the classic members complete a classic generation. Parking requests go on a
 * connection per member.
 *
 * Needs Java 17+ and Maven (the Kafka jars come from Maven Central on first run).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { kafkaAvailable } from '../support/kafka/kafka-broker.js';
import { DiffPair, type Both, type Side } from '../support/differential/pair.js';
import type { ApiName, RawConnection, RequestBody, ResponseBody } from '../support/kafka/raw-client.js';
import { ErrorCode, errorInfo } from '../../src/protocol/errors.js';
import { decodeAssignment, encodeAssignment, encodeSubscription } from '../../src/protocol/consumer-protocol.js';

const SIDES: readonly Side[] = ['kafka', 'brook'];
const TOPIC = 'mig-t';
const GROUP = 'mig-g';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const errorName = (code: number): string => `${code} ${errorInfo(code).name}`;
const subscription = (owned: number[] = []): Buffer =>
  encodeSubscription({ topics: [TOPIC], userData: null, ownedPartitions: owned.length === 0 ? [] : [{ topic: TOPIC, partitions: owned }], generationId: -1, rackId: null }, 1);

/** A scripted member: its connection to each broker and the id each gave it. */
interface Member {
  readonly name: string;
  readonly conn: Both<RawConnection>;
  readonly ids: Record<Side, string>;
}

type BodyFn<N extends ApiName> = (side: Side) => RequestBody<N>;

describe('online migration between classic and consumer groups: Brook answers as Apache Kafka', { timeout: 180_000 }, () => {
  let pair: DiffPair;
  const members: Member[] = [];
  const alias: Record<Side, Map<string, string>> = { kafka: new Map(), brook: new Map() };

  before(async () => {
    assert.ok(kafkaAvailable(), 'java 17+ and Maven are needed for the interop suite');
    // The longest assignment interval allowed (KIP-1263's default is 1 s): after the upgrade's
    // target, neither side computes another during the script, so no answer depends on how
    // long the steps before it took on that side (a slow machine once put Brook's K2 join past
    // a 1 s interval, Kafka's not). An interval of 0 does not do: a target computed at K2's
    // join breaks ties between equal members by their generated ids, differently per side.
    pair = await DiffPair.start(
      {
        'auto.create.topics.enable': 'false', 'group.initial.rebalance.delay.ms': '0', 'group.consumer.heartbeat.interval.ms': '1000',
        'group.consumer.min.heartbeat.interval.ms': '1000', 'group.consumer.assignment.interval.ms': '15000',
      },
      {
        autoCreateTopics: false, groupInitialRebalanceDelayMs: 0, groupConsumerHeartbeatIntervalMs: 1000, groupConsumerMinHeartbeatIntervalMs: 1000,
        groupConsumerAssignmentIntervalMs: 15_000,
      },
    );
    for (let i = 0; ; i++) {
      const fc = await pair.conn.kafka.request('FindCoordinator', 4, { key: '', keyType: 0, coordinatorKeys: [GROUP] });
      const d = await pair.conn.kafka.request('ConsumerGroupDescribe', 0, { groupIds: [GROUP], includeAuthorizedOperations: false });
      if ((fc.coordinators ?? []).every((c) => c.errorCode === 0) && d.groups[0]?.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) break;
      if (i > 300) throw new Error(`Kafka's group coordinator did not load\n${pair.kafkaBroker.logTail(30)}`);
      await sleep(50);
    }
    const res = await pair.conn.kafka.request('CreateTopics', 7, { topics: [{ name: TOPIC, numPartitions: 4, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000, validateOnly: false });
    const topicId = res.topics[0]!.topicId!;
    await pair.waitForKafkaTopic(TOPIC, 4);
    pair.brookBroker.createTopic(TOPIC, 4, { topicId });
    for (const side of SIDES) pair.normaliser[side].registerTopic(TOPIC, topicId);
  });

  after(async () => {
    for (const m of members) {
      m.conn.kafka.close();
      m.conn.brook.close();
    }
    await pair?.stop();
  });

  async function member(name: string): Promise<Member> {
    const [kafka, brook] = await Promise.all([pair.connect('kafka'), pair.connect('brook')]);
    const m = { name, conn: { kafka, brook }, ids: { kafka: '', brook: '' } };
    members.push(m);
    return m;
  }

  function learn(m: Member, side: Side, id: string): void {
    if (id === '' || alias[side].has(id)) return;
    alias[side].set(id, m.name);
    m.ids[side] = id;
  }

  /** Member ids to names, assignments decoded, member lists sorted by name. */
  function comparable(side: Side, value: unknown, key = ''): unknown {
    if (typeof value === 'string') return alias[side].get(value) ?? value;
    if (Buffer.isBuffer(value)) {
      if (key !== 'assignment' || value.length === 0) return value;
      const a = decodeAssignment(value);
      return { version: a.version, partitions: a.assignment.assignedPartitions.map((t) => ({ topic: t.topic, partitions: [...t.partitions].sort() })).sort((x, y) => (x.topic < y.topic ? -1 : 1)) };
    }
    if (Array.isArray(value)) {
      const out = value.map((v) => comparable(side, v, key));
      const name = (v: unknown): string => String((v as Record<string, unknown>)?.['memberId'] ?? (v as Record<string, unknown>)?.['topicId'] ?? '');
      if (['members', 'topicPartitions'].includes(key)) out.sort((a, b) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0));
      if (key === 'partitions') out.sort();
      return out;
    }
    if (value === null || typeof value !== 'object' || typeof value === 'bigint') return value;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = comparable(side, v, k);
    return out;
  }

  /** Sends on `m`'s connections (or the shared ones) to both, compares, returns both answers. */
  async function step<N extends ApiName>(what: string, m: Member | null, api: N, version: number, body: BodyFn<N>): Promise<Both<ResponseBody<N>>> {
    const [kafka, brook] = await Promise.all(SIDES.map((side) => (m ? m.conn[side] : pair.conn[side]).request(api, version, body(side))));
    const raw = { kafka: kafka as ResponseBody<N>, brook: brook as ResponseBody<N> };
    if (m !== null && (api === 'JoinGroup' || api === 'ConsumerGroupHeartbeat')) {
      for (const side of SIDES) learn(m, side, (raw[side] as { memberId: string | null }).memberId ?? '');
    }
    const { diffs } = pair.normalize({ kafka: comparable('kafka', raw.kafka), brook: comparable('brook', raw.brook) });
    assert.deepEqual(diffs, [], `${what}: Brook differs from Kafka:\n  ${diffs.join('\n  ')}\nkafka: ${JSON.stringify(comparable('kafka', raw.kafka))}\nbrook: ${JSON.stringify(comparable('brook', raw.brook))}`);
    return raw;
  }

  const join = (m: Member, owned: number[] = []): BodyFn<'JoinGroup'> => (side) => ({
    groupId: GROUP, sessionTimeoutMs: 30_000, rebalanceTimeoutMs: 30_000, memberId: m.ids[side], groupInstanceId: null,
    protocolType: 'consumer', protocols: [{ name: 'range', metadata: subscription(owned) }], reason: null,
  });
  const sync = (m: Member, generationId: number, assignments: Record<string, number[]> = {}): BodyFn<'SyncGroup'> => (side) => ({
    groupId: GROUP, generationId, memberId: m.ids[side], groupInstanceId: null, protocolType: 'consumer', protocolName: 'range',
    assignments: Object.entries(assignments).map(([name, partitions]) => ({
      memberId: members.find((x) => x.name === name)!.ids[side],
      assignment: encodeAssignment({ assignedPartitions: [{ topic: TOPIC, partitions }], userData: null }, 1),
    })),
  });
  const classicHeartbeat = (m: Member, generationId: number): BodyFn<'Heartbeat'> => (side) => ({ groupId: GROUP, generationId, memberId: m.ids[side], groupInstanceId: null });
  const cgHeartbeat = (memberId: string, memberEpoch: number, o: Partial<RequestBody<'ConsumerGroupHeartbeat'>> = {}): BodyFn<'ConsumerGroupHeartbeat'> => () => ({
    groupId: GROUP, memberId, memberEpoch, instanceId: null, rackId: null, rebalanceTimeoutMs: -1, subscribedTopicNames: null,
    subscribedTopicRegex: null, serverAssignor: null, topicPartitions: null, ...o,
  });
  const describeBoth = async (what: string): Promise<void> => {
    // ConsumerGroupDescribe v1 gives each member's type (KIP-1099: 0 classic, 1 consumer);
    // DescribeGroups v6 answers GROUP_ID_NOT_FOUND for a group that is not a classic one.
    for (const version of [0, 1]) await step(`${what}: ConsumerGroupDescribe v${version}`, null, 'ConsumerGroupDescribe', version, () => ({ groupIds: [GROUP], includeAuthorizedOperations: false }));
    for (const version of [5, 6]) await step(`${what}: DescribeGroups v${version}`, null, 'DescribeGroups', version, () => ({ groups: [GROUP], includeAuthorizedOperations: false }));
    await step(`${what}: ListGroups`, null, 'ListGroups', 5, () => ({ statesFilter: [], typesFilter: [] }));
  };

  it('a classic group is upgraded by a consumer member, takes a classic member in, and is downgraded when the consumer member leaves', async () => {
    const k1 = await member('K1');
    const k2 = await member('K2');
    const c = await member('C');

    // A classic member forms the group: generation 1, all four partitions.
    const required = await step('K1 joins without an id', k1, 'JoinGroup', 9, join(k1));
    assert.equal(errorName(required.kafka.errorCode), errorName(ErrorCode.MEMBER_ID_REQUIRED));
    const formed = await step('K1 joins with its id', k1, 'JoinGroup', 9, join(k1));
    assert.equal(formed.kafka.generationId, 1);
    await step('K1 syncs as leader', k1, 'SyncGroup', 5, sync(k1, 1, { K1: [0, 1, 2, 3] }));
    await describeBoth('a classic group');

    // The upgrade: C joins with the consumer protocol.
    const cJoin = await step('C joins the classic group (upgrade)', c, 'ConsumerGroupHeartbeat', 1, cgHeartbeat('member-c', 0, { rebalanceTimeoutMs: 30_000, subscribedTopicNames: [TOPIC], topicPartitions: [] }));
    assert.equal(cJoin.kafka.memberEpoch, 2);
    await describeBoth('upgraded');
    const told = await step('K1 heartbeats at generation 1', k1, 'Heartbeat', 4, classicHeartbeat(k1, 1));
    assert.equal(errorName(told.kafka.errorCode), errorName(ErrorCode.REBALANCE_IN_PROGRESS));

    // K1 rejoins inside the consumer group (eager: owning nothing) and syncs its share.
    const rejoined = await step('K1 rejoins the consumer group', k1, 'JoinGroup', 9, join(k1));
    assert.equal(rejoined.kafka.generationId, 2);
    await step('K1 syncs inside the consumer group', k1, 'SyncGroup', 5, sync(k1, 2));
    await step('C gets what K1 released', c, 'ConsumerGroupHeartbeat', 1, cgHeartbeat('member-c', 2, { topicPartitions: [] }));
    await step('K1 heartbeats at its epoch', k1, 'Heartbeat', 4, classicHeartbeat(k1, 2));

    // A second classic member joins the consumer group.
    await step('K2 joins without an id', k2, 'JoinGroup', 9, join(k2));
    const k2Join = await step('K2 joins the consumer group', k2, 'JoinGroup', 9, join(k2));
    await step('K2 syncs', k2, 'SyncGroup', 5, sync(k2, k2Join.kafka.generationId));
    await describeBoth('two classic members and a consumer member');

    // The downgrade: the last consumer-protocol member leaves; the classic group takes the
    // consumer group's epoch as its generation.
    const epoch = (await pair.conn.kafka.request('ConsumerGroupDescribe', 0, { groupIds: [GROUP], includeAuthorizedOperations: false })).groups[0]!.groupEpoch;
    await step('C leaves (downgrade)', c, 'ConsumerGroupHeartbeat', 1, cgHeartbeat('member-c', -1));
    await describeBoth('downgraded');
    const told2 = await step('K1 heartbeats in the classic group', k1, 'Heartbeat', 4, classicHeartbeat(k1, epoch));
    assert.equal(errorName(told2.kafka.errorCode), errorName(ErrorCode.REBALANCE_IN_PROGRESS));
    // The classic members complete a generation of their own. Which of them leads is the
    // first of a hash map in Kafka, the oldest member in Brook (G1 of groups-differential):
    // compared by generation and error only.
    const joins = await Promise.all([k1, k2].map((m) => Promise.all(SIDES.map((side) => m.conn[side].request('JoinGroup', 9, join(m)(side))))));
    for (const [kafka, brook] of joins) {
      assert.deepEqual([brook.errorCode, brook.generationId, brook.protocolName], [kafka.errorCode, kafka.generationId, kafka.protocolName]);
      assert.equal(kafka.generationId, epoch + 1);
    }
  });
});
