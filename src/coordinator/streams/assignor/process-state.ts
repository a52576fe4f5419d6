/**
 * What the sticky task assignor tracks of one Kafka Streams process (Kafka's ProcessState):
 * its members and how many tasks each holds, the tasks placed on it so far, and its load
 * (tasks per member). Members of one process share state directories, so a process never
 * holds the same task twice (an active and its standby are on different processes).
 */
import { stringHash } from '../../../util/string-hash.js';
import { JavaHashSet } from '../../consumer/java-hash.js';
import { JavaPriorityQueue } from './java-priority-queue.js';

/** A task: a subtopology's partition. `key` identifies it in sets and maps. */
export interface TaskId {
  readonly subtopologyId: string;
  readonly partition: number;
  readonly key: string;
}

export function taskId(subtopologyId: string, partition: number): TaskId {
  return { subtopologyId, partition, key: `${partition}:${subtopologyId}` };
}

/** Kafka's TaskId.toString, which its messages print. */
export function taskIdText(task: TaskId): string {
  return `${task.subtopologyId}_${task.partition}`;
}

/** Kafka's TaskAssignorException: the heartbeat that triggered the assignment fails. */
export class TaskAssignorError extends Error {
  readonly code = 'TASK_ASSIGNOR_ERROR' as const;
}

/** A member's entry in the process's heap of members by task count (a copy of its count). */
interface MemberLoad {
  readonly memberId: string;
  taskCount: number;
}

const byTaskCount = (a: MemberLoad, b: MemberLoad): number => a.taskCount - b.taskCount;

export class ProcessState {
  /** The number of members. */
  private capacity = 0;
  private currentLoad = Number.MAX_VALUE;
  private taskCount = 0;
  /** Member id → its task count (active and standby), and the ids in Java's HashMap order. */
  private readonly taskCounts = new Map<string, number>();
  private readonly memberOrder = JavaHashSet.empty(stringHash);
  private readonly activeByMember = new Map<string, TaskId[]>();
  private readonly standbyByMember = new Map<string, TaskId[]>();
  private readonly tasks = new Set<string>();
  /**
   * Members by task count, built when a task first goes to the least-loaded member and kept
   * while only that way of adding is used; adding a task to a named member drops it, as its
   * counts are then stale.
   */
  private membersByLoad: JavaPriorityQueue<MemberLoad> | null = null;

  constructor(readonly processId: string) {}

  /** Tasks per member; -1 for a process without members. */
  get load(): number {
    return this.currentLoad;
  }

  memberTaskCount(memberId: string): number {
    const count = this.taskCounts.get(memberId);
    if (count === undefined) throw new Error(`member ${memberId} is not in process ${this.processId}`);
    return count;
  }

  addMember(memberId: string): void {
    this.taskCounts.set(memberId, 0);
    this.memberOrder.add(memberId);
    this.capacity++;
    this.computeLoad();
  }

  hasTask(task: TaskId): boolean {
    return this.tasks.has(task.key);
  }

  /** Places the task on this member; returns the member's new task count. */
  addTask(memberId: string, task: TaskId, isActive: boolean): number {
    const count = this.addTaskInternal(memberId, task, isActive);
    this.membersByLoad = null;
    return count;
  }

  /** Places the task on the member with the fewest tasks; returns its new count, -1 without members. */
  addTaskToLeastLoadedMember(task: TaskId, isActive: boolean): number {
    if (this.taskCounts.size === 0) return -1;
    if (this.taskCounts.size === 1) return this.addTaskInternal(this.memberOrder.values()[0]!, task, isActive);
    if (this.membersByLoad === null) {
      this.membersByLoad = new JavaPriorityQueue(byTaskCount);
      for (const memberId of this.memberOrder.values()) this.membersByLoad.add({ memberId, taskCount: this.taskCounts.get(memberId)! });
    }
    const least = this.membersByLoad.poll();
    if (least === undefined) throw new TaskAssignorError(`No members available to assign task ${taskIdText(task)}`);
    least.taskCount = this.addTaskInternal(least.memberId, task, isActive);
    this.membersByLoad.add(least);
    return least.taskCount;
  }

  activeTasksOf(memberId: string): readonly TaskId[] {
    return this.activeByMember.get(memberId) ?? [];
  }

  standbyTasksOf(memberId: string): readonly TaskId[] {
    return this.standbyByMember.get(memberId) ?? [];
  }

  private addTaskInternal(memberId: string, task: TaskId, isActive: boolean): number {
    this.taskCount++;
    this.tasks.add(task.key);
    const byMember = isActive ? this.activeByMember : this.standbyByMember;
    let list = byMember.get(memberId);
    if (list === undefined) byMember.set(memberId, (list = []));
    list.push(task);
    const count = this.memberTaskCount(memberId) + 1;
    this.taskCounts.set(memberId, count);
    this.computeLoad();
    return count;
  }

  private computeLoad(): void {
    this.currentLoad = this.capacity <= 0 ? -1 : this.taskCount / this.capacity;
  }
}
