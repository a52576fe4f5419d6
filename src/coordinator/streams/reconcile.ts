/**
 * Kafka 4.4's streams CurrentAssignmentBuilder: moves a member from its current tasks towards
 * its target, never giving it a task another member still holds in a conflicting role.
 *
 * - Per role, the member's tasks split into kept (in current and target), pending revocation
 *   (current only) and to be assigned (target only, unless still held: unreleased).
 * - A task changes its role in place: an active task the target wants as standby becomes a
 *   standby at once (while the active one is revoked); a standby wanted as warm-up, or a
 *   warm-up wanted as standby, changes role without a revocation; a standby or warm-up the
 *   target promotes to active is not revoked, and is kept in its old role until the active
 *   one is granted (it is granted once nothing else is pending revocation).
 * - Tasks pending revocation the member still reports owning (or when it did not say) keep
 *   it at its epoch (UNREVOKED_TASKS) until it releases them; if it already dropped them, it
 *   moves on at once.
 * - Otherwise it moves to the target epoch with what it may have (UNRELEASED_TASKS while some
 *   task is still held elsewhere; STABLE with its whole target).
 *
 * An active task is held while any member has it active (this member's own pending
 * revocation included), or while another member of the same process has it as standby or
 * warm-up (they share a state directory); a standby task while another member of the same
 * process runs it active or has it as warm-up, or any member of the process has it as
 * standby; a warm-up task likewise with the roles swapped.
 *
 * test/interop/coordinator-streams-reconcile-oracle.test.ts checks this against Kafka 4.4's
 * own builder. Each active task keeps the target epoch at which the member got it (Kafka 4.4's
 * assignment epochs), for offset commits at an older member epoch (offsets.ts).
 */
import type { TaskOwners } from './group.js';
import { activeTaskEpoch, StreamsMemberState, type StreamsGroupMember, type TaskEpochs } from './member.js';
import { hasTask, TaskSetBuilder, taskSetsIntersect, type TaskSet, type TasksTuple } from './tasks.js';

/** What the member says it owns (null: it did not say; Kafka's Optional.empty). */
export type OwnedTasks = TasksTuple | null;

interface Difference {
  readonly assigned: TaskSetBuilder;
  readonly pendingRevocation: TaskSetBuilder;
  readonly pendingAssignment: TaskSetBuilder;
  readonly unreleased: boolean;
}

function difference(current: TaskSet, target: TaskSet, isUnreleased: (sub: string, p: number) => boolean): Difference {
  const assigned = new TaskSetBuilder();
  const pendingRevocation = new TaskSetBuilder();
  const pendingAssignment = new TaskSetBuilder();
  let unreleased = false;
  for (const [sub, ps] of current) for (const p of ps) (hasTask(target, sub, p) ? assigned : pendingRevocation).add(sub, p);
  for (const [sub, ps] of target) {
    for (const p of ps) {
      if (hasTask(current, sub, p)) continue;
      if (isUnreleased(sub, p)) unreleased = true;
      else pendingAssignment.add(sub, p);
    }
  }
  return { assigned, pendingRevocation, pendingAssignment, unreleased };
}

/** Moves the task from `from` (to be assigned) to `to` (assigned). */
function grantNow(from: TaskSetBuilder, to: TaskSetBuilder, sub: string, p: number): void {
  from.remove(sub, p);
  to.add(sub, p);
}

function tuple(active: TaskSetBuilder, standby: TaskSetBuilder, warmup: TaskSetBuilder): TasksTuple {
  return { activeTasks: active.map, standbyTasks: standby.map, warmupTasks: warmup.map };
}

function isEmpty(t: TasksTuple): boolean {
  return t.activeTasks.size === 0 && t.standbyTasks.size === 0 && t.warmupTasks.size === 0;
}

/** Kafka's hasNotReleased: tasks pending revocation the member still owns, or may (it did not say). */
function hasNotReleased(owned: OwnedTasks, pending: TasksTuple): boolean {
  if (owned === null) return true;
  return taskSetsIntersect(owned.activeTasks, pending.activeTasks) || taskSetsIntersect(owned.standbyTasks, pending.standbyTasks)
    || taskSetsIntersect(owned.warmupTasks, pending.warmupTasks);
}

function union(a: TaskSetBuilder, b: TaskSetBuilder): TaskSet {
  const out = new TaskSetBuilder();
  for (const t of [a, b]) for (const [sub, ps] of t.map) for (const p of ps) out.add(sub, p);
  return out.map;
}

/**
 * Kafka's computeNextAssignment. `owners` leaves this member out; Kafka's task-to-process maps
 * include it (its assigned tasks and those pending revocation), so they are put back here.
 */
function computeNext(
  m: StreamsGroupMember, memberEpoch: number, targetEpoch: number, target: TasksTuple, owners: TaskOwners, owned: OwnedTasks,
): StreamsGroupMember {
  const pid = m.processId;
  const current = m.assignedTasks;
  const mine = (role: keyof TasksTuple, sub: string, p: number): boolean => hasTask(m.assignedTasks[role], sub, p) || hasTask(m.tasksPendingRevocation[role], sub, p);
  const activeProcessId = (sub: string, p: number): string | null => owners.activeProcessId(sub, p) ?? (mine('activeTasks', sub, p) ? pid : null);
  const onThisProcess = (ids: ReadonlySet<string>, role: 'standbyTasks' | 'warmupTasks', sub: string, p: number): boolean => ids.has(pid) || mine(role, sub, p);
  // Held in that role by a member of this process other than this one (as far as its current tasks tell).
  const heldByAnother = (role: 'standbyTasks' | 'warmupTasks', ids: ReadonlySet<string>, sub: string, p: number): boolean =>
    onThisProcess(ids, role, sub, p) && !hasTask(current[role], sub, p);
  const runByAnother = (sub: string, p: number): boolean => activeProcessId(sub, p) === pid && !hasTask(current.activeTasks, sub, p);

  const active = difference(current.activeTasks, target.activeTasks, (sub, p) =>
    activeProcessId(sub, p) !== null || heldByAnother('standbyTasks', owners.standbyProcessIds(sub, p), sub, p)
    || heldByAnother('warmupTasks', owners.warmupProcessIds(sub, p), sub, p));
  const standby = difference(current.standbyTasks, target.standbyTasks, (sub, p) =>
    runByAnother(sub, p) || onThisProcess(owners.standbyProcessIds(sub, p), 'standbyTasks', sub, p)
    || heldByAnother('warmupTasks', owners.warmupProcessIds(sub, p), sub, p));
  const warmup = difference(current.warmupTasks, target.warmupTasks, (sub, p) =>
    activeProcessId(sub, p) === pid || heldByAnother('standbyTasks', owners.standbyProcessIds(sub, p), sub, p)
    || onThisProcess(owners.warmupProcessIds(sub, p), 'warmupTasks', sub, p));

  // An active task the target wants as standby is a standby at once.
  for (const [sub, ps] of current.activeTasks) for (const p of ps) if (standby.pendingAssignment.has(sub, p)) grantNow(standby.pendingAssignment, standby.assigned, sub, p);
  // A standby wanted as warm-up, and a warm-up wanted as standby, change role without a revocation.
  for (const [sub, ps] of current.standbyTasks) {
    for (const p of ps) {
      if (!warmup.pendingAssignment.has(sub, p)) continue;
      grantNow(warmup.pendingAssignment, warmup.assigned, sub, p);
      standby.pendingRevocation.remove(sub, p);
    }
  }
  for (const [sub, ps] of current.warmupTasks) {
    for (const p of ps) {
      if (!standby.pendingAssignment.has(sub, p)) continue;
      grantNow(standby.pendingAssignment, standby.assigned, sub, p);
      warmup.pendingRevocation.remove(sub, p);
    }
  }
  // A standby or warm-up promoted to active is not revoked; it stays in its old role until the active task is granted.
  for (const [role, diff] of [['standbyTasks', standby], ['warmupTasks', warmup]] as const) {
    for (const [sub, ps] of current[role]) for (const p of ps) if (hasTask(target.activeTasks, sub, p)) diff.pendingRevocation.remove(sub, p);
  }
  const pending = tuple(active.pendingRevocation, standby.pendingRevocation, warmup.pendingRevocation);
  const revoking = !isEmpty(pending) && hasNotReleased(owned, pending);
  for (const [role, diff] of [['standbyTasks', standby], ['warmupTasks', warmup]] as const) {
    for (const [sub, ps] of current[role]) {
      for (const p of ps) {
        const grantedNow = !revoking && active.pendingAssignment.has(sub, p);
        if (hasTask(target.activeTasks, sub, p) && !grantedNow) diff.assigned.add(sub, p);
      }
    }
  }

  const assigned = tuple(active.assigned, standby.assigned, warmup.assigned);
  if (revoking) {
    // Kafka's updateMemberEpoch: the previous epoch becomes the current one.
    return {
      ...m, state: StreamsMemberState.UNREVOKED_TASKS, previousMemberEpoch: m.memberEpoch, memberEpoch, assignedTasks: assigned, tasksPendingRevocation: pending,
      activeTaskEpochs: activeEpochs(m, [active.assigned.map, active.pendingRevocation.map], targetEpoch),
    };
  }
  const unreleased = active.unreleased || standby.unreleased || warmup.unreleased;
  return {
    ...m,
    state: unreleased ? StreamsMemberState.UNRELEASED_TASKS : StreamsMemberState.STABLE,
    previousMemberEpoch: m.memberEpoch,
    memberEpoch: targetEpoch,
    assignedTasks: {
      activeTasks: union(active.assigned, active.pendingAssignment),
      standbyTasks: union(standby.assigned, standby.pendingAssignment),
      warmupTasks: union(warmup.assigned, warmup.pendingAssignment),
    },
    tasksPendingRevocation: { activeTasks: new Map(), standbyTasks: new Map(), warmupTasks: new Map() },
    activeTaskEpochs: activeEpochs(m, [active.assigned.map, active.pendingAssignment.map], targetEpoch),
  };
}

/**
 * Kafka 4.4's per-task assignment epochs: an active task the member already had keeps its
 * epoch; one it gets now has the target's.
 */
function activeEpochs(m: StreamsGroupMember, sets: readonly TaskSet[], targetEpoch: number): TaskEpochs {
  const out = new Map<string, Map<number, number>>();
  for (const set of sets) {
    for (const [sub, ps] of set) {
      let epochs = out.get(sub);
      if (epochs === undefined) out.set(sub, (epochs = new Map()));
      for (const p of ps) epochs.set(p, hasTask(m.assignedTasks.activeTasks, sub, p) ? activeTaskEpoch(m, sub, p)! : targetEpoch);
    }
  }
  return out;
}

/** Kafka's CurrentAssignmentBuilder.build. */
export function reconcileStreamsMember(m: StreamsGroupMember, targetEpoch: number, target: TasksTuple, owners: TaskOwners, owned: OwnedTasks): StreamsGroupMember {
  switch (m.state) {
    case StreamsMemberState.STABLE:
      // A member at the target epoch has its target (or waits for unreleased tasks, below).
      return m.memberEpoch === targetEpoch ? m : computeNext(m, m.memberEpoch, targetEpoch, target, owners, owned);
    case StreamsMemberState.UNREVOKED_TASKS:
      // Revoked: on to the next epoch (Kafka's memberEpoch + 1, kept only if it must revoke again).
      return hasNotReleased(owned, m.tasksPendingRevocation) ? m : computeNext(m, m.memberEpoch + 1, targetEpoch, target, owners, owned);
    case StreamsMemberState.UNRELEASED_TASKS:
      return computeNext(m, m.memberEpoch, targetEpoch, target, owners, owned);
    default:
      throw new Error(`streams member ${m.memberId} is in unknown state ${m.state}`);
  }
}
