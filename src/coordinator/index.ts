/** The group coordinator (classic, KIP-848 consumer and KIP-932 share groups, committed offsets) as a pure state machine. */
export { CoordinatorStateLostError } from './journal.js';
export { GroupCoordinator, type GroupSnapshot, type GroupSummary } from './coordinator.js';
export type { GroupEvent, GroupType, MemberRemovalCause, PartitionsByName } from './events.js';
export { CONSUMER_GROUP_STATES, type ConsumerGroupState } from './consumer/group.js';
export { findCoordinatorResponse, type CoordinatorNode } from './find-coordinator.js';
export { consumerGroupHeartbeatError } from './consumer/heartbeat.js';
export { shareGroupHeartbeatError } from './share/heartbeat.js';
export { streamsGroupHeartbeatError } from './streams/heartbeat.js';
export type { StreamsInternalTopicsToCreate } from './types.js';
export type { ConfiguredInternalTopic } from './streams/topology/types.js';
export type { ShareGroupState } from './share/group.js';
export type { TopicImage } from './consumer/metadata.js';
export { GROUP_STATES, VALID_PREVIOUS_STATES, type GroupState } from './classic/state.js';
export {
  DEFAULT_GROUP_COORDINATOR_CONFIG,
  groupCoordinatorConfig,
  type CoordinatorRecord,
  type CoordinatorReply,
  type CoordinatorResult,
  type GroupCoordinatorConfig,
  type RequestContext,
  type RequestId,
  type ResultToken,
  type ShareGroupStateInitialization,
  type SharePartitionInitialization,
  type TimerKey,
  type TimerOp,
} from './types.js';
