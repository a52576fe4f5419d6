/**
 * Brook's server-side assignors of KIP-848 consumer groups against Apache Kafka's own
 * (kafka-group-coordinator's UniformAssignor, with its homogeneous and heterogeneous
 * builders, and RangeAssignor), and of KIP-932 share groups (SimpleAssignor, both builders,
 * with partitions that may not be assigned yet), run by test/support/java ServerAssignorOracle on the same
 * group specs: random topics, members and subscriptions, then several rounds in which
 * members come and go and change subscriptions, each round starting from the previous
 * round's result. The assignments must be equal, and listed in the same order: the uniform
 * assignor's outcome depends on Java's hash iteration order (members, topic ids,
 * partitions), which Brook reproduces (src/coordinator/consumer/java-hash.ts).
 *
 * Needs Java 17+ and Maven.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { toTopicPartitions } from '../../src/coordinator/consumer/assignment.js';
import { BUILTIN_ASSIGNORS } from '../../src/coordinator/consumer/assignors/index.js';
import { SHARE_ASSIGNORS } from '../../src/coordinator/share/assignors/index.js';
import { subscriptionType } from '../../src/coordinator/consumer/subscription.js';
import { kafkaServerAssignments, type KafkaServerAssignRequest } from '../support/java-oracle.js';
import { groupSpecOf, sortedAssignment, type TopicAssignments } from '../support/server-assignors.js';

/** A small deterministic PRNG (mulberry32), so a failure names its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Member {
  memberId: string;
  instanceId: string | null;
  topics: string[];
  assignment: { topicId: string; partitions: number[] }[];
}

interface Scenario {
  assignor: 'uniform' | 'range' | 'simple';
  partitions: Record<string, number>;
  members: Member[];
  /** Share groups: the partitions that may be assigned (absent: all). */
  assignable?: Record<string, number[]>;
}

function randomScenario(random: () => number, assignor: Scenario['assignor'], maxPartitions = 12): Scenario {
  const topicCount = 1 + Math.floor(random() * 4);
  const partitions: Record<string, number> = {};
  for (let i = 0; i < topicCount; i++) partitions[randomBytes(16).toString('base64url')] = 1 + Math.floor(random() * maxPartitions);
  return { assignor, partitions, members: [] };
}

function newMember(random: () => number, topics: string[], homogeneous: boolean, all: string[]): Member {
  const id = random() < 0.5 ? randomBytes(16).toString('base64url') : `consumer-${Math.floor(random() * 1000)}-${randomBytes(3).toString('hex')}`;
  const subscribed = homogeneous ? topics : all.filter(() => random() < 0.6);
  return { memberId: id, instanceId: random() < 0.3 ? `instance-${id.slice(0, 4)}` : null, topics: subscribed.length > 0 ? subscribed : [all[0]!], assignment: [] };
}

function request(s: Scenario): KafkaServerAssignRequest {
  const byName = new Map<string, { byName: number; byRegex: number }>();
  for (const m of s.members) for (const t of m.topics) byName.set(t, { byName: (byName.get(t)?.byName ?? 0) + 1, byRegex: 0 });
  return {
    assignor: s.assignor,
    subscriptionType: subscriptionType(new Map(), byName, s.members.length),
    partitions: s.partitions,
    members: s.members.map((m) => ({ memberId: m.memberId, instanceId: m.instanceId, rackId: null, subscribedTopicIds: m.topics, assignment: m.assignment })),
    ...(s.assignable !== undefined ? { assignable: s.assignable } : {}),
  };
}

/** Brook's assignor on the spec Kafka's TargetAssignmentBuilder would build. */
function brookAssign(req: KafkaServerAssignRequest): TopicAssignments {
  const topics = { numPartitions: (t: string): number => req.partitions[t] ?? -1 };
  const result = req.assignor === 'simple'
    ? SHARE_ASSIGNORS.get('simple')!.assign({ ...groupSpecOf(req), isPartitionAssignable: (t, p) => req.assignable === undefined || (req.assignable[t]?.includes(p) ?? false) }, topics)
    : BUILTIN_ASSIGNORS.get(req.assignor)!.assign(groupSpecOf(req), topics);
  return new Map([...result].map(([id, a]) => [id, toTopicPartitions(a)]));
}

/** The next round: some members leave, some join, some change subscriptions. */
function mutate(random: () => number, s: Scenario, homogeneous: boolean, round: number, large = false): void {
  const all = Object.keys(s.partitions);
  if (round === 0) {
    const n = 1 + Math.floor(random() * (large ? 2 : 6));
    for (let i = 0; i < n; i++) s.members.push(newMember(random, all, homogeneous, all));
    return;
  }
  if (s.members.length > 1 && random() < 0.5) s.members.splice(Math.floor(random() * s.members.length), 1);
  // Large groups: members join a few at a time, so members holding many partitions give up many.
  const joining = large ? Math.floor(random() * 8) : random() < 0.6 ? 1 : 0;
  for (let i = 0; i < joining; i++) s.members.push(newMember(random, s.members[0]?.topics ?? all, homogeneous, all));
  if (!homogeneous && random() < 0.5 && s.members.length > 0) {
    const m = s.members[Math.floor(random() * s.members.length)]!;
    m.topics = all.filter(() => random() < 0.6);
    if (m.topics.length === 0) m.topics = [all[all.length - 1]!];
  }
}

describe("server-side assignors: Brook's equal Kafka's", { timeout: 180_000 }, () => {
  const cases = [
    ...(['uniform', 'range'] as const).flatMap((assignor) => [true, false].map((homogeneous) => ({ assignor, homogeneous, large: false }))),
    // Partition sets past the size where Brook's ordered sets index their keys, and members
    // giving up most of theirs at once (the sets' compaction).
    ...[true, false].map((homogeneous) => ({ assignor: 'uniform' as const, homogeneous, large: true })),
  ];
  for (const { assignor, homogeneous, large } of cases) {
    it(`${assignor}, ${homogeneous ? 'homogeneous' : 'heterogeneous'} subscriptions${large ? ', up to 300 partitions a topic, members joining a few at a time' : ''}: 40 groups over 5 rounds give Kafka's assignments, in Kafka's order`, async () => {
      const seed = Date.now() >>> 0;
      const random = prng(seed);
      const scenarios = Array.from({ length: 40 }, () => randomScenario(random, assignor, large ? 300 : 12));
      let compared = 0;
      for (let round = 0; round < 5; round++) {
        for (const s of scenarios) mutate(random, s, homogeneous, round, large);
        const requests = scenarios.map(request);
        const kafka = await kafkaServerAssignments(requests);
        requests.forEach((req, i) => {
          const brook = brookAssign(req);
          const expected = kafka[i]!;
          const where = `seed ${seed}, round ${round}, group ${i}: ${JSON.stringify(req)}`;
          assert.deepEqual(sortedAssignment(brook), sortedAssignment(expected), `assignments differ: ${where}`);
          assert.deepEqual(new Map([...brook].sort()), new Map([...expected].sort()), `same assignments, listed in another order: ${where}`);
          compared++;
          // The next round starts from this one's targets, as Kafka replays them from records.
          for (const m of scenarios[i]!.members) m.assignment = expected.get(m.memberId) ?? [];
        });
      }
      assert.equal(compared, 200);
    });
  }
});

describe("share groups' simple assignor: Brook's equals Kafka's", { timeout: 180_000 }, () => {
  // Crowded groups: more members than partitions, so partitions are shared among members.
  const cases = [true, false].flatMap((homogeneous) => [false, true].map((crowded) => ({ homogeneous, crowded })));
  for (const { homogeneous, crowded } of cases) {
    it(`simple, ${homogeneous ? 'homogeneous' : 'heterogeneous'} subscriptions${crowded ? ', more members than partitions' : ''}, some partitions not assignable: 40 groups over 5 rounds give Kafka's assignments`, async () => {
      const seed = Date.now() >>> 0;
      const random = prng(seed);
      const scenarios = Array.from({ length: 40 }, () => {
        const s = randomScenario(random, 'simple', crowded ? 3 : 12);
        // A share group assigns only partitions whose share state is initialized.
        if (random() < 0.4) s.assignable = Object.fromEntries(Object.entries(s.partitions).map(([t, n]) => [t, Array.from({ length: n }, (_, p) => p).filter(() => random() < 0.7)]));
        return s;
      });
      let compared = 0;
      for (let round = 0; round < 5; round++) {
        for (const s of scenarios) mutate(random, s, homogeneous, round, crowded);
        const requests = scenarios.map(request);
        const kafka = await kafkaServerAssignments(requests);
        requests.forEach((req, i) => {
          const brook = brookAssign(req);
          const expected = kafka[i]!;
          assert.deepEqual(sortedAssignment(brook), sortedAssignment(expected), `assignments differ: seed ${seed}, round ${round}, group ${i}: ${JSON.stringify(req)}`);
          compared++;
          for (const m of scenarios[i]!.members) m.assignment = expected.get(m.memberId) ?? [];
        });
      }
      assert.equal(compared, 200);
    });
  }
});
