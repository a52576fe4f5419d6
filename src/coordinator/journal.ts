/**
 * The bookkeeping of the coordinator's timeline (timeline-map.ts), so that its memory can go
 * back to what is durable when an append to `__consumer_offsets` fails: Brook's counterpart
 * of Kafka's SnapshotRegistry, which the group coordinator's runtime reverts to the last
 * written offset when a write fails (`revertLastWrittenOffset`).
 *
 * Every operation runs between `begin` and `end`. While it runs, each timeline structure it
 * changes (a map, a set, a value) records here how to undo that change; nothing else does:
 * the state is made of timeline structures only (offsets, groups of both types with their
 * members and fields, the timer table). An operation whose result may still fail (it has
 * records to append, or earlier results are still pending) keeps its changes under a token
 * until the runtime says how its records fared, as Kafka keeps a snapshot per write:
 * `committed(token)` forgets them (and those of every earlier result), `takeFrom(token)`
 * hands them back, with those of every later result, for the coordinator to undo newest
 * first. An operation without records that comes while nothing is pending cannot fail: its
 * changes are forgotten at once.
 */
import type { Operation } from './operation.js';
import type { CoordinatorReply, ResultToken } from './types.js';

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

/** Where an operation stood at a point, to go back to it (Journal.savepoint): lengths only. */
export interface Savepoint {
  readonly undo: number;
  readonly touched: number;
  readonly followUps: number;
}

/** What one operation changed, and how to undo it. */
export class Changes {
  token: ResultToken = 0;
  readonly undo: Undo[] = [];
  /** Things captured once per operation (an ordered map's entries), with the undo length then. */
  private captured: Map<unknown, number> | null = null;
  /** The keys tracked maps changed, as [map, key] pairs in order. */
  private touched: unknown[] | null = null;
  followUps: RevertFollowUp[] | null = null;
  /** The operation's replies: requests answered (with the error, by the runtime) if it fails. */
  replies: readonly CoordinatorReply[] = [];

  /** True the first time `key` is seen by this operation. */
  once(key: unknown): boolean {
    this.captured ??= new Map();
    if (this.captured.has(key)) return false;
    this.captured.set(key, this.undo.length);
    return true;
  }

  touch(map: object, key: unknown): void {
    // A literal of two: most operations touch one key (a session timer), and `push` on an
    // empty array would reserve room for sixteen.
    if (this.touched === null) this.touched = [map, key];
    else this.touched.push(map, key);
  }

  /** The keys of `map` this operation changed (a tracked TimelineMap), with repeats. */
  *touchedKeys<K>(map: ReadonlyMap<K, unknown>): Generator<K> {
    const t = this.touched;
    if (t === null) return;
    for (let i = 0; i < t.length; i += 2) if (t[i] === map) yield t[i + 1] as K;
  }

  rollback(): void {
    for (let i = this.undo.length - 1; i >= 0; i--) this.undo[i]();
  }

  savepoint(): Savepoint {
    return { undo: this.undo.length, touched: this.touched?.length ?? 0, followUps: this.followUps?.length ?? 0 };
  }

  /** Undoes what was done since `sp`, newest first, and forgets it. */
  rollbackTo(sp: Savepoint): void {
    for (let i = this.undo.length - 1; i >= sp.undo; i--) this.undo[i]();
    this.undo.length = sp.undo;
    // What was captured after the savepoint is captured again by the next change.
    if (this.captured !== null) for (const [key, at] of this.captured) if (at >= sp.undo) this.captured.delete(key);
    if (this.touched !== null) this.touched.length = sp.touched;
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

  /** A tracked timeline map changed `key` (see TimelineMap). */
  touch(map: object, key: unknown): void {
    this.current?.touch(map, key);
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
