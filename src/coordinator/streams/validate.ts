/**
 * StreamsGroupHeartbeat's request checks, as Kafka 4.4's
 * GroupCoordinatorService.throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures,
 * throwIfStreamsGroupHeartbeatRequestIsInvalid and
 * throwIfInvalidTopology (messages from its bytecode).
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { StreamsGroupHeartbeatRequestData } from '../../protocol/messages/streams-group-heartbeat.js';
import { ConsumerGroupError, invalidRequest } from '../consumer/errors.js';
import { STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH } from './member.js';

function throwIfEmpty(value: string | null | undefined, message: string): void {
  if (value !== null && value !== undefined && value.trim() === '') throw invalidRequest(message);
}

function throwIfNotEmpty(list: readonly unknown[] | null, message: string): void {
  if (list !== null && list.length > 0) throw invalidRequest(message);
}

function throwIfNull(value: unknown, message: string): void {
  if (value === null || value === undefined) throw invalidRequest(message);
}

export function validateStreamsGroupHeartbeat(req: StreamsGroupHeartbeatRequestData): void {
  // Kafka's throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures comes first.
  for (const sub of req.topology?.subtopologies ?? []) throwIfNotEmpty(sub.sourceTopicRegex, 'Regular expressions for source topics are not supported yet.');
  throwIfEmpty(req.memberId, "MemberId can't be empty.");
  throwIfEmpty(req.groupId, "GroupId can't be empty.");
  throwIfEmpty(req.instanceId, "InstanceId can't be empty.");
  throwIfEmpty(req.rackId, "RackId can't be empty.");
  if (req.memberEpoch === 0) {
    if (req.rebalanceTimeoutMs === -1) throw invalidRequest('RebalanceTimeoutMs must be provided in first request.');
    throwIfNotEmpty(req.activeTasks, 'ActiveTasks must be empty when (re-)joining.');
    throwIfNotEmpty(req.standbyTasks, 'StandbyTasks must be empty when (re-)joining.');
    throwIfNotEmpty(req.warmupTasks, 'WarmupTasks must be empty when (re-)joining.');
    throwIfNull(req.topology, 'Topology must be non-null when (re-)joining.');
    if (req.topology !== null) throwIfInvalidTopology(req.topology);
  } else if (req.memberEpoch === STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throwIfNull(req.instanceId, "InstanceId can't be null.");
  } else if (req.memberEpoch < STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw invalidRequest(`MemberEpoch is ${req.memberEpoch}, but must be greater than or equal to -2.`);
  }
  if (req.activeTasks !== null || req.standbyTasks !== null || req.warmupTasks !== null) {
    throwIfNull(req.activeTasks, 'If one task-type is non-null, all must be non-null.');
    throwIfNull(req.standbyTasks, 'If one task-type is non-null, all must be non-null.');
    throwIfNull(req.warmupTasks, 'If one task-type is non-null, all must be non-null.');
  }
  if (req.memberEpoch !== 0 && req.topology !== null) throw invalidRequest('Topology can only be provided when (re-)joining.');
}

/** Kafka's throwIfInvalidTopology: changelog topics get their partition count from the coordinator. */
function throwIfInvalidTopology(topology: NonNullable<StreamsGroupHeartbeatRequestData['topology']>): void {
  for (const s of topology.subtopologies) {
    for (const c of s.stateChangelogTopics) {
      if (c.partitions !== 0) {
        throw new ConsumerGroupError(ErrorCode.STREAMS_INVALID_TOPOLOGY, `Changelog topic ${c.name} must have an undefined partition count, but it is set to ${c.partitions}.`);
      }
    }
  }
}
