/**
 * The group benchmarks' stability rule (bench/lib/group-events.ts), on hand-written event
 * sequences: every live member reported, no partition owned twice or by nobody, no member
 * empty-handed while there are enough partitions; first and last stable points.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstStable, lastStable } from '../../bench/lib/group-events.js';
import type { GroupEvent } from '../../bench/clients/types.js';

const owned = (t: number, m: number, p: number[]): GroupEvent => ({ ev: 'owned', t, m, p });

test('first stable: when the last overlap is gone and every member has reported', { timeout: 5_000 }, () => {
  const events: GroupEvent[] = [
    owned(1, 0, [0, 1, 2]),
    owned(2, 1, []), // two members, three partitions: an empty member is not stable
    owned(3, 1, [2]), // partition 2 owned twice
    owned(4, 0, [0, 1]),
  ];
  const stable = firstStable(events, 2, 3, 0);
  assert.equal(stable?.atUs, 4);
  assert.deepEqual([...stable!.owners].sort(), [[0, 0], [1, 0], [2, 1]]);
  assert.equal(firstStable(events.slice(0, 3), 2, 3, 0), null);
  assert.equal(firstStable(events, 2, 3, 5), null, 'nothing after fromUs');
  // Events come in any order: they are taken by time.
  assert.equal(firstStable([...events].reverse(), 2, 3, 0)?.atUs, 4);
});

test('members that join and leave; more members than partitions may hold nothing', { timeout: 5_000 }, () => {
  const events: GroupEvent[] = [
    owned(1, 0, [0]),
    { ev: 'join', t: 2, m: 1 },
    owned(3, 1, []), // stable: two members, one partition
    { ev: 'leave', t: 4, m: 0 },
    owned(5, 1, [0]),
    owned(6, 7, [0]), // not a member: ignored
  ];
  assert.equal(firstStable(events, 1, 1, 0)?.atUs, 1, 'one member holding the only partition');
  assert.equal(firstStable(events, 1, 1, 2)?.atUs, 3);
  const last = lastStable(events, 1, 1, 0);
  assert.equal(last?.atUs, 5, 'unstable at 2 (the new member had not reported) and 4 (partition 0 owned by nobody)');
  assert.deepEqual([...last!.owners], [[0, 1]]);
});
