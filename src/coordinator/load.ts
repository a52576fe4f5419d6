/**
 * The coordinator around its records' replay (replay.ts): arming the loaded members'
 * sessions once the log is read (onLoaded), and unloading at shutdown (onUnloaded).
 */
import { ErrorCode } from '../protocol/errors.js';
import type { CoordinatorState } from './coordinator-state.js';
import { OFFSETS_EXPIRATION_KEY, type Operation } from './operation.js';
import { answerJoin, answerSync, prepareRebalance, rescheduleHeartbeat } from './classic/rebalance.js';

/**
 * After replay: every loaded member must heartbeat within its session timeout or be
 * removed (Kafka's onLoaded); a group over group.max.size rebalances; the periodic offset
 * expiration starts.
 */
export function loaded(s: CoordinatorState, op: Operation): void {
  for (const group of s.groups.values()) {
    for (const member of group.members.values()) rescheduleHeartbeat(op, group, member);
    if (group.numMembers > s.config.maxGroupSize) {
      const reason = `freshly-loaded group is over capacity (${group.numMembers} members, group.max.size ${s.config.maxGroupSize}); rebalancing so that members can commit offsets`;
      prepareRebalance(s, op, group, reason);
    }
  }
  op.schedule(OFFSETS_EXPIRATION_KEY, s.config.offsetsRetentionCheckIntervalMs, { kind: 'offsets-expiration' });
}

/**
 * Shutdown (Kafka's onUnloaded): every group goes Dead, parked requests are answered
 * NOT_COORDINATOR (the client looks for the coordinator again) and timers are cancelled.
 */
export function unload(s: CoordinatorState, op: Operation): void {
  for (const group of s.groups.values()) {
    group.transitionTo('Dead', op.nowMs);
    for (const member of group.members.values()) {
      answerJoin(op, group, member, { errorCode: ErrorCode.NOT_COORDINATOR, memberId: member.memberId });
      answerSync(op, group, member, { errorCode: ErrorCode.NOT_COORDINATOR });
    }
  }
  for (const key of s.timers.keys()) op.cancel(key);
}
