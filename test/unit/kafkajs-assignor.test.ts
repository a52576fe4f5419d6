/**
 * KafkaJS's RoundRobinAssigner as a Brook assignor, against KafkaJS 2.2.4's own assigner
 * (the oracle) for groups whose members subscribe to the same topics, as KafkaJS requires:
 * the same partitions for every member, and the subscription and assignment bytes each side
 * writes are read by the other's decoder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { assignKafkaJsRoundRobin, KafkaJsRoundRobinAssignor } from '../../src/assignors/index.js';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from '../../src/protocol/consumer-protocol.js';
import { AssignerProtocol, PartitionAssigners } from '../../src/kafkajs/index.js';

const T = { timeout: 30_000 };

/** A small deterministic generator (no Math.random: the cases are the same on every run). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

test('the same assignment as KafkaJS 2.2.4 RoundRobinAssigner', T, async () => {
  const rnd = lcg(7);
  for (let round = 0; round < 200; round++) {
    const topicCount = 1 + Math.floor(rnd() * 4);
    const topics = Array.from({ length: topicCount }, (_, i) => `t${String.fromCharCode(97 + Math.floor(rnd() * 26))}${i}`);
    const counts = new Map(topics.map((t) => [t, 1 + Math.floor(rnd() * 9)]));
    const memberCount = 1 + Math.floor(rnd() * 6);
    const members = Array.from({ length: memberCount }, (_, i) => `${rnd() < 0.5 ? 'kafkajs' : 'brook'}-${Math.floor(rnd() * 1e6)}-${i}`);
    const cluster = { findTopicPartitionMetadata: (topic: string) => Array.from({ length: counts.get(topic)! }, (_, partitionId) => ({ partitionId })) };
    const theirs = real.PartitionAssigners.roundRobin({ cluster } as never);
    const expected = await theirs.assign({ members: members.map((memberId) => ({ memberId, memberMetadata: Buffer.alloc(0) })), topics });
    const got = assignKafkaJsRoundRobin({
      members: members.map((memberId) => ({ memberId, groupInstanceId: null, topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null })),
      partitionsPerTopic: counts,
    });
    for (const memberId of members) {
      const e = expected.find((x) => x.memberId === memberId);
      const want = e ? real.AssignerProtocol.MemberAssignment.decode(e.memberAssignment)!.assignment : {};
      const mine: Record<string, number[]> = {};
      for (const tp of got.get(memberId)!.partitions) (mine[tp.topic] ??= []).push(tp.partition);
      assert.deepEqual(mine, want, `round ${round}, member ${memberId}`);
    }
  }
});

test('members subscribed to different topics get only partitions of their topics', T, () => {
  const got = assignKafkaJsRoundRobin({
    members: [
      { memberId: 'a', groupInstanceId: null, topics: ['x'], userData: null, ownedPartitions: [], generationId: -1, rackId: null },
      { memberId: 'b', groupInstanceId: null, topics: ['x', 'y'], userData: null, ownedPartitions: [], generationId: -1, rackId: null },
    ],
    partitionsPerTopic: new Map([['x', 2], ['y', 2]]),
  });
  assert.deepEqual(got.get('a')!.partitions, [{ topic: 'x', partition: 0 }]);
  assert.deepEqual(got.get('b')!.partitions, [{ topic: 'x', partition: 1 }, { topic: 'y', partition: 0 }, { topic: 'y', partition: 1 }]);
});

test('subscription and assignment bytes cross between KafkaJS and Brook', T, () => {
  const assignor = new KafkaJsRoundRobinAssignor();
  assert.equal(assignor.name, real.PartitionAssigners.roundRobin({ cluster: {} } as never).name);
  // KafkaJS's JoinGroup metadata, read by Brook's decoder.
  const theirs = real.AssignerProtocol.MemberMetadata.encode({ version: 0, topics: ['a', 'b'], userData: Buffer.alloc(0) });
  assert.deepEqual(decodeSubscription(theirs).subscription.topics, ['a', 'b']);
  // Brook's (latest version) subscription, read by KafkaJS's decoder.
  const ours = encodeSubscription({ topics: ['a', 'b'], userData: null, ownedPartitions: [{ topic: 'a', partitions: [1] }], generationId: 3, rackId: null });
  assert.deepEqual(real.AssignerProtocol.MemberMetadata.decode(ours)!.topics, ['a', 'b']);
  // Assignments both ways.
  const mine = encodeAssignment({ assignedPartitions: [{ topic: 'a', partitions: [0, 2] }], userData: null });
  assert.deepEqual(real.AssignerProtocol.MemberAssignment.decode(mine)!.assignment, { a: [0, 2] });
  const kafkajs = real.AssignerProtocol.MemberAssignment.encode({ version: 0, assignment: { a: [1], b: [0] }, userData: Buffer.alloc(0) });
  assert.deepEqual(decodeAssignment(kafkajs).assignment.assignedPartitions, [{ topic: 'a', partitions: [1] }, { topic: 'b', partitions: [0] }]);
});

test('AssignerProtocol writes the bytes KafkaJS writes and reads them back, at every version', T, () => {
  // KafkaJS writes the version its assigner names and version 0's fields after it, whatever the version.
  for (const version of [0, 1, 3]) {
    const metadata = { version, topics: ['a', 'bb'], userData: Buffer.from([1, 2]) };
    assert.deepEqual(AssignerProtocol.MemberMetadata.encode(metadata), real.AssignerProtocol.MemberMetadata.encode(metadata));
    assert.deepEqual(AssignerProtocol.MemberMetadata.decode(real.AssignerProtocol.MemberMetadata.encode(metadata)), real.AssignerProtocol.MemberMetadata.decode(real.AssignerProtocol.MemberMetadata.encode(metadata)));
    const assignment = { version, assignment: { a: [0, 3], bb: [1] }, userData: Buffer.alloc(0) };
    assert.deepEqual(AssignerProtocol.MemberAssignment.encode(assignment), real.AssignerProtocol.MemberAssignment.encode(assignment));
    assert.deepEqual(AssignerProtocol.MemberAssignment.decode(real.AssignerProtocol.MemberAssignment.encode(assignment)), real.AssignerProtocol.MemberAssignment.decode(real.AssignerProtocol.MemberAssignment.encode(assignment)));
  }
  assert.equal(AssignerProtocol.MemberAssignment.decode(Buffer.alloc(0)), real.AssignerProtocol.MemberAssignment.decode(Buffer.alloc(0)));
});

test('PartitionAssigners.roundRobin called as a KafkaJS factory assigns as KafkaJS 2.2.4 RoundRobinAssigner', T, async () => {
  const rnd = lcg(11);
  for (let round = 0; round < 50; round++) {
    const topics = Array.from({ length: 1 + Math.floor(rnd() * 3) }, (_, i) => `t${i}`);
    const counts = new Map(topics.map((t) => [t, 1 + Math.floor(rnd() * 7)]));
    const cluster = { findTopicPartitionMetadata: (topic: string) => Array.from({ length: counts.get(topic)! }, (_, partitionId) => ({ partitionId })) };
    const members = Array.from({ length: 1 + Math.floor(rnd() * 5) }, (_, i) => ({
      memberId: `m-${Math.floor(rnd() * 1e6)}-${i}`,
      memberMetadata: real.AssignerProtocol.MemberMetadata.encode({ version: 0, topics, userData: Buffer.alloc(0) }),
    }));
    const ours = PartitionAssigners.roundRobin({ cluster: cluster as never, groupId: 'g', logger: null as never });
    const theirs = real.PartitionAssigners.roundRobin({ cluster: cluster as never, groupId: 'g', logger: null as never });
    assert.equal(ours.name, theirs.name);
    assert.deepEqual(ours.protocol({ topics }).metadata, theirs.protocol({ topics }).metadata);
    const decode = (plan: { memberId: string; memberAssignment: Buffer }[]): Record<string, unknown> =>
      Object.fromEntries(plan.map((p) => [p.memberId, real.AssignerProtocol.MemberAssignment.decode(p.memberAssignment)?.assignment]).filter(([, a]) => a && Object.keys(a).length > 0));
    assert.deepEqual(decode(await ours.assign({ members, topics })), decode(await theirs.assign({ members, topics })));
  }
});
