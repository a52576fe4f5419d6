/** Brook's public API. */
export * from './protocol/index.js';
export * from './client/consumer/index.js';
export type { PartitionAssignor, TopicPartition, MemberSubscription, MemberAssignment, AssignmentInput, RebalanceProtocol } from './assignors/types.js';
