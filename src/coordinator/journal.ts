/**
 * Undo of the coordinator's in-memory state, so that it can go back to what is durable when
 * an append to `__consumer_offsets` fails: Brook's counterpart of Kafka's SnapshotRegistry,
 * which the new group coordinator's runtime reverts to the last written offset when a write
 * fails (`revertLastWrittenOffset`).
 *
 * Every operation runs between `begin` and `end`. While it runs, each change to the state
 * records how to undo itself:
 * - offsets: the previous value of each key put (per-key entries, so the hot commit path
 *   never copies a group's offset map); before the first removal in a group's offsets, a
 *   copy of that group's offsets (removals are rare: OffsetDelete, DeleteGroups, expiration);
 * - groups: the groups map entry of a group created; before the first removal of a group,
 *   the map's order (ListGroups lists in that order); before an operation first changes a
 *   group, the group's own fields (`ClassicGroup.snapshot`), then the previous fields of
 *   each member it changes and each id it adds or removes (ClassicGroup records them);
 * - timers: the previous entry of each key scheduled, cancelled or fired.
 *
 * An operation whose result may still fail (it has records to append, or earlier results are
 * still pending) keeps its changes under a token until the runtime says how its records
 * fared: `committed(token)` forgets them (and those of every earlier result), `takeFrom(token)`
 * hands them back, with those of every later result, for the coordinator to undo newest first.
 * An operation without records that comes while nothing is pending cannot fail: its changes
 * are forgotten at once.
 */
import type { ClassicGroup } from './classic/group.js';
import type { Operation } from './operation.js';
import type { CoordinatorReply, ResultToken, TimerKey } from './types.js';

type Undo = () => void;

/**
 * What must follow the revert of an operation, as Kafka's failure callbacks (the
 * appendFuture's `whenComplete`) do: e.g. a leader's SyncGroup whose assignment was not
 * stored makes the group rebalance. Runs on the reverted state, in an operation of its own.
 */
export type RevertFollowUp = (op: Operation, errorCode: number) => void;

/**
 * The coordinator's memory can no longer be trusted to match what it wrote: undoing an
 * operation threw half-way. The runtime then unloads the coordinator and loads it again
 * from its log (Kafka's runtime fails the shard and reloads it).
 */
export class CoordinatorStateLostError extends Error {
  readonly code = 'COORDINATOR_STATE_LOST' as const;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CoordinatorStateLostError';
  }
}

/** Where an operation stood at a point, to go back to it (Journal.savepoint). */
export interface Savepoint {
  readonly undo: number;
  readonly captured: ReadonlySet<unknown> | null;
  readonly groups: ReadonlySet<ClassicGroup> | null;
  readonly timerKeys: ReadonlySet<TimerKey> | null;
  readonly followUps: number;
}

/** What one operation changed, and how to undo it. */
export class Changes {
  token: ResultToken = 0;
  readonly undo: Undo[] = [];
  /** Groups the operation created or changed: where it may have parked or answered requests. */
  groups: Set<ClassicGroup> | null = null;
  /** Timer keys whose table entry changed: the runtime's timers must follow the revert. */
  timerKeys: Set<TimerKey> | null = null;
  /** Things captured once per operation (a group's offsets, the groups map's order). */
  private captured: Set<unknown> | null = null;
  followUps: RevertFollowUp[] | null = null;
  /** The operation's replies: requests answered (with the error, by the runtime) if it fails. */
  replies: readonly CoordinatorReply[] = [];

  /** True the first time `key` is seen by this operation. */
  once(key: unknown): boolean {
    this.captured ??= new Set();
    if (this.captured.has(key)) return false;
    this.captured.add(key);
    return true;
  }

  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]();
  }

  savepoint(): Savepoint {
    const copy = <T>(set: Set<T> | null): Set<T> | null => (set === null ? null : new Set(set));
    return { undo: this.undo.length, captured: copy(this.captured), groups: copy(this.groups), timerKeys: copy(this.timerKeys), followUps: this.followUps?.length ?? 0 };
  }

  /** Undoes what was done since `sp`, newest first, and forgets it. */
  rollbackTo(sp: Savepoint): void {
    for (let i = this.undo.length - 1; i >= sp.undo; i--) this.undo[i]();
    this.undo.length = sp.undo;
    this.captured = sp.captured === null ? null : new Set(sp.captured);
    this.groups = sp.groups === null ? null : new Set(sp.groups);
    this.timerKeys = sp.timerKeys === null ? null : new Set(sp.timerKeys);
    if (this.followUps !== null) this.followUps.length = sp.followUps;
  }
}

export class Journal {
  private current: Changes | null = null;
  /** Results that may still be reverted, oldest first, from `head` on. */
  private pending: (Changes | undefined)[] = [];
  private head = 0;
  private lastToken = 0;

  /** Whether an operation is running (replay and revert itself record nothing). */
  get recording(): boolean {
    return this.current !== null;
  }

  begin(): void {
    if (this.current !== null) throw new Error('coordinator operations do not nest');
    this.current = new Changes();
  }

  record(undo: Undo): void {
    this.current?.undo.push(undo);
  }

  /** True the first time the running operation sees `key` (false when none runs). */
  once(key: unknown): boolean {
    return this.current !== null && this.current.once(key);
  }

  /**
   * The running operation is about to change `group`: its own fields are captured once,
   * and from now on it records the undo of each change to its members (`changesOf`).
   */
  changing(group: ClassicGroup): void {
    const c = this.current;
    if (c === null) return;
    c.groups ??= new Set();
    if (c.groups.has(group)) return;
    c.groups.add(group);
    c.undo.push(group.snapshot());
  }

  /** Where `group` records its changes: the running operation's, if it announced them. */
  changesOf(group: ClassicGroup): Changes | null {
    const c = this.current;
    return c !== null && c.groups !== null && c.groups.has(group) ? c : null;
  }

  /** The running operation created `group` (its undo removes it from the map). */
  created(group: ClassicGroup): void {
    const c = this.current;
    if (c === null) return;
    (c.groups ??= new Set()).add(group);
  }

  timerChanged(key: TimerKey, undo: Undo): void {
    const c = this.current;
    if (c === null) return;
    c.undo.push(undo);
    (c.timerKeys ??= new Set()).add(key);
  }

  onRevert(followUp: RevertFollowUp): void {
    const c = this.current;
    if (c === null) return;
    (c.followUps ??= []).push(followUp);
  }

  /**
   * The running operation is over: its token when the runtime must tell how its result
   * fared, null when the result cannot fail or there is nothing to undo.
   */
  end(hasRecords: boolean, replies: readonly CoordinatorReply[]): ResultToken | null {
    const c = this.current;
    if (c === null) throw new Error('no coordinator operation is running');
    this.current = null;
    const changed = c.undo.length > 0 || c.followUps !== null;
    // Results fail only when their own append does or an earlier pending one does.
    if (!hasRecords && (!changed || this.head === this.pending.length)) return null;
    c.token = ++this.lastToken;
    c.replies = replies;
    this.pending.push(c);
    return c.token;
  }

  /**
   * Where the running operation stands: `rollbackTo` undoes what it does after this, as
   * when a request fails its checks half-way (Kafka builds such a request's records without
   * applying them, and drops them with the error).
   */
  savepoint(): Savepoint {
    if (this.current === null) throw new Error('no coordinator operation is running');
    return this.current.savepoint();
  }

  rollbackTo(sp: Savepoint): void {
    if (this.current === null) throw new Error('no coordinator operation is running');
    this.current.rollbackTo(sp);
  }

  /**
   * The running operation threw: undo what it did (its result is never carried out). An
   * undo that throws leaves the state half-undone: CoordinatorStateLostError.
   */
  abort(): void {
    const c = this.current;
    this.current = null;
    try {
      c?.rollback();
    } catch (err) {
      throw new CoordinatorStateLostError('undoing a failed coordinator operation failed', { cause: err });
    }
  }

  /** The result of `token` and every earlier one are durable: their changes stay. */
  committed(token: ResultToken): void {
    while (this.head < this.pending.length && this.pending[this.head]!.token <= token) this.pending[this.head++] = undefined;
    if (this.head === this.pending.length) {
      this.pending = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
  }

  /**
   * Takes the changes of `token`'s result and of every later one, newest first, to revert
   * them; undefined when that result is no longer pending (reverted with an earlier one, or
   * committed).
   */
  takeFrom(token: ResultToken): Changes[] | undefined {
    let i = this.pending.length - 1;
    while (i >= this.head && this.pending[i]!.token > token) i--;
    if (i < this.head || this.pending[i]!.token !== token) return undefined;
    const taken = this.pending.splice(i) as Changes[];
    return taken.reverse();
  }

  /** Forgets every pending result (unload: nothing is reverted after it). */
  clearPending(): void {
    this.pending = [];
    this.head = 0;
  }
}
