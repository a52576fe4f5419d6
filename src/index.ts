/** Brook's public API. */
export * from './protocol/index.js';
export { Admin } from './client/admin/index.js';
export type * from './client/admin/types.js';
export { GroupNotFoundError, GroupNotInactiveError, ResetOffsetsError } from './client/admin/errors.js';
export * from './client/producer/index.js';
export * from './client/consumer/index.js';
export { ConfigError, ConnectionError, NoBrokerReachableError, RequestTimeoutError, TimeoutError, UnsupportedApiVersionError } from './client/errors.js';
export type { CommonClientOptions } from './client/options.js';
export { createLogger, silentLogger, type Logger, type LogLevel } from './util/log.js';
export type { Scheduler, Clock, TimerHandle } from './util/clock.js';
export type { PartitionAssignor, TopicPartition, MemberSubscription, MemberAssignment, AssignmentInput, RebalanceProtocol } from './assignors/types.js';
export { Broker, type BrokerOptions, type BrokerStats } from './broker/broker.js';
export type { ListenerInfo } from './broker/listeners.js';
