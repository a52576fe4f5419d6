/**
 * Brook's reconciliation of streams group members (src/coordinator/streams/reconcile.ts)
 * against Apache Kafka 4.4's own CurrentAssignmentBuilder (kafka-group-coordinator, through
 * test/support/java StreamsReconcileOracle): the same member, target and task owners, the
 * same next member (epochs, state, assigned tasks, tasks pending revocation, each active
 * task's assignment epoch). Cases are
 * generated from a fixed seed: members in each state, targets that keep, take, give up and
 * change the role of tasks (or give back a task pending revocation), tasks still held by
 * other members of the same or another process, owned tasks reported or not, in full or
 * with tasks dropped early.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { javaCommand } from '../support/java-oracle.js';
import { runProcess } from '../support/clients/run.js';
import { reconcileStreamsMember } from '../../src/coordinator/streams/reconcile.js';
import { activeTaskEpoch, newStreamsMember, type StreamsGroupMember } from '../../src/coordinator/streams/member.js';
import type { TaskOwners } from '../../src/coordinator/streams/group.js';
import type { TaskSet, TasksTuple } from '../../src/coordinator/streams/tasks.js';

type Tasks = Record<string, number[]>;
interface TasksJson { active: Tasks; standby: Tasks; warmup: Tasks }
interface Case {
  member: {
    memberId: string; memberEpoch: number; previousMemberEpoch: number; state: number; processId: string; assigned: TasksJson; pending: TasksJson;
    /** The assignment epoch of each active task (assigned or pending revocation). */
    activeEpochs: Epochs;
  };
  targetEpoch: number;
  target: TasksJson;
  activeOwners: Record<string, Record<string, string>>;
  standbyOwners: Record<string, Record<string, string[]>>;
  warmupOwners: Record<string, Record<string, string[]>>;
  owned: TasksJson | null;
}
type Epochs = Record<string, Record<string, number>>;
interface Reply { memberEpoch: number; previousMemberEpoch: number; state: number; assigned: TasksJson; pending: TasksJson; activeEpochs: Epochs; error?: string }

const SUBS = ['0', '1'];
const PARTITIONS = 3;

function generator(seed: number): (n: number) => number {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s % n;
  };
}

function empty(): TasksJson {
  return { active: {}, standby: {}, warmup: {} };
}

function add(t: Tasks, sub: string, p: number): void {
  (t[sub] ??= []).push(p);
}

function makeCase(next: (n: number) => number): Case {
  const assigned = empty(), pending = empty(), target = empty();
  const roles = ['active', 'standby', 'warmup'] as const;
  const state = 1 + next(3);
  const activeOwners: Case['activeOwners'] = {}, standbyOwners: Case['standbyOwners'] = {}, warmupOwners: Case['warmupOwners'] = {};
  const owned = next(3) === 0 ? null : empty();
  for (const sub of SUBS) {
    for (let p = 0; p < PARTITIONS; p++) {
      // The member's own role for the task: none, or one of the three, assigned or pending revocation.
      const mine = next(5);
      if (mine < 3) {
        const pend = state === 2 && next(2) === 0;
        add((pend ? pending : assigned)[roles[mine]!], sub, p);
        if (owned !== null && next(3) > 0) add(owned[roles[mine]!], sub, p);
      }
      const t = next(4);
      if (t < 3) add(target[roles[t]!], sub, p);
      // Other members: another process ('pb') or the member's own ('pa').
      const a = next(4);
      if (a === 1) (activeOwners[sub] ??= {})[String(p)] = 'pb';
      if (a === 2) (activeOwners[sub] ??= {})[String(p)] = 'pa';
      if (next(4) === 0) (standbyOwners[sub] ??= {})[String(p)] = [next(2) === 0 ? 'pa' : 'pb'];
      if (next(5) === 0) (warmupOwners[sub] ??= {})[String(p)] = [next(2) === 0 ? 'pa' : 'pb'];
    }
  }
  const memberEpoch = 2 + next(3);
  // Each active task the member holds got it at its epoch or before.
  const activeEpochs: Epochs = {};
  for (const held of [assigned, pending]) {
    for (const [sub, ps] of Object.entries(held.active)) for (const p of ps) (activeEpochs[sub] ??= {})[String(p)] = memberEpoch - next(2);
  }
  return {
    member: { memberId: 'm', memberEpoch, previousMemberEpoch: memberEpoch - 1, state, processId: 'pa', assigned, pending, activeEpochs },
    targetEpoch: memberEpoch + next(2),
    target, activeOwners, standbyOwners, warmupOwners, owned,
  };
}

function taskSet(t: Tasks): TaskSet {
  return new Map(Object.entries(t).map(([sub, ps]) => [sub, new Set(ps)]));
}

function tuple(t: TasksJson): TasksTuple {
  return { activeTasks: taskSet(t.active), standbyTasks: taskSet(t.standby), warmupTasks: taskSet(t.warmup) };
}

function json(t: TaskSet): Tasks {
  const out: Tasks = {};
  for (const sub of [...t.keys()].sort()) {
    const ps = [...t.get(sub)!].sort((a, b) => a - b);
    if (ps.length > 0) out[sub] = ps;
  }
  return out;
}

function brook(c: Case): Reply {
  const m: StreamsGroupMember = {
    ...newStreamsMember('m'),
    memberEpoch: c.member.memberEpoch, previousMemberEpoch: c.member.previousMemberEpoch, state: c.member.state, processId: 'pa',
    assignedTasks: tuple(c.member.assigned), tasksPendingRevocation: tuple(c.member.pending),
    activeTaskEpochs: new Map(Object.entries(c.member.activeEpochs).map(([sub, ps]) => [sub, new Map(Object.entries(ps).map(([p, e]) => [Number(p), e]))])),
  };
  const owners: TaskOwners = {
    activeProcessId: (sub, p) => c.activeOwners[sub]?.[String(p)] ?? null,
    standbyProcessIds: (sub, p) => new Set(c.standbyOwners[sub]?.[String(p)] ?? []),
    warmupProcessIds: (sub, p) => new Set(c.warmupOwners[sub]?.[String(p)] ?? []),
  };
  const next = reconcileStreamsMember(m, c.targetEpoch, tuple(c.target), owners, c.owned === null ? null : tuple(c.owned));
  const out = (t: TasksTuple): TasksJson => ({ active: json(t.activeTasks), standby: json(t.standbyTasks), warmup: json(t.warmupTasks) });
  const activeEpochs: Epochs = {};
  for (const held of [next.assignedTasks.activeTasks, next.tasksPendingRevocation.activeTasks]) {
    for (const sub of [...held.keys()].sort()) for (const p of [...held.get(sub)!].sort((a, b) => a - b)) (activeEpochs[sub] ??= {})[String(p)] = activeTaskEpoch(next, sub, p)!;
  }
  return {
    memberEpoch: next.memberEpoch, previousMemberEpoch: next.previousMemberEpoch, state: next.state, assigned: out(next.assignedTasks), pending: out(next.tasksPendingRevocation), activeEpochs,
  };
}

/**
 * Kafka's task-to-process maps hold every member's tasks, this member's included (assigned and
 * pending revocation); Brook's TaskOwners leave the member itself out. The Java side gets them
 * with the member's own tasks added.
 */
function withOwnTasks(c: Case): Case {
  const copy = JSON.parse(JSON.stringify(c)) as Case;
  for (const held of [c.member.assigned, c.member.pending]) {
    for (const [sub, ps] of Object.entries(held.active)) for (const p of ps) (copy.activeOwners[sub] ??= {})[String(p)] = 'pa';
    for (const [role, map] of [['standby', copy.standbyOwners], ['warmup', copy.warmupOwners]] as const) {
      for (const [sub, ps] of Object.entries(held[role])) {
        for (const p of ps) {
          const list = ((map[sub] ??= {})[String(p)] ??= []);
          if (!list.includes('pa')) list.push('pa');
        }
      }
    }
  }
  return copy;
}

/** No other member has a task active that this member holds active (one active owner per task). */
function oneActiveOwner(c: Case): boolean {
  for (const held of [c.member.assigned, c.member.pending]) {
    for (const [sub, ps] of Object.entries(held.active)) for (const p of ps) if (c.activeOwners[sub]?.[String(p)] !== undefined) return false;
  }
  return true;
}

/**
 * A member waiting for a revocation has tasks pending revocation and a target epoch ahead of
 * its own; members in the other states have none pending.
 */
function consistent(c: Case): boolean {
  const pending = Object.values(c.member.pending).some((t) => Object.keys(t).length > 0);
  if (c.member.state !== 2) return !pending;
  return pending && c.targetEpoch !== c.member.memberEpoch;
}

test('streams reconciliation matches Kafka 4.4\'s CurrentAssignmentBuilder', { timeout: 180_000 }, async () => {
  const next = generator(1071);
  const cases = Array.from({ length: 12_000 }, () => makeCase(next)).filter((c) => consistent(c) && oneActiveOwner(c)).slice(0, 1000);
  assert.ok(cases.length >= 500, `${cases.length} cases`);
  const [cmd, ...args] = javaCommand('brook.conformance.StreamsReconcileOracle');
  const result = await runProcess(cmd!, args, { input: JSON.stringify(cases.map(withOwnTasks)), timeoutMs: 120_000 });
  assert.equal(result.code, 0, result.stderr.slice(-2000));
  const replies = JSON.parse(result.stdout) as Reply[];
  const mismatches: string[] = [];
  replies.forEach((kafka, i) => {
    assert.equal(kafka.error, undefined, `case ${i}: ${kafka.error}`);
    const mine = brook(cases[i]!);
    try {
      assert.deepEqual(mine, kafka);
    } catch {
      mismatches.push(`case ${i}: ${JSON.stringify(cases[i])}\n  kafka ${JSON.stringify(kafka)}\n  brook ${JSON.stringify(mine)}`);
    }
  });
  assert.deepEqual(mismatches.slice(0, 5), [], `${mismatches.length} of ${cases.length} cases differ`);
});
