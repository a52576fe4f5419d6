/**
 * Kafka 4.4's `sticky` streams task assignor (StickyTaskAssignor), the streams group's
 * default: active tasks spread evenly over members, each kept where it ran before while the
 * member is under its share; standby tasks (num.standby.replicas per stateful task) never
 * on a process that already holds the task.
 *
 * The steps, in Kafka's order, because each changes the quotas the next one sees:
 *  1. previous owners: an active task stays with the member that ran it, while that
 *     member has fewer active tasks than the per-member quota;
 *  2. previous standbys: a task goes to the least loaded member that held it as a standby
 *     (or reported offsets for it: state on local disk), under the same quota;
 *  3. the rest, range-like (by subtopology, then partition), each to the least loaded
 *     process's least loaded member;
 *  4. standbys, in reverse partition order: the previous active owner, then the least
 *     loaded previous standby, while under the quota on all tasks; the rest to the least
 *     loaded process that does not hold the task yet (too few processes: fewer standbys).
 * The quotas are recomputed as members fill up (a member that reaches its quota leaves the
 * division), so what a member may keep depends on who was served before: ties between
 * processes fall to Java's PriorityQueue and HashMap orders, reproduced here.
 */
import { compareStrings } from '../../../util/range-split.js';
import { stringHash } from '../../../util/string-hash.js';
import { JavaHashSet } from '../../consumer/java-hash.js';
import { compareDoubles, JavaPriorityQueue } from './java-priority-queue.js';
import { ProcessState, TaskAssignorError, taskId, taskIdText, type TaskId } from './process-state.js';
import type { StreamsAssignorMember, StreamsGroupAssignment, StreamsGroupSpec, StreamsMemberAssignment, StreamsTaskAssignor, TopologyDescriber } from './types.js';

export { TaskAssignorError } from './process-state.js';

interface Member {
  readonly processId: string;
  readonly memberId: string;
}

interface StandbyCandidate {
  readonly member: Member;
  /** Held the task as a standby (rather than only reporting offsets for it). */
  readonly isPrevStandby: boolean;
  readonly offsetSum: bigint;
}

/** Previous standbys before members known only by reported offsets; then the most caught up first. */
function standbyCandidateOrder(a: StandbyCandidate, b: StandbyCandidate): number {
  const byKind = (a.isPrevStandby ? 0 : 1) - (b.isPrevStandby ? 0 : 1);
  if (byKind !== 0) return byKind;
  return a.offsetSum > b.offsetSum ? -1 : a.offsetSum < b.offsetSum ? 1 : 0;
}

class LocalState {
  readonly processes = new Map<string, ProcessState>();
  /** The processes' ids in the order Kafka's HashMap of them iterates. */
  readonly processOrder: JavaHashSet<string>;
  readonly activeTaskToPrevMember = new Map<string, Member>();
  standbyTaskToPrevMembers = new Map<string, Member[]>();
  readonly numStandbyReplicas: number;
  totalActiveTasks = 0;
  totalTasks = 0;
  membersWithActiveTaskCapacity: number;
  membersWithTaskCapacity: number;
  activeTasksPerMember = 0;
  totalTasksPerMember = 0;

  constructor(group: StreamsGroupSpec) {
    this.numStandbyReplicas = group.configs.numStandbyReplicas;
    this.membersWithActiveTaskCapacity = group.members.length;
    this.membersWithTaskCapacity = group.members.length;
    this.processOrder = JavaHashSet.withCapacity(stringHash, group.members.length);
  }

  process(processId: string): ProcessState {
    return this.processes.get(processId)!;
  }

  processesInOrder(): ProcessState[] {
    return this.processOrder.values().map((id) => this.process(id));
  }

  /** A member reached its active quota: the rest share what is left. */
  activeTaskAdded(memberTaskCount: number): void {
    if (memberTaskCount !== this.activeTasksPerMember) return;
    this.membersWithActiveTaskCapacity--;
    this.totalActiveTasks -= memberTaskCount;
    this.activeTasksPerMember = tasksPerMember(this.totalActiveTasks, this.membersWithActiveTaskCapacity);
  }

  /** A member reached its quota on all tasks: the rest share what is left. */
  taskAdded(memberTaskCount: number): void {
    if (memberTaskCount !== this.totalTasksPerMember) return;
    this.membersWithTaskCapacity--;
    this.totalTasks -= memberTaskCount;
    this.totalTasksPerMember = tasksPerMember(this.totalTasks, this.membersWithTaskCapacity);
  }

  hasActiveQuotaLeft(member: Member): boolean {
    return this.process(member.processId).memberTaskCount(member.memberId) < this.activeTasksPerMember;
  }

  hasTaskQuotaLeft(member: Member): boolean {
    return this.process(member.processId).memberTaskCount(member.memberId) < this.totalTasksPerMember;
  }
}

function tasksPerMember(tasks: number, members: number): number {
  if (members === 0) return 0;
  return Math.trunc(tasks / members) + (tasks % members > 0 ? 1 : 0);
}

function taskIds(topology: TopologyDescriber, statefulOnly: boolean): TaskId[] {
  const tasks: TaskId[] = [];
  for (const subtopologyId of topology.subtopologies()) {
    if (statefulOnly && !topology.isStateful(subtopologyId)) continue;
    const n = topology.maxNumInputPartitions(subtopologyId);
    for (let p = 0; p < n; p++) tasks.push(taskId(subtopologyId, p));
  }
  return tasks;
}

function initialize(group: StreamsGroupSpec, topology: TopologyDescriber): LocalState {
  const state = new LocalState(group);
  for (const subtopologyId of topology.subtopologies()) {
    const n = topology.maxNumInputPartitions(subtopologyId);
    state.totalTasks += n;
    state.totalActiveTasks += n;
    if (topology.isStateful(subtopologyId)) state.totalTasks += n * state.numStandbyReplicas;
  }
  state.activeTasksPerMember = tasksPerMember(state.totalActiveTasks, state.membersWithActiveTaskCapacity);
  state.totalTasksPerMember = tasksPerMember(state.totalTasks, state.membersWithTaskCapacity);

  const candidates = new Map<string, StandbyCandidate[]>();
  for (const m of group.members) {
    const member: Member = { processId: m.processId, memberId: m.memberId };
    // computeIfAbsent: the process map's order is that of Java's head-inserting variant.
    if (state.processOrder.addFirst(m.processId)) state.processes.set(m.processId, new ProcessState(m.processId));
    state.process(m.processId).addMember(m.memberId);
    for (const [subtopologyId, partitions] of m.activeTasks) {
      for (const p of partitions) state.activeTaskToPrevMember.set(taskId(subtopologyId, p).key, member);
    }
    collectStandbyCandidates(candidates, m, member);
  }
  for (const [key, list] of candidates) {
    list.sort(standbyCandidateOrder);
    state.standbyTaskToPrevMembers.set(key, list.map((c) => c.member));
  }
  return state;
}

/**
 * A member's standby tasks, then the tasks it reported offsets for without holding them as
 * standbys: a member that restarted comes back with a new member id and no assignment, and
 * its reported offsets are all that tells where its state is. Warm-up tasks do not count.
 */
function collectStandbyCandidates(candidates: Map<string, StandbyCandidate[]>, m: StreamsAssignorMember, member: Member): void {
  const add = (subtopologyId: string, partition: number, candidate: StandbyCandidate): void => {
    const key = taskId(subtopologyId, partition).key;
    let list = candidates.get(key);
    if (list === undefined) candidates.set(key, (list = []));
    list.push(candidate);
  };
  for (const [subtopologyId, partitions] of m.standbyTasks) {
    for (const p of partitions) {
      // No reported offset: 0, the most lag there is.
      add(subtopologyId, p, { member, isPrevStandby: true, offsetSum: m.taskOffsets.get(subtopologyId)?.get(p) ?? 0n });
    }
  }
  for (const [subtopologyId, offsets] of m.taskOffsets) {
    for (const [p, offsetSum] of offsets) {
      if (m.standbyTasks.get(subtopologyId)?.has(p) === true) continue;
      add(subtopologyId, p, { member, isPrevStandby: false, offsetSum });
    }
  }
}

/**
 * The previous holder to prefer: the first in rank order, replaced only by one whose
 * process and member are both less loaded. With `task`, processes holding it are skipped.
 */
function findPrevMemberWithLeastLoad(state: LocalState, members: readonly Member[] | undefined, task?: TaskId): Member | null {
  if (members === undefined || members.length === 0) return null;
  let candidate: Member | null = null;
  let candidateProcessLoad = Number.MAX_VALUE;
  let candidateMemberLoad = Number.MAX_VALUE;
  for (const member of members) {
    const process = state.process(member.processId);
    if (task !== undefined && process.hasTask(task)) continue;
    const processLoad = process.load;
    const memberLoad = process.memberTaskCount(member.memberId);
    if (candidate === null || (processLoad < candidateProcessLoad && memberLoad < candidateMemberLoad)) {
      candidateProcessLoad = processLoad;
      candidateMemberLoad = memberLoad;
      candidate = member;
    }
  }
  return candidate;
}

const byPartitionThenSubtopology = (a: TaskId, b: TaskId): number => a.partition - b.partition || compareStrings(a.subtopologyId, b.subtopologyId);
const bySubtopologyThenPartition = (a: TaskId, b: TaskId): number => compareStrings(a.subtopologyId, b.subtopologyId) || a.partition - b.partition;
const byLoad = (a: ProcessState, b: ProcessState): number => compareDoubles(a.load, b.load);


function assignActive(state: LocalState, tasks: TaskId[]): void {
  // Previous assignments tend to be range-like: by partition first.
  let remaining = tasks.sort(byPartitionThenSubtopology);
  const assignTo = (member: Member, task: TaskId): void => {
    const count = state.process(member.processId).addTask(member.memberId, task, true);
    state.activeTaskAdded(count);
    state.taskAdded(count);
  };
  remaining = remaining.filter((task) => {
    const prev = state.activeTaskToPrevMember.get(task.key);
    if (prev === undefined || !state.hasActiveQuotaLeft(prev)) return true;
    assignTo(prev, task);
    return false;
  });
  remaining = remaining.filter((task) => {
    const prev = findPrevMemberWithLeastLoad(state, state.standbyTaskToPrevMembers.get(task.key));
    if (prev === null || !state.hasActiveQuotaLeft(prev)) return true;
    assignTo(prev, task);
    return false;
  });

  // New assignments range-like: by subtopology first.
  remaining.sort(bySubtopologyThenPartition);
  const processByLoad = new JavaPriorityQueue(byLoad);
  processByLoad.addAll(state.processesInOrder());
  for (const task of remaining) {
    const process = processByLoad.poll();
    if (process === undefined) throw new TaskAssignorError(`No process available to assign active task ${taskIdText(task)}.`);
    const count = process.addTaskToLeastLoadedMember(task, true);
    if (count === -1) throw new TaskAssignorError(`No member available to assign active task ${taskIdText(task)}.`);
    state.activeTaskAdded(count);
    state.taskAdded(count);
    processByLoad.add(process);
  }
}

/** The least loaded process without the task takes it, on its least loaded member. */
function assignStandbyToLeastLoaded(state: LocalState, queue: JavaPriorityQueue<ProcessState>, task: TaskId): boolean {
  const process = queue.poll();
  if (process === undefined) return false;
  let found = false;
  if (!process.hasTask(task)) {
    const count = process.addTaskToLeastLoadedMember(task, false);
    if (count !== -1) {
      found = true;
      state.taskAdded(count);
    }
  } else if (!queue.isEmpty()) {
    found = assignStandbyToLeastLoaded(state, queue, task);
  }
  queue.add(process);
  return found;
}

function assignStandby(state: LocalState, tasks: TaskId[]): void {
  const toLeastLoaded: { task: TaskId; remainingReplicas: number }[] = [];
  tasks.sort((a, b) => byPartitionThenSubtopology(b, a));
  for (const task of tasks) {
    for (let i = 0; i < state.numStandbyReplicas; i++) {
      const prevActive = state.activeTaskToPrevMember.get(task.key);
      if (prevActive !== undefined) {
        const process = state.process(prevActive.processId);
        if (!process.hasTask(task) && state.hasTaskQuotaLeft(prevActive)) {
          state.taskAdded(process.addTask(prevActive.memberId, task, false));
          continue;
        }
      }
      const prevStandby = findPrevMemberWithLeastLoad(state, state.standbyTaskToPrevMembers.get(task.key), task);
      if (prevStandby !== null && state.hasTaskQuotaLeft(prevStandby)) {
        state.taskAdded(state.process(prevStandby.processId).addTask(prevStandby.memberId, task, false));
        continue;
      }
      toLeastLoaded.push({ task, remainingReplicas: state.numStandbyReplicas - i });
      break;
    }
  }

  toLeastLoaded.sort((a, b) => bySubtopologyThenPartition(b.task, a.task));
  const processByLoad = new JavaPriorityQueue(byLoad);
  processByLoad.addAll(state.processesInOrder());
  for (const { task, remainingReplicas } of toLeastLoaded) {
    for (let i = 0; i < remainingReplicas; i++) {
      // Kafka logs that there is not enough capacity for the requested standbys, and goes on.
      if (!assignStandbyToLeastLoaded(state, processByLoad, task)) break;
    }
  }
}

function toTaskSet(tasks: readonly TaskId[]): Map<string, Set<number>> {
  const sorted = [...tasks].sort(bySubtopologyThenPartition);
  const result = new Map<string, Set<number>>();
  for (const task of sorted) {
    let partitions = result.get(task.subtopologyId);
    if (partitions === undefined) result.set(task.subtopologyId, (partitions = new Set()));
    partitions.add(task.partition);
  }
  return result;
}

/**
 * Every member gets an entry, possibly empty. Kafka's result maps iterate in hash order,
 * but its records list subtopologies and partitions sorted, so these are sorted.
 */
function buildGroupAssignment(state: LocalState, group: StreamsGroupSpec): StreamsGroupAssignment {
  const result = new Map<string, StreamsMemberAssignment>();
  for (const m of group.members) {
    const process = state.process(m.processId);
    result.set(m.memberId, { activeTasks: toTaskSet(process.activeTasksOf(m.memberId)), standbyTasks: toTaskSet(process.standbyTasksOf(m.memberId)) });
  }
  return result;
}

export const stickyTaskAssignor: StreamsTaskAssignor = {
  name: 'sticky',
  assign(group: StreamsGroupSpec, topology: TopologyDescriber): StreamsGroupAssignment {
    const state = initialize(group, topology);
    assignActive(state, taskIds(topology, false));
    if (state.numStandbyReplicas > 0) assignStandby(state, taskIds(topology, true));
    return buildGroupAssignment(state, group);
  },
};
