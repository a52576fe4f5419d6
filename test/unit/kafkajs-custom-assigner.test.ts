/**
 * A custom partition assigner written as KafkaJS's documentation shows (a factory of
 * { name, version, protocol({ topics }), assign({ members, topics }) } using `cluster` and
 * AssignerProtocol), given to KafkaJS 2.2.4 consumers and to brook/kafkajs consumers of one
 * group: the group runs it (its protocol name is the group's) and the assignment is the one the
 * assigner's rule gives, whichever kind of member leads. The rule (members ordered by a priority
 * each one writes in its metadata's userData, then contiguous ranges of each topic's
 * partitions) differs from round robin, and needs the metadata and userData of every member to
 * cross between KafkaJS and Brook in both directions.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel, AssignerProtocol, PartitionAssigners, type KafkaJSConsumer } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { until as untilValue } from '../support/clients/run.js';

const T = { timeout: 120_000 };
const TOPIC = 'prioritized';
const PARTITIONS = 5;
const GROUP = 'custom-assigner-group';

function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<true> {
  return untilValue(what, timeoutMs, async () => ((await condition()) ? true : undefined));
}

type Protocol = typeof AssignerProtocol;
interface Cluster { findTopicPartitionMetadata(topic: string): { partitionId: number }[] }

/** The application's assigner, as in KafkaJS's docs; `protocol` is the AssignerProtocol of the package it imports. */
const priorityAssigner = (protocol: Protocol, priority: number) => ({ cluster }: { cluster: Cluster }) => ({
  name: 'PriorityAssigner',
  version: 1,
  async assign({ members, topics }: { members: { memberId: string; memberMetadata: Buffer }[]; topics: string[] }) {
    const ranked = members
      .map(({ memberId, memberMetadata }) => ({ memberId, priority: Number(protocol.MemberMetadata.decode(memberMetadata).userData.toString()) }))
      .sort((a, b) => b.priority - a.priority || (a.memberId < b.memberId ? -1 : 1));
    const assignment: Record<string, Record<string, number[]>> = {};
    for (const topic of topics) {
      const partitions = cluster.findTopicPartitionMetadata(topic).map((m) => m.partitionId).sort((a, b) => a - b);
      const size = Math.ceil(partitions.length / ranked.length);
      ranked.forEach(({ memberId }, i) => {
        const mine = partitions.slice(i * size, (i + 1) * size);
        if (mine.length > 0) (assignment[memberId] ??= {})[topic] = mine;
      });
    }
    return Object.keys(assignment).map((memberId) => ({
      memberId,
      memberAssignment: protocol.MemberAssignment.encode({ version: this.version, assignment: assignment[memberId]! }),
    }));
  },
  protocol({ topics }: { topics: string[] }) {
    return { name: this.name, metadata: protocol.MemberMetadata.encode({ version: this.version, topics, userData: Buffer.from(String(priority)) }) };
  },
});

test('a custom KafkaJS assigner runs the same in KafkaJS and brook/kafkajs members, whichever leads', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const theirs = (clientId: string): real.Kafka => new real.Kafka({ brokers: [broker.bootstrap], clientId, logLevel: real.logLevel.NOTHING });
  const admin = theirs('admin').admin();
  await admin.connect();
  cleanup.add('admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: TOPIC, numPartitions: PARTITIONS }] });

  const joins: { who: string; leader: boolean; protocol: string }[] = [];
  const crashes: string[] = [];
  const startTheirs = async (clientId: string, priority: number): Promise<real.Consumer> => {
    const c = theirs(clientId).consumer({
      groupId: GROUP, heartbeatInterval: 100, maxWaitTimeInMs: 100,
      partitionAssigners: [priorityAssigner(real.AssignerProtocol as unknown as Protocol, priority) as unknown as real.PartitionAssigner, real.PartitionAssigners.roundRobin],
    });
    c.on(c.events.GROUP_JOIN, (e) => joins.push({ who: clientId, leader: e.payload.isLeader, protocol: e.payload.groupProtocol }));
    c.on(c.events.CRASH, (e) => crashes.push(`${clientId}: ${e.payload.error.message}`));
    await c.connect();
    await c.subscribe({ topics: [TOPIC] });
    await c.run({ eachMessage: async () => undefined });
    return c;
  };
  const startOurs = async (clientId: string, priority: number): Promise<KafkaJSConsumer> => {
    const c = new Kafka({ brokers: [broker.bootstrap], clientId, logLevel: logLevel.NOTHING }).consumer({
      groupId: GROUP, heartbeatInterval: 100, maxWaitTimeInMs: 100,
      partitionAssigners: [priorityAssigner(AssignerProtocol, priority) as never, PartitionAssigners.roundRobin],
    });
    cleanup.add(clientId, () => c.disconnect());
    c.on(c.events.GROUP_JOIN, (e) => {
      const p = e.payload as { isLeader: boolean; groupProtocol: string };
      joins.push({ who: clientId, leader: p.isLeader, protocol: p.groupProtocol });
    });
    c.on(c.events.CRASH, (e) => crashes.push(`${clientId}: ${(e.payload as { error: Error }).error.message}`));
    await c.connect();
    await c.subscribe({ topics: [TOPIC] });
    await c.run({ eachMessage: async () => undefined });
    return c;
  };
  /** Client id → partitions, once the group is stable with exactly these members. */
  const assignmentOf = async (clientIds: string[]): Promise<Record<string, number[]>> => {
    let seen: Record<string, number[]> = {};
    await until(async () => {
      const { groups: [g] } = await admin.describeGroups([GROUP]);
      if (!g || g.state !== 'Stable' || g.members.length !== clientIds.length) return false;
      assert.equal(g.protocol, 'PriorityAssigner');
      seen = Object.fromEntries(g.members.map((m) => [m.clientId, real.AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment[TOPIC] ?? []]));
      return clientIds.every((id) => id in seen) && Object.values(seen).flat().length === PARTITIONS;
    }, 60_000, `a stable group of ${clientIds.join(', ')}`);
    return seen;
  };
  const lastJoin = (who: string): { leader: boolean; protocol: string } | undefined => joins.filter((j) => j.who === who).at(-1);

  // KafkaJS leads: it joined first, alone.
  const k1 = await startTheirs('kafkajs-1', 1);
  await until(() => lastJoin('kafkajs-1')?.leader === true, 30_000, 'KafkaJS leads');
  const b1 = await startOurs('brook-1', 2);
  assert.deepEqual(await assignmentOf(['kafkajs-1', 'brook-1']), { 'brook-1': [0, 1, 2], 'kafkajs-1': [3, 4] });
  await until(() => lastJoin('brook-1') !== undefined, 30_000, 'brook/kafkajs joined');
  assert.equal(lastJoin('kafkajs-1')!.leader, true);
  assert.equal(lastJoin('brook-1')!.leader, false);

  // brook/kafkajs leads: KafkaJS left, a new KafkaJS member of a higher priority joins.
  await k1.disconnect();
  await assignmentOf(['brook-1']);
  const k2 = await startTheirs('kafkajs-2', 3);
  cleanup.add('kafkajs-2', () => k2.disconnect());
  assert.deepEqual(await assignmentOf(['kafkajs-2', 'brook-1']), { 'kafkajs-2': [0, 1, 2], 'brook-1': [3, 4] });
  await until(() => lastJoin('kafkajs-2') !== undefined, 30_000, 'KafkaJS joined');
  assert.equal(lastJoin('brook-1')!.leader, true);
  assert.equal(lastJoin('kafkajs-2')!.leader, false);

  // A third member, brook/kafkajs again, still under a brook/kafkajs leader: 5 partitions over 3 by priority.
  const b2 = await startOurs('brook-2', 0);
  assert.deepEqual(await assignmentOf(['kafkajs-2', 'brook-1', 'brook-2']), { 'kafkajs-2': [0, 1], 'brook-1': [2, 3], 'brook-2': [4] });
  assert.ok(joins.every((j) => j.protocol === 'PriorityAssigner'), JSON.stringify(joins));
  assert.deepEqual(crashes, []);
  await b2.disconnect();
  await b1.disconnect();
});
