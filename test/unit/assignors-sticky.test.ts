import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CooperativeStickyAssignor,
  encodeStickyUserData,
  StickyAssignor,
  type AssignmentInput,
  type MemberAssignment,
  type MemberSubscription,
  type SynchronousPartitionAssignor,
} from '../../src/assignors/index.js';
import { assertBalanced, assertValid, input, member, movedPartitions, nextRound, owners, simplify, tp } from '../support/assignors.js';

const counts = (result: Map<string, MemberAssignment>): number[] => [...result.values()].map((a) => a.partitions.length);

/** Eager sticky members report their last assignment and generation in user data. */
function stickyRound(members: readonly MemberSubscription[], result: Map<string, MemberAssignment>, generation: number): MemberSubscription[] {
  return members.map((m) => {
    const previous = result.get(m.memberId);
    return { ...m, userData: previous === undefined ? null : encodeStickyUserData({ partitions: previous.partitions, generation }) };
  });
}

describe('assignors: sticky', () => {
  const sticky = new StickyAssignor();

  it('a fresh group is balanced: counts differ by at most one', () => {
    const inp = input(['a', 'b', 'c'].map((id) => member(id, ['t1', 't2'])), { t1: 5, t2: 5 });
    const result = sticky.assign(inp);
    assertValid(inp, result);
    assert.deepEqual(counts(result).sort(), [3, 3, 4]);
  });

  it('a member joining takes only the partitions balance requires; nothing else moves', () => {
    const members = ['a', 'b', 'c'].map((id) => member(id, ['t']));
    const first = sticky.assign(input(members, { t: 12 }));
    const joined = input([...stickyRound(members, first, 1), member('d', ['t'])], { t: 12 });
    const second = sticky.assign(joined);
    assertValid(joined, second);
    assert.deepEqual(counts(second), [3, 3, 3, 3]);
    assert.equal(movedPartitions(first, second), 3);
  });

  it('a member leaving: only its partitions change owner', () => {
    const members = ['a', 'b', 'c', 'd'].map((id) => member(id, ['t1', 't2']));
    const first = sticky.assign(input(members, { t1: 6, t2: 6 }));
    const left = input(stickyRound(members, first, 1).filter((m) => m.memberId !== 'b'), { t1: 6, t2: 6 });
    const second = sticky.assign(left);
    assertValid(left, second);
    assertBalanced(left, second);
    assert.equal(movedPartitions(first, second), first.get('b')!.partitions.length);
    for (const id of ['a', 'c', 'd']) {
      for (const p of first.get(id)!.partitions) assert.ok(owners(second).get(`${p.topic}-${p.partition}`) === id);
    }
  });

  it('unequal subscriptions: balanced for each topic\'s subscribers, and sticky when a member joins', () => {
    const members = [member('a', ['t1']), member('b', ['t1', 't2']), member('c', ['t2', 't3']), member('d', ['t3'])];
    const topics = { t1: 7, t2: 5, t3: 9 };
    const first = sticky.assign(input(members, topics));
    assertValid(input(members, topics), first);
    assertBalanced(input(members, topics), first);
    const joined = input([...stickyRound(members, first, 1), member('e', ['t1', 't2', 't3'])], topics);
    const second = sticky.assign(joined);
    assertValid(joined, second);
    assertBalanced(joined, second);
    // 21 partitions over 5 members: e gets 4, and only those 4 move.
    assert.equal(second.get('e')!.partitions.length, 4);
    assert.equal(movedPartitions(first, second), 4);
  });

  it('the same input again moves nothing (stable)', () => {
    const members = [member('a', ['t1', 't2']), member('b', ['t2']), member('c', ['t1', 't2', 't3'])];
    const topics = { t1: 4, t2: 9, t3: 2 };
    const first = sticky.assign(input(members, topics));
    const again = sticky.assign(input(stickyRound(members, first, 1), topics));
    assert.deepEqual(simplify(again), simplify(first));
  });

  it('conflicting claims: the higher generation wins; a tie at the top leaves both without it', () => {
    const ud = (partitions: number[], generation: number) => encodeStickyUserData({ partitions: partitions.map((p) => tp('t', p)), generation });
    const members = [
      member('a', ['t'], { userData: ud([0, 1], 5) }),
      member('b', ['t'], { userData: ud([1, 2], 4) }),
      member('c', ['t'], { userData: ud([3], 5) }),
    ];
    const result = sticky.assign(input(members, { t: 4 }));
    // a keeps 0 and 1 (generation 5 beats b's 4 on partition 1); b keeps 2; c keeps 3.
    assert.deepEqual(simplify(result), { a: ['t-0', 't-1'], b: ['t-2'], c: ['t-3'] });

    const tie = [member('a', ['t'], { userData: ud([0, 1], 5) }), member('b', ['t'], { userData: ud([1, 2], 5) })];
    const tied = sticky.assign(input(tie, { t: 4 }));
    assertValid(input(tie, { t: 4 }), tied);
    assert.ok(tied.get('a')!.partitions.some((p) => p.partition === 0));
    assert.ok(tied.get('b')!.partitions.some((p) => p.partition === 2));
  });

  it('drops claims on topics a member no longer subscribes to, and on partitions that do not exist', () => {
    const ud = encodeStickyUserData({ partitions: [tp('gone', 0), tp('t', 9), tp('u', 0), tp('t', 1)], generation: 2 });
    const members = [member('a', ['t'], { userData: ud }), member('b', ['t', 'u'])];
    const result = sticky.assign(input(members, { t: 2, u: 2 }));
    assertValid(input(members, { t: 2, u: 2 }), result);
    assert.deepEqual(simplify(result), { a: ['t-0', 't-1'], b: ['u-0', 'u-1'] });
  });

  it('keeps state across rounds through onAssignment and subscriptionUserData', () => {
    const ids = ['m1', 'm2', 'm3'];
    const instances = new Map<string, SynchronousPartitionAssignor>(ids.map((id) => [id, new StickyAssignor()]));
    let generation = 0;
    let previous: Map<string, MemberAssignment> | null = null;
    const round = (present: string[]): Map<string, MemberAssignment> => {
      const members = present.map((id) =>
        member(id, ['t'], { userData: instances.get(id)!.subscriptionUserData({ topics: ['t'], ownedPartitions: [], generationId: generation }) }),
      );
      const result = instances.get(present[0]!)!.assign(input(members, { t: 9 }));
      generation++;
      for (const [id, a] of result) instances.get(id)!.onAssignment(a, generation);
      return result;
    };
    previous = round(['m1', 'm2']);
    const next = round(['m1', 'm2', 'm3']);
    assert.deepEqual(counts(next), [3, 3, 3]);
    assert.equal(movedPartitions(previous, next), 3);
  });
});

describe('assignors: cooperative-sticky', () => {
  const coop = new CooperativeStickyAssignor();

  it('partitions that change owner are withheld in the first round and assigned in the second', () => {
    const members = ['a', 'b', 'c'].map((id) => member(id, ['t']));
    const first = coop.assign(input(members, { t: 12 }));
    assert.deepEqual(counts(first), [4, 4, 4]);

    const joined: AssignmentInput = input([...nextRound(members, first, 1), member('d', ['t'])], { t: 12 });
    const second = coop.assign(joined);
    assertValid(joined, second, true);
    // a, b and c each give up one partition; d gets nothing until they are revoked.
    assert.deepEqual(counts(second), [3, 3, 3, 0]);
    assert.equal(movedPartitions(first, second), 0);

    const followUp: AssignmentInput = input(nextRound(joined.members, second, 2), { t: 12 });
    const third = coop.assign(followUp);
    assertValid(followUp, third);
    assert.deepEqual(counts(third), [3, 3, 3, 3]);
    assert.equal(movedPartitions(second, third), 0);
    const revoked = new Set(['a', 'b', 'c'].flatMap((id) => first.get(id)!.partitions.filter((p) => !second.get(id)!.partitions.some((q) => q.partition === p.partition)).map((p) => p.partition)));
    assert.deepEqual(new Set(third.get('d')!.partitions.map((p) => p.partition)), revoked);
  });

  it('partitions nobody owns (a member left) are assigned at once', () => {
    const members = ['a', 'b', 'c'].map((id) => member(id, ['t']));
    const first = coop.assign(input(members, { t: 9 }));
    const left = input(nextRound(members, first, 1).filter((m) => m.memberId !== 'c'), { t: 9 });
    const second = coop.assign(left);
    assertValid(left, second);
    assertBalanced(left, second);
  });

  it('unequal subscriptions: withheld, then complete', () => {
    const members = [member('a', ['t1', 't2']), member('b', ['t2'])];
    const topics = { t1: 4, t2: 4 };
    const first = coop.assign(input(members, topics));
    assertValid(input(members, topics), first);
    const joined = input([...nextRound(members, first, 1), member('c', ['t1'])], topics);
    const second = coop.assign(joined);
    assertValid(joined, second, true);
    assert.deepEqual(second.get('c')!.partitions, []);
    const third = coop.assign(input(nextRound(joined.members, second, 2), topics));
    assertValid(joined, third);
    assertBalanced(joined, third);
  });

  it('a partition claimed by two members of the same generation goes to neither this round', () => {
    const members = [
      member('a', ['t'], { ownedPartitions: [tp('t', 0), tp('t', 1)], generationId: 3 }),
      member('b', ['t'], { ownedPartitions: [tp('t', 1), tp('t', 2)], generationId: 3 }),
    ];
    const result = coop.assign(input(members, { t: 4 }));
    assertValid(input(members, { t: 4 }), result, true);
    assert.ok(!owners(result).has('t-1'));
    assert.equal(owners(result).get('t-0'), 'a');
    assert.equal(owners(result).get('t-2'), 'b');
  });

  it('a stale claim (lower generation) does not block the current owner, and its owner loses it', () => {
    const members = [
      member('a', ['t'], { ownedPartitions: [tp('t', 0), tp('t', 1)], generationId: 4 }),
      member('b', ['t'], { ownedPartitions: [tp('t', 1)], generationId: 3 }),
    ];
    const result = coop.assign(input(members, { t: 2 }));
    // quota 1 each: a keeps t-0 (lowest partition first), t-1 must go to b, which claimed it
    // in an older generation while a still owns it: withheld until a revokes it.
    assert.deepEqual(simplify(result), { a: ['t-0'], b: [] });
  });

  it('falls back to the user data generation when the subscription has none (v0/v1 subscriptions)', () => {
    const members = [
      member('a', ['t'], { ownedPartitions: [tp('t', 0)], userData: Buffer.from([0, 0, 0, 9]) }),
      member('b', ['t'], { ownedPartitions: [tp('t', 0)], userData: Buffer.from([0, 0, 0, 8]) }),
    ];
    const result = coop.assign(input(members, { t: 2 }));
    assert.equal(owners(result).get('t-0'), 'a');
  });
});
