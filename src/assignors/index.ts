/** Partition assignors: pure assignment functions the consumer's group leader runs. */
export type {
  TopicPartition,
  RebalanceProtocol,
  MemberSubscription,
  MemberAssignment,
  AssignmentInput,
  SubscriptionContext,
  PartitionAssignor,
  SynchronousPartitionAssignor,
} from './types.js';
export { DEFAULT_GENERATION } from './types.js';
export { AssignorError } from './errors.js';
export { RangeAssignor, assignRange } from './range.js';
export { RoundRobinAssignor, assignRoundRobin } from './roundrobin.js';
export { KafkaJsRoundRobinAssignor, assignKafkaJsRoundRobin, KAFKAJS_ROUND_ROBIN } from './kafkajs-round-robin.js';
export { StickyAssignor } from './sticky.js';
export { CooperativeStickyAssignor } from './cooperative-sticky.js';
export { assignSticky } from './sticky-core.js';
export {
  encodeStickyUserData,
  decodeStickyUserData,
  encodeCooperativeStickyUserData,
  decodeCooperativeStickyUserData,
  type StickyMemberData,
} from './sticky-user-data.js';
export { assignorByName, builtInAssignors, BUILT_IN_ASSIGNOR_NAMES } from './registry.js';
