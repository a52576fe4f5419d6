/** Brook's public API. */
export * from './protocol/index.js';
export { Admin } from './client/admin/index.js';
export type * from './client/admin/types.js';
export { GroupNotFoundError, GroupNotInactiveError, ResetOffsetsError } from './client/admin/errors.js';
export * from './client/producer/index.js';
export * from './client/consumer/index.js';
export type { PartitionAssignor, TopicPartition, MemberSubscription, MemberAssignment, AssignmentInput, RebalanceProtocol } from './assignors/types.js';
