/** Helpers for assignor tests: building inputs and checking Kafka's assignment invariants. */
import assert from 'node:assert/strict';
import type { AssignmentInput, MemberAssignment, MemberSubscription, TopicPartition } from '../../src/assignors/index.js';

export function member(memberId: string, topics: readonly string[], extra: Partial<MemberSubscription> = {}): MemberSubscription {
  return { memberId, groupInstanceId: null, topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null, ...extra };
}

export function input(members: readonly MemberSubscription[], partitionsPerTopic: Record<string, number>): AssignmentInput {
  return { members, partitionsPerTopic: new Map(Object.entries(partitionsPerTopic)) };
}

export const tp = (topic: string, partition: number): TopicPartition => ({ topic, partition });

/** member id → ["topic-partition", ...] in the order the assignor listed them. */
export function simplify(result: Map<string, MemberAssignment>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [id, a] of result) out[id] = a.partitions.map((p) => `${p.topic}-${p.partition}`);
  return out;
}

/** member id → its partitions as a set of "topic-partition". */
export function owners(result: Map<string, MemberAssignment>): Map<string, string> {
  const byPartition = new Map<string, string>();
  for (const [id, a] of result) for (const p of a.partitions) byPartition.set(`${p.topic}-${p.partition}`, id);
  return byPartition;
}

/**
 * Every partition of a subscribed, existing topic goes to exactly one member, which
 * subscribes to its topic; nothing else is assigned; every member has an entry.
 * `withheld` partitions (cooperative) may be missing but never doubled.
 */
export function assertValid(inp: AssignmentInput, result: Map<string, MemberAssignment>, allowMissing = false): void {
  assert.deepEqual([...result.keys()].sort(), inp.members.map((m) => m.memberId).sort());
  const seen = new Set<string>();
  const subscribed = new Set<string>();
  for (const m of inp.members) {
    const topics = new Set(m.topics);
    for (const t of topics) subscribed.add(t);
    for (const p of result.get(m.memberId)!.partitions) {
      const key = `${p.topic}\u0000${p.partition}`;
      assert.ok(!seen.has(key), `${p.topic}-${p.partition} assigned twice`);
      seen.add(key);
      assert.ok(topics.has(p.topic), `${m.memberId} got ${p.topic}-${p.partition} without subscribing to ${p.topic}`);
      const count = inp.partitionsPerTopic.get(p.topic);
      assert.ok(count !== undefined && p.partition >= 0 && p.partition < count, `${p.topic}-${p.partition} does not exist`);
    }
  }
  if (!allowMissing) {
    let expected = 0;
    for (const t of subscribed) expected += inp.partitionsPerTopic.get(t) ?? 0;
    assert.equal(seen.size, expected, 'every subscribed partition is assigned');
  }
}

/**
 * Balance in the sense of Java's sticky assignor tests (verifyValidityAndBalance): when two
 * members' counts differ by more than one, the bigger one holds no partition of a topic the
 * smaller one subscribes to.
 */
export function assertBalanced(inp: AssignmentInput, result: Map<string, MemberAssignment>): void {
  const members = inp.members;
  const topicsOf = new Map(members.map((m) => [m.memberId, new Set(m.topics)]));
  const count = (id: string): number => result.get(id)!.partitions.length;
  // For each topic, the least loaded subscriber; every holder of the topic must be within one of it.
  const least = new Map<string, number>();
  for (const m of members) for (const t of topicsOf.get(m.memberId)!) least.set(t, Math.min(least.get(t) ?? Infinity, count(m.memberId)));
  for (const m of members) {
    const c = count(m.memberId);
    for (const p of result.get(m.memberId)!.partitions) {
      assert.ok(c <= least.get(p.topic)! + 1, `${m.memberId} holds ${c} partitions incl. ${p.topic}-${p.partition}, another subscriber of ${p.topic} holds ${least.get(p.topic)}`);
    }
  }
}

/** Number of partitions whose owner differs between two assignments (partitions new in `next` do not count). */
export function movedPartitions(previous: Map<string, MemberAssignment>, next: Map<string, MemberAssignment>): number {
  const before = owners(previous);
  let moved = 0;
  for (const [p, id] of owners(next)) if (before.has(p) && before.get(p) !== id) moved++;
  return moved;
}

/** The next round's subscriptions for cooperative members: each owns what it was given, at `generationId`. */
export function nextRound(members: readonly MemberSubscription[], result: Map<string, MemberAssignment>, generationId: number): MemberSubscription[] {
  return members.map((m) => ({ ...m, ownedPartitions: result.get(m.memberId)?.partitions ?? [], generationId }));
}
