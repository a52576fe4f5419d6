/**
 * Tasks of a streams group (Kafka's TasksTuple): a task is a subtopology id and a partition
 * number; a set of tasks maps subtopology ids to partitions. Values are immutable: every
 * operation builds new maps.
 */
import type { TaskSet } from './assignor/types.js';

export type { TaskSet };

/** Kafka's TasksTuple: active, standby and warm-up tasks. */
export interface TasksTuple {
  readonly activeTasks: TaskSet;
  readonly standbyTasks: TaskSet;
  readonly warmupTasks: TaskSet;
}

export const EMPTY_TASKS: TaskSet = new Map();
export const EMPTY_TASKS_TUPLE: TasksTuple = { activeTasks: EMPTY_TASKS, standbyTasks: EMPTY_TASKS, warmupTasks: EMPTY_TASKS };

/** The wire and record shape of a task set (subtopology id and partitions). */
export interface TaskIdsLike {
  readonly subtopologyId: string;
  readonly partitions: readonly number[];
}

export function taskSetFrom(list: readonly TaskIdsLike[] | null | undefined): TaskSet {
  const out = new Map<string, Set<number>>();
  for (const t of list ?? []) {
    if (t.partitions.length === 0) continue;
    let s = out.get(t.subtopologyId);
    if (s === undefined) out.set(t.subtopologyId, (s = new Set()));
    for (const p of t.partitions) s.add(p);
  }
  return out;
}

/** Sorted by subtopology id, partitions ascending (Kafka writes them from its maps; sorted keeps records stable). */
export function taskSetToList(tasks: TaskSet): { subtopologyId: string; partitions: number[] }[] {
  return [...tasks.keys()].sort().map((subtopologyId) => ({ subtopologyId, partitions: [...tasks.get(subtopologyId)!].sort((a, b) => a - b) }));
}

/** A tuple from the three task lists of a request or record (null: no tasks). */
export function tasksTupleFrom(lists: {
  readonly activeTasks: readonly TaskIdsLike[] | null; readonly standbyTasks: readonly TaskIdsLike[] | null; readonly warmupTasks: readonly TaskIdsLike[] | null;
}): TasksTuple {
  return { activeTasks: taskSetFrom(lists.activeTasks), standbyTasks: taskSetFrom(lists.standbyTasks), warmupTasks: taskSetFrom(lists.warmupTasks) };
}

/** The tuple as the three sorted task lists of a response or record. */
export function tasksTupleToLists(t: TasksTuple): Record<keyof TasksTuple, { subtopologyId: string; partitions: number[] }[]> {
  return { activeTasks: taskSetToList(t.activeTasks), standbyTasks: taskSetToList(t.standbyTasks), warmupTasks: taskSetToList(t.warmupTasks) };
}

export function taskSetSize(tasks: TaskSet): number {
  let n = 0;
  for (const s of tasks.values()) n += s.size;
  return n;
}

export function hasTask(tasks: TaskSet, subtopologyId: string, partition: number): boolean {
  return tasks.get(subtopologyId)?.has(partition) ?? false;
}

export function taskSetEquals(a: TaskSet, b: TaskSet): boolean {
  if (a === b) return true;
  if (taskSetSize(a) !== taskSetSize(b)) return false;
  for (const [sub, ps] of a) for (const p of ps) if (!hasTask(b, sub, p)) return false;
  return true;
}

export function tasksTupleEquals(a: TasksTuple, b: TasksTuple): boolean {
  return taskSetEquals(a.activeTasks, b.activeTasks) && taskSetEquals(a.standbyTasks, b.standbyTasks) && taskSetEquals(a.warmupTasks, b.warmupTasks);
}

export function isTasksTupleEmpty(t: TasksTuple): boolean {
  return taskSetSize(t.activeTasks) === 0 && taskSetSize(t.standbyTasks) === 0 && taskSetSize(t.warmupTasks) === 0;
}

/** Whether `a` and `b` share a task. */
export function taskSetsIntersect(a: TaskSet, b: TaskSet): boolean {
  for (const [sub, ps] of a) for (const p of ps) if (hasTask(b, sub, p)) return true;
  return false;
}

/** Every task of `a` is in `b`. */
export function taskSetContainedIn(a: TaskSet, b: TaskSet): boolean {
  for (const [sub, ps] of a) for (const p of ps) if (!hasTask(b, sub, p)) return false;
  return true;
}

/** A task set being built; `map` is the set so far (a subtopology left without partitions is dropped). */
export class TaskSetBuilder {
  readonly map = new Map<string, Set<number>>();

  add(subtopologyId: string, partition: number): void {
    let s = this.map.get(subtopologyId);
    if (s === undefined) this.map.set(subtopologyId, (s = new Set()));
    s.add(partition);
  }

  remove(subtopologyId: string, partition: number): void {
    const s = this.map.get(subtopologyId);
    if (s !== undefined && s.delete(partition) && s.size === 0) this.map.delete(subtopologyId);
  }

  has(subtopologyId: string, partition: number): boolean {
    return this.map.get(subtopologyId)?.has(partition) ?? false;
  }

  get isEmpty(): boolean {
    return this.map.size === 0;
  }
}

export function tasksTupleToString(t: TasksTuple): string {
  const one = (s: TaskSet): string => taskSetToList(s).map((x) => `${x.subtopologyId}-[${x.partitions.join(',')}]`).join(' ');
  return `active=(${one(t.activeTasks)}) standby=(${one(t.standbyTasks)}) warmup=(${one(t.warmupTasks)})`;
}
