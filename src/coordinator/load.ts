/**
 * State from `__consumer_offsets`: replaying records at start-up (Kafka's replay methods
 * for OffsetCommit and GroupMetadata), arming the loaded members' sessions (onLoaded), and
 * unloading at shutdown (onUnloaded).
 */
import {
  decodeCoordinatorKey,
  decodeGroupMetadataValue,
  decodeOffsetCommitValue,
} from '../protocol/coordinator-records/framing.js';
import { decodeConsumerGroupRecord } from '../protocol/coordinator-records/consumer-group-framing.js';
import type { GroupMetadataValue } from '../protocol/coordinator-records/group-metadata-value.js';
import { ErrorCode } from '../protocol/errors.js';
import { ZERO_UUID } from '../protocol/messages/runtime.js';
import { applyConsumerGroupRecord } from './consumer/replay.js';
import type { CoordinatorState } from './coordinator-state.js';
import { ClassicGroup } from './classic/group.js';
import { OFFSETS_EXPIRATION_KEY, type Operation } from './operation.js';
import { answerJoin, answerSync, prepareRebalance, rescheduleHeartbeat } from './classic/rebalance.js';
import type { OffsetAndMetadata } from './records.js';
import { assertNever, type CoordinatorRecord } from './types.js';

/**
 * Applies one record of `__consumer_offsets` to the state. Used for replay at start-up,
 * and on the live path for the records the coordinator writes. Record types Brook keeps no
 * state for (Kafka 4.1's resolved regular expressions, share and streams groups) and types
 * no schema defines are skipped, as Kafka's loader skips unknown types.
 */
export function applyRecord(s: CoordinatorState, record: CoordinatorRecord, nowMs: number | null): void {
  const key = decodeCoordinatorKey(record.key);
  switch (key.kind) {
    case 'offset-commit': {
      const { group, topic, partition } = key.key;
      if (record.value === null) {
        s.offsets.remove(group, topic, partition);
        return;
      }
      const v = decodeOffsetCommitValue(record.value);
      const offset: OffsetAndMetadata = {
        committedOffset: v.offset,
        leaderEpoch: v.leaderEpoch ?? -1,
        metadata: v.metadata,
        commitTimestampMs: Number(v.commitTimestamp),
        expireTimestampMs: v.expireTimestamp === undefined || v.expireTimestamp === -1n ? null : Number(v.expireTimestamp),
        topicId: v.topicId ?? ZERO_UUID,
      };
      // Written inside a transaction: pending until its marker (Kafka's replay with a producer id).
      if (record.producerId !== undefined && record.producerId >= 0n) s.pendingTxnOffsets.put(record.producerId, group, topic, partition, offset);
      else applyOffset(s, group, topic, partition, offset, nowMs);
      return;
    }
    case 'group-metadata':
      if (record.value === null) s.removeGroup(key.key.group, nowMs ?? 0);
      else s.putGroup(groupFromRecord(s, key.key.group, decodeGroupMetadataValue(record.value)));
      return;
    case 'consumer-group':
      applyConsumerGroupRecord(s, decodeConsumerGroupRecord(key.type, key.keyReader, record.value), nowMs);
      return;
    case 'other':
      return;
    default:
      assertNever(key, 'coordinator record key');
  }
}

/**
 * What an offset-commit record does to the state; OffsetCommit calls it with the offset it
 * encodes into that record, so replaying the record rebuilds the same state (without
 * decoding the bytes it has just written).
 */
export function applyOffset(s: CoordinatorState, group: string, topic: string, partition: number, o: OffsetAndMetadata, nowMs: number | null): void {
  // Offsets without a group come from consumers that do not use group management:
  // their group is a "simple" one, created here as on commit.
  if (!s.consumerGroups.has(group)) s.getOrCreateGroup(group, nowMs);
  s.offsets.put(group, topic, partition, o);
}

/** A group as Kafka loads it: Stable with its members when it had any, else Empty. */
function groupFromRecord(s: CoordinatorState, groupId: string, value: GroupMetadataValue): ClassicGroup {
  const protocolType = value.protocolType === '' ? null : value.protocolType;
  const stateTimestamp = value.currentStateTimestamp ?? -1n;
  const group = new ClassicGroup(groupId, value.members.length === 0 ? 'Empty' : 'Stable', stateTimestamp === -1n ? null : Number(stateTimestamp), s.journal, {
    generationId: value.generation,
    protocolType,
    protocolName: value.protocol,
    leaderId: value.leader,
  });
  for (const m of value.members) {
    const rebalanceTimeoutMs = m.rebalanceTimeout === undefined || m.rebalanceTimeout === -1 ? m.sessionTimeout : m.rebalanceTimeout;
    // Only the chosen protocol's metadata is persisted, so that is all the member supports now.
    const member = group.newMember(
      m.memberId,
      m.groupInstanceId ?? null,
      m.clientId,
      m.clientHost,
      rebalanceTimeoutMs,
      m.sessionTimeout,
      value.protocolType,
      [{ name: value.protocol ?? '', metadata: Buffer.from(m.subscription) }],
      Buffer.from(m.assignment),
    );
    group.add(member, null);
  }
  group.subscribedTopics = group.computeSubscribedTopics();
  return group;
}

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
