/**
 * One coordinator operation in progress: the time it runs at, and the replies, timer
 * operations and records it accumulates into its CoordinatorResult.
 *
 * Timers carry no code: the coordinator keeps a table from each scheduled key to what the
 * key means (a TimerAction), so `onTimer(key)` needs no parsing, and a key that fires after
 * being cancelled or replaced is recognised as stale.
 */
import type { CoordinatorRecord, CoordinatorResult, CoordinatorReply, RequestId, TimerKey, TimerOp } from './types.js';

export type TimerAction =
  /** A member's session (or a pending member's wait for its second JoinGroup) expired. */
  | { readonly kind: 'heartbeat'; readonly groupId: string; readonly memberId: string }
  /** The join phase's deadline: complete it with whoever rejoined. */
  | { readonly kind: 'join'; readonly groupId: string }
  /** `group.initial.rebalance.delay.ms` elapsed: complete, or extend if members kept coming. */
  | { readonly kind: 'initial-rebalance'; readonly groupId: string; readonly delayMs: number; readonly remainingMs: number }
  /** The members of a generation had to send SyncGroup by now. */
  | { readonly kind: 'sync'; readonly groupId: string; readonly generationId: number }
  /** Periodic offset expiration (`offsets.retention.check.interval.ms`). */
  | { readonly kind: 'offsets-expiration' };

// Components are URI-encoded so that a ':' inside a group or member id cannot make two
// different keys collide.
const enc = encodeURIComponent;

export function heartbeatKey(groupId: string, memberId: string): TimerKey {
  return `heartbeat:${enc(groupId)}:${enc(memberId)}`;
}

/** Shared by the join deadline and the initial delay, as in Kafka: only one is ever pending. */
export function joinKey(groupId: string): TimerKey {
  return `join:${enc(groupId)}`;
}

export function syncKey(groupId: string): TimerKey {
  return `sync:${enc(groupId)}`;
}

export const OFFSETS_EXPIRATION_KEY: TimerKey = 'offsets-expiration';

export class TimerTable {
  private readonly actions = new Map<TimerKey, TimerAction>();

  set(key: TimerKey, action: TimerAction): void {
    this.actions.set(key, action);
  }

  delete(key: TimerKey): boolean {
    return this.actions.delete(key);
  }

  /** Removes and returns the action of a key that fired; undefined when stale. */
  take(key: TimerKey): TimerAction | undefined {
    const action = this.actions.get(key);
    this.actions.delete(key);
    return action;
  }

  has(key: TimerKey): boolean {
    return this.actions.has(key);
  }

  keys(): TimerKey[] {
    return [...this.actions.keys()];
  }
}

export class Operation {
  private readonly replies: CoordinatorReply[] = [];
  private readonly timerOps: TimerOp[] = [];
  private readonly records: CoordinatorRecord[] = [];

  constructor(
    readonly nowMs: number,
    private readonly timers: TimerTable,
  ) {}

  reply(requestId: RequestId, response: unknown): void {
    this.replies.push({ requestId, response });
  }

  /** Schedules `key` at now + delayMs, replacing any pending timer with that key. */
  schedule(key: TimerKey, delayMs: number, action: TimerAction): void {
    this.timers.set(key, action);
    this.timerOps.push({ schedule: key, atMs: this.nowMs + delayMs });
  }

  cancel(key: TimerKey): void {
    // Only cancel what is pending: keeps results free of no-op noise.
    if (this.timers.delete(key)) this.timerOps.push({ cancel: key });
  }

  record(record: CoordinatorRecord): void {
    this.records.push(record);
  }

  get recordCount(): number {
    return this.records.length;
  }

  result(): CoordinatorResult {
    return { replies: this.replies, timers: this.timerOps, records: this.records };
  }
}
