/**
 * The share groups' simple assignor on hand-made groups. The expected assignments are what
 * Apache Kafka 4.4's SimpleAssignor returned for the same group specs (through the Java oracle,
 * test/support/java ServerAssignorOracle); the interop test server-assignors-java.test.ts
 * compares the two on random groups.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assignmentFromRecord, toTopicPartitions } from '../../src/coordinator/consumer/assignment.js';
import type { MemberSubscriptionSpec } from '../../src/coordinator/consumer/assignors/index.js';
import { simpleAssignor, type ShareGroupSpec } from '../../src/coordinator/share/assignors/index.js';

const T1 = 'AAAAAAAAAAAAAAAAAAAAAQ';
const T2 = 'AAAAAAAAAAAAAAAAAAAAAg';

interface MemberInput {
  readonly topics: string[];
  readonly assignment?: { topicId: string; partitions: number[] }[];
}

/** Members in the order given (these ids iterate in that order in Java's HashMap too). */
function spec(members: Record<string, MemberInput>, assignable?: Record<string, number[]>): ShareGroupSpec {
  const specs = new Map<string, MemberSubscriptionSpec>(Object.entries(members).map(([id, m]) => [id, {
    instanceId: null, rackId: null, subscribedTopicIds: m.topics, assignment: assignmentFromRecord(m.assignment ?? []),
  }]));
  const topicSets = new Set([...specs.values()].map((m) => m.subscribedTopicIds.join(',')));
  return {
    members: specs,
    subscriptionType: topicSets.size <= 1 ? 'homogeneous' : 'heterogeneous',
    isPartitionAssigned: () => false,
    isPartitionAssignable: (t, p) => assignable === undefined || (assignable[t]?.includes(p) ?? false),
  };
}

function assign(s: ShareGroupSpec, partitions: Record<string, number>): Record<string, Record<string, number[]>> {
  const result = simpleAssignor.assign(s, { numPartitions: (t) => partitions[t] ?? -1 });
  return Object.fromEntries([...result].map(([id, a]) => [id, Object.fromEntries(toTopicPartitions(a).map((t) => [t.topicId, [...t.partitions].sort((x, y) => x - y)]))]));
}

test('more members than partitions: each partition shared, the members spread over them', () => {
  const members = Object.fromEntries(['m1', 'm2', 'm3', 'm4', 'm5'].map((id) => [id, { topics: [T1] }]));
  assert.deepEqual(assign(spec(members), { [T1]: 2 }), {
    m1: { [T1]: [0, 1] }, m2: { [T1]: [1] }, m3: { [T1]: [1] }, m4: { [T1]: [0] }, m5: { [T1]: [0] },
  });
});

test('a member joining takes over part of what the other had', () => {
  const members = { a: { topics: [T1], assignment: [{ topicId: T1, partitions: [0, 1, 2, 3, 4] }] }, b: { topics: [T1] } };
  assert.deepEqual(assign(spec(members), { [T1]: 5 }), { a: { [T1]: [0, 3, 4] }, b: { [T1]: [1, 2] } });
});

test('heterogeneous subscriptions with partitions not yet assignable, as Kafka does it', () => {
  // z dropped T1: its partition 1 is revoked from it (the topic stays, empty) and, being in
  // the previous assignment, handed out again although not assignable; partition 2 is left
  // out once x and y have their counts. Kafka 4.4 gives exactly this.
  const members = {
    x: { topics: [T1] },
    y: { topics: [T1, T2] },
    z: { topics: [T2], assignment: [{ topicId: T1, partitions: [1] }] },
  };
  assert.deepEqual(assign(spec(members, { [T1]: [0, 2], [T2]: [0, 1] }), { [T1]: 3, [T2]: 2 }), {
    x: { [T1]: [0] }, y: { [T1]: [1], [T2]: [0] }, z: { [T1]: [], [T2]: [1] },
  });
});

test('no members, no subscribed topics, an unknown topic', () => {
  assert.deepEqual(assign(spec({}), {}), {});
  assert.deepEqual(assign(spec({ a: { topics: [] } }), {}), {});
  assert.throws(() => assign(spec({ a: { topics: [T1] } }), {}), /doesn't exist in the topic metadata/);
});
