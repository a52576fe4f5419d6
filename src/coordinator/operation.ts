/**
 * One coordinator operation in progress: the time it runs at, and the replies, timer
 * operations and records it accumulates into its CoordinatorResult.
 *
 * Timers carry no code: the coordinator keeps a table from each scheduled key to what the
 * key means (a TimerAction), so `onTimer(key)` needs no parsing, and a key that fires after
 * being cancelled or replaced is recognised as stale.
 */
import type { GroupEvent } from './events.js';
import type { Changes, Journal } from './journal.js';
import { TimelineMap } from './timeline-map.js';
import type { CoordinatorRecord, CoordinatorResult, CoordinatorReply, RequestId, ResultToken, ShareGroupStateInitialization, StreamsInternalTopicsToCreate, TimerKey, TimerOp } from './types.js';

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
  | { readonly kind: 'offsets-expiration' }
  /** A consumer-group member's session expired: it is fenced. */
  | { readonly kind: 'consumer-session'; readonly groupId: string; readonly memberId: string }
  /** A consumer-group member had to revoke partitions by now: fenced if still at that epoch. */
  | { readonly kind: 'consumer-rebalance'; readonly groupId: string; readonly memberId: string; readonly memberEpoch: number }
  /**
   * A classic member of a consumer group told to rejoin (REBALANCE_IN_PROGRESS) had to send
   * its JoinGroup by now, or after its JoinGroup its SyncGroup: fenced otherwise.
   */
  | { readonly kind: 'consumer-join' | 'consumer-sync'; readonly groupId: string; readonly memberId: string }
  /**
   * The resolution of a consumer group's regular expressions, which Kafka runs on an executor
   * and applies in a later write; `startMs` is when it was asked for.
   */
  | { readonly kind: 'consumer-regex'; readonly groupId: string; readonly regexes: readonly string[]; readonly startMs: number; readonly mayDescribeTopic?: ((topic: string) => boolean) | undefined }
  /** A share-group member's session expired (`group.share.session.timeout.ms`): it is fenced. */
  | { readonly kind: 'share-session'; readonly groupId: string; readonly memberId: string }
  /** A streams-group member's session expired (`group.streams.session.timeout.ms`): it is fenced. */
  | { readonly kind: 'streams-session'; readonly groupId: string; readonly memberId: string }
  /** A streams-group member had to revoke tasks by now: fenced if still at that epoch. */
  | { readonly kind: 'streams-rebalance'; readonly groupId: string; readonly memberId: string; readonly memberEpoch: number }
  /** `group.streams.initial.rebalance.delay.ms` after a streams group's first member: its first target assignment. */
  | { readonly kind: 'streams-initial-rebalance'; readonly groupId: string };

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

export function consumerSessionKey(groupId: string, memberId: string): TimerKey {
  return `consumer-session:${enc(groupId)}:${enc(memberId)}`;
}

export function consumerRebalanceKey(groupId: string, memberId: string): TimerKey {
  return `consumer-rebalance:${enc(groupId)}:${enc(memberId)}`;
}

export function shareSessionKey(groupId: string, memberId: string): TimerKey {
  return `share-session:${enc(groupId)}:${enc(memberId)}`;
}

export function streamsSessionKey(groupId: string, memberId: string): TimerKey {
  return `streams-session:${enc(groupId)}:${enc(memberId)}`;
}

export function streamsRebalanceKey(groupId: string, memberId: string): TimerKey {
  return `streams-rebalance:${enc(groupId)}:${enc(memberId)}`;
}

export function streamsInitialRebalanceKey(groupId: string): TimerKey {
  return `streams-initial-rebalance:${enc(groupId)}`;
}

export function consumerJoinKey(groupId: string, memberId: string): TimerKey {
  return `consumer-join:${enc(groupId)}:${enc(memberId)}`;
}

export function consumerSyncKey(groupId: string, memberId: string): TimerKey {
  return `consumer-sync:${enc(groupId)}:${enc(memberId)}`;
}

/** At most one resolution pending per group, as Kafka's executor key `<group>-regex`. */
export function consumerRegexKey(groupId: string): TimerKey {
  return `consumer-regex:${enc(groupId)}`;
}

/**
 * How long a timer whose firing was reverted (its result's records failed) waits before it
 * fires again: the retry backoff of Kafka's coordinator timers (500 ms). Offset expiration
 * retries after its interval, as Kafka's cleanupGroupMetadata timer does.
 */
export const TIMER_RETRY_BACKOFF_MS = 500;

/**
 * A pending timer: what it means and when it is due (a revert reschedules it there). A
 * session deadline moves later in place (TimerTable.extend).
 */
export interface TimerEntry {
  readonly action: TimerAction;
  atMs: number;
}

/** Session deadlines, classic, consumer or share group: never moved back by a revert (revert.ts). */
export function isSession(action: TimerAction): action is Extract<TimerAction, { kind: 'heartbeat' | 'consumer-session' | 'share-session' | 'streams-session' }> {
  return action.kind === 'heartbeat' || action.kind === 'consumer-session' || action.kind === 'share-session' || action.kind === 'streams-session';
}

function sameSession(a: TimerAction, b: TimerAction): boolean {
  return isSession(a) && isSession(b) && a.kind === b.kind && a.groupId === b.groupId && a.memberId === b.memberId;
}

/**
 * Pending timers by key: a timeline map like the rest of the state, so a revert restores it;
 * tracked, so a revert knows which keys the runtime must bring in line (revert.ts).
 */
export class TimerTable {
  private readonly entries: TimelineMap<TimerKey, TimerEntry>;

  constructor(journal: Journal) {
    this.entries = new TimelineMap(journal, false, true);
  }

  set(key: TimerKey, action: TimerAction, atMs: number): void {
    this.entries.set(key, { action, atMs });
  }

  /**
   * Moves the pending session deadline of `key` to `atMs`, in place, when it is the same
   * session and not earlier: nothing for the journal to record, since a revert never moves a
   * session deadline back anyway. Every heartbeat does this; a new entry per heartbeat (with
   * the request's ids in its action) would live until the next one, long enough for the
   * garbage collector to copy it out of the young generation, and then die old.
   */
  extend(key: TimerKey, action: TimerAction, atMs: number): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined || atMs < entry.atMs || !sameSession(entry.action, action)) return false;
    entry.atMs = atMs;
    return true;
  }

  delete(key: TimerKey): boolean {
    return this.entries.delete(key);
  }

  /** Removes and returns the action of a key that fired; undefined when stale. */
  take(key: TimerKey): TimerAction | undefined {
    const entry = this.entries.get(key);
    if (entry !== undefined) this.entries.delete(key);
    return entry?.action;
  }

  has(key: TimerKey): boolean {
    return this.entries.has(key);
  }

  entry(key: TimerKey): TimerEntry | undefined {
    return this.entries.get(key);
  }

  keys(): TimerKey[] {
    return [...this.entries.keys()];
  }

  /** The keys these results changed (their changes, any order), each once. */
  touchedBy(changes: readonly Changes[]): Set<TimerKey> {
    const keys = new Set<TimerKey>();
    for (const c of changes) for (const key of c.touchedKeys(this.entries)) keys.add(key);
    return keys;
  }
}

export interface OperationMark {
  readonly replies: number;
  readonly timers: number;
  readonly records: number;
  readonly events: number;
}

export class Operation {
  private readonly replies: CoordinatorReply[] = [];
  private readonly timerOps: TimerOp[] = [];
  private readonly records: CoordinatorRecord[] = [];
  private readonly events: GroupEvent[] = [];
  private readonly shareInitializations: ShareGroupStateInitialization[] = [];
  private readonly streamsInternalTopics: StreamsInternalTopicsToCreate[] = [];

  constructor(
    readonly nowMs: number,
    private readonly timers: TimerTable,
  ) {}

  reply(requestId: RequestId, response: unknown): void {
    this.replies.push({ requestId, response });
  }

  /** Schedules `key` at now + delayMs, replacing any pending timer with that key. */
  schedule(key: TimerKey, delayMs: number, action: TimerAction): void {
    this.scheduleAt(key, this.nowMs + delayMs, action);
  }

  scheduleAt(key: TimerKey, atMs: number, action: TimerAction): void {
    if (!this.timers.extend(key, action, atMs)) this.timers.set(key, action, atMs);
    this.timerOps.push({ schedule: key, atMs });
  }

  cancel(key: TimerKey): void {
    // Only cancel what is pending: keeps results free of no-op noise.
    if (this.timers.delete(key)) this.timerOps.push({ cancel: key });
  }

  /**
   * Cancels `key` in the runtime, which may hold a timer the table no longer has: one a
   * reverted result scheduled.
   */
  cancelInRuntime(key: TimerKey): void {
    this.timerOps.push({ cancel: key });
  }

  record(record: CoordinatorRecord): void {
    this.records.push(record);
  }

  /** Something that happened to a group, for the runtime's logs and metrics (events.ts). */
  event(event: GroupEvent): void {
    this.events.push(event);
  }

  /**
   * Share partitions whose state the share coordinator must initialize once this result's
   * records are durable (Kafka's InitializeShareGroupStateParameters of a heartbeat).
   */
  initializeShareGroupState(request: ShareGroupStateInitialization): void {
    this.shareInitializations.push(request);
  }

  /** Internal topics of a streams group the broker must create (CoordinatorResult.streamsInternalTopics). */
  createStreamsInternalTopics(request: StreamsInternalTopicsToCreate): void {
    this.streamsInternalTopics.push(request);
  }

  /** How far the operation got (with Journal.savepoint: see CoordinatorState.attempt). */
  mark(): OperationMark {
    return { replies: this.replies.length, timers: this.timerOps.length, records: this.records.length, events: this.events.length };
  }

  /** Drops the replies, timer operations, records and events added since `mark`. */
  truncate(mark: OperationMark): void {
    this.replies.length = mark.replies;
    this.timerOps.length = mark.timers;
    this.records.length = mark.records;
    this.events.length = mark.events;
  }

  /** Kafka's scheduleIfAbsent: a pending timer of that key stays as it is. */
  scheduleIfAbsent(key: TimerKey, delayMs: number, action: TimerAction): void {
    if (!this.timers.has(key)) this.schedule(key, delayMs, action);
  }

  get recordCount(): number {
    return this.records.length;
  }

  get replyList(): readonly CoordinatorReply[] {
    return this.replies;
  }

  result(token: ResultToken | null): CoordinatorResult {
    const result: CoordinatorResult = { replies: this.replies, timers: this.timerOps, records: this.records, events: this.events, token };
    if (this.shareInitializations.length > 0) result.shareInitializations = this.shareInitializations;
    if (this.streamsInternalTopics.length > 0) result.streamsInternalTopics = this.streamsInternalTopics;
    return result;
  }
}
