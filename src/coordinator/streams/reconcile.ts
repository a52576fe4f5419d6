/**
 * Kafka's streams CurrentAssignmentBuilder: moves a member from its current tasks towards
 * its target, never giving it a task another member still holds.
 *
 * - Tasks the member holds that its target no longer has are pending revocation: it keeps
 *   its epoch (UNREVOKED_TASKS) until a heartbeat shows it no longer owns any of them.
 * - Tasks of its target that another member still holds in a conflicting role are
 *   unreleased: the member moves to the target epoch without them (UNRELEASED_TASKS) and
 *   gets them at a later heartbeat, once their owner let them go. An active task is held
 *   while any member has it active, or while another member of the same process has it as
 *   standby or warm-up (they share a state directory); a standby or warm-up task while a
 *   member of the same process has it in the other roles.
 * - Otherwise it takes its target and the target epoch (STABLE).
 * - A member that reports owning no task at all has nothing to revoke.
 *
 * test/interop/coordinator-streams-reconcile-oracle.test.ts checks these rules against Kafka
 * 4.4's own builder. Not covered: Kafka 4.4 keeps an assignment epoch per active task and
 * changes a task's role for the member in place (active to standby, standby to warm-up, a
 * standby promoted to active), releases at once tasks a member dropped before it was asked
 * to, and waits when a target gives back a task still pending revocation; here a role change
 * is a revocation followed by an assignment.
 */
import type { TaskOwners } from './group.js';
import { StreamsMemberState, type StreamsGroupMember } from './member.js';
import { hasTask, isTasksTupleEmpty, TaskSetBuilder, taskSetsIntersect, type TaskSet, type TasksTuple } from './tasks.js';

/** What the member says it owns (null: it did not say; Kafka's Optional.empty). */
export type OwnedTasks = TasksTuple | null;

interface Difference {
  readonly assigned: TaskSet;
  readonly pendingRevocation: TaskSet;
  readonly toBeAssigned: TaskSet;
  readonly unreleased: boolean;
}

function difference(target: TaskSet, current: TaskSet, ownsNothing: boolean, isUnreleased: (sub: string, p: number) => boolean): Difference {
  const assigned = new TaskSetBuilder();
  const pending = new TaskSetBuilder();
  const toBe = new TaskSetBuilder();
  let unreleased = false;
  for (const [sub, ps] of target) {
    for (const p of ps) {
      if (hasTask(current, sub, p)) assigned.add(sub, p);
      else if (isUnreleased(sub, p)) unreleased = true;
      else toBe.add(sub, p);
    }
  }
  // A member that reports owning no task at all has nothing left to revoke.
  if (!ownsNothing) for (const [sub, ps] of current) for (const p of ps) if (!hasTask(target, sub, p)) pending.add(sub, p);
  return { assigned: assigned.build(), pendingRevocation: pending.build(), toBeAssigned: toBe.build(), unreleased };
}

function union(a: TaskSet, b: TaskSet): TaskSet {
  const out = new TaskSetBuilder();
  for (const s of [a, b]) for (const [sub, ps] of s) for (const p of ps) out.add(sub, p);
  return out.build();
}

function nonEmpty(t: TaskSet): boolean {
  for (const ps of t.values()) if (ps.size > 0) return true;
  return false;
}

function computeNext(m: StreamsGroupMember, targetEpoch: number, target: TasksTuple, owners: TaskOwners, owned: OwnedTasks): StreamsGroupMember {
  const pid = m.processId;
  const current = m.assignedTasks;
  const ownsNothing = owned !== null && isTasksTupleEmpty(owned);
  const active = difference(target.activeTasks, current.activeTasks, ownsNothing, (sub, p) =>
    owners.activeProcessId(sub, p) !== null || owners.standbyProcessIds(sub, p).has(pid) || owners.warmupProcessIds(sub, p).has(pid));
  const standby = difference(target.standbyTasks, current.standbyTasks, ownsNothing, (sub, p) =>
    owners.activeProcessId(sub, p) === pid || owners.warmupProcessIds(sub, p).has(pid));
  const warmup = difference(target.warmupTasks, current.warmupTasks, ownsNothing, (sub, p) =>
    owners.activeProcessId(sub, p) === pid || owners.standbyProcessIds(sub, p).has(pid));

  if (nonEmpty(active.pendingRevocation) || nonEmpty(standby.pendingRevocation) || nonEmpty(warmup.pendingRevocation)) {
    // The member keeps its epoch (Kafka's updateMemberEpoch with the same epoch: the previous
    // epoch becomes it too) and must first give up what it no longer has.
    return {
      ...m,
      state: StreamsMemberState.UNREVOKED_TASKS,
      previousMemberEpoch: m.memberEpoch,
      assignedTasks: { activeTasks: active.assigned, standbyTasks: standby.assigned, warmupTasks: warmup.assigned },
      tasksPendingRevocation: { activeTasks: active.pendingRevocation, standbyTasks: standby.pendingRevocation, warmupTasks: warmup.pendingRevocation },
    };
  }
  const unreleased = active.unreleased || standby.unreleased || warmup.unreleased;
  return {
    ...m,
    state: unreleased ? StreamsMemberState.UNRELEASED_TASKS : StreamsMemberState.STABLE,
    previousMemberEpoch: m.memberEpoch,
    memberEpoch: targetEpoch,
    assignedTasks: {
      activeTasks: union(active.assigned, active.toBeAssigned),
      standbyTasks: union(standby.assigned, standby.toBeAssigned),
      warmupTasks: union(warmup.assigned, warmup.toBeAssigned),
    },
    tasksPendingRevocation: { activeTasks: new Map(), standbyTasks: new Map(), warmupTasks: new Map() },
  };
}

/** Whether the member still owns a task it must revoke (it did not say: assume it does). */
function ownsRevokedTasks(owned: OwnedTasks, pending: TasksTuple): boolean {
  if (owned === null) return true;
  return taskSetsIntersect(owned.activeTasks, pending.activeTasks) || taskSetsIntersect(owned.standbyTasks, pending.standbyTasks)
    || taskSetsIntersect(owned.warmupTasks, pending.warmupTasks);
}

/** Kafka's CurrentAssignmentBuilder.build. */
export function reconcileStreamsMember(m: StreamsGroupMember, targetEpoch: number, target: TasksTuple, owners: TaskOwners, owned: OwnedTasks): StreamsGroupMember {
  switch (m.state) {
    case StreamsMemberState.STABLE:
      // A member at the target epoch has its target (or waits for unreleased tasks, below).
      return m.memberEpoch === targetEpoch ? m : computeNext(m, targetEpoch, target, owners, owned);
    case StreamsMemberState.UNREVOKED_TASKS:
      return ownsRevokedTasks(owned, m.tasksPendingRevocation) ? m : computeNext(m, targetEpoch, target, owners, owned);
    case StreamsMemberState.UNRELEASED_TASKS:
      return computeNext(m, targetEpoch, target, owners, owned);
    default:
      throw new Error(`streams member ${m.memberId} is in unknown state ${m.state}`);
  }
}
