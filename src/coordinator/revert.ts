/**
 * What follows the undo of results whose records did not become durable (journal.ts has the
 * undo itself; `GroupCoordinator.revert` runs both). The state is back to what it was before
 * the oldest reverted result; three things remain, which Kafka's runtime has no need for
 * (its classic groups keep their response futures and timers outside the snapshots):
 *
 * - parked requests: the runtime answered the reverted results' replies with the append
 *   error, so a request the restored state has parked but a reverted result answered is
 *   answered already; and a request a reverted result parked, which the restored state does
 *   not know, must get the error too (the coordinator never drops a request);
 * - timers: the runtime carries out timer operations at once, so it holds what the reverted
 *   results scheduled; each key they touched is rescheduled as the restored table has it, or
 *   cancelled. Two exceptions. A member's session deadline is not moved back: the requests
 *   that moved it were signs of life whatever became of their records (Kafka's timers are
 *   outside its snapshot); a heartbeat moves it later in place, outside the journal
 *   (TimerTable.extend). A timer that fired in a reverted result has its effect undone:
 *   it fires again, after Kafka's retry backoff (so a store that keeps failing is not
 *   retried in a tight loop);
 * - Kafka's failure callbacks (`RevertFollowUp`), oldest result first.
 */
import type { CoordinatorState } from './coordinator-state.js';
import type { Changes } from './journal.js';
import { isSession, TIMER_RETRY_BACKOFF_MS, type Operation, type TimerAction, type TimerEntry } from './operation.js';
import { joinGroupError, syncGroupError } from './classic/responses.js';
import type { RequestId, TimerKey } from './types.js';

interface ParkedIn {
  readonly kind: 'join' | 'sync';
  readonly groupId: string;
  readonly memberId: string;
  readonly apiVersion: number;
}

/** The timer keys the reverted results touched, with their entries before the undo. */
export function touchedTimers(s: CoordinatorState, reverted: readonly Changes[]): Map<TimerKey, TimerEntry | undefined> {
  const timers = new Map<TimerKey, TimerEntry | undefined>();
  for (const key of s.timers.touchedBy(reverted)) timers.set(key, s.timers.entry(key));
  return timers;
}

/**
 * The JoinGroup and SyncGroup requests the classic groups hold parked, by request id. Read
 * before and after a revert's undo: a walk over every classic member, paid only when an
 * append failed.
 */
export function parkedRequests(s: CoordinatorState): Map<RequestId, ParkedIn> {
  const parked = new Map<RequestId, ParkedIn>();
  for (const g of s.groups.values()) {
    for (const m of g.members.values()) {
      if (m.awaitingJoin !== null) parked.set(m.awaitingJoin.requestId, { kind: 'join', groupId: g.groupId, memberId: m.memberId, apiVersion: m.awaitingJoin.apiVersion });
      if (m.awaitingSync !== null) parked.set(m.awaitingSync.requestId, { kind: 'sync', groupId: g.groupId, memberId: m.memberId, apiVersion: m.awaitingSync.apiVersion });
    }
  }
  return parked;
}

/**
 * Runs, as an operation of its own, after the reverted results (newest first) were undone.
 * `parkedBefore` are the requests parked before the undo and `timersBefore` the timer keys
 * the reverted results touched, with their entries before the undo.
 */
export function settleRevert(
  s: CoordinatorState,
  op: Operation,
  reverted: readonly Changes[],
  parkedBefore: ReadonlyMap<RequestId, ParkedIn>,
  timersBefore: ReadonlyMap<TimerKey, TimerEntry | undefined>,
  errorCode: number,
): void {
  const answered = new Set<RequestId>();
  for (const c of reverted) for (const r of c.replies) answered.add(r.requestId);

  // A request the restored state holds parked but a reverted result answered is answered.
  for (const g of s.groups.values()) {
    for (const m of g.members.values()) {
      if (m.awaitingJoin !== null && answered.has(m.awaitingJoin.requestId)) g.takeAwaitingJoin(m);
      if (m.awaitingSync !== null && answered.has(m.awaitingSync.requestId)) g.takeAwaitingSync(m);
    }
  }
  // Groups the undo removed (created by a reverted result) are gone with their requests.
  const stillParked = parkedRequests(s);
  for (const [requestId, p] of parkedBefore) {
    if (answered.has(requestId) || stillParked.has(requestId)) continue;
    if (p.kind === 'sync') {
      op.reply(requestId, syncGroupError(p.apiVersion, errorCode));
    } else {
      // The member rejoins as what it still is, or as a new member when the undo removed it.
      const known = s.groups.get(p.groupId)?.hasMember(p.memberId) ?? false;
      op.reply(requestId, joinGroupError(p.apiVersion, errorCode, known ? p.memberId : ''));
    }
  }

  for (const [key, latest] of timersBefore) {
    const entry = s.timers.entry(key);
    if (entry === undefined) op.cancelInRuntime(key);
    else if (isSession(entry.action) && latest !== undefined && isSession(latest.action) && latest.atMs > entry.atMs) op.scheduleAt(key, latest.atMs, entry.action);
    else if (entry.atMs > op.nowMs) op.scheduleAt(key, entry.atMs, entry.action);
    else op.schedule(key, retryBackoffMs(s, entry.action), entry.action);
  }

  for (let i = reverted.length - 1; i >= 0; i--) {
    for (const followUp of reverted[i].followUps ?? []) followUp(op, errorCode);
  }
}

function retryBackoffMs(s: CoordinatorState, action: TimerAction): number {
  return action.kind === 'offsets-expiration' ? s.config.offsetsRetentionCheckIntervalMs : TIMER_RETRY_BACKOFF_MS;
}
