/**
 * Brook's public API: the Kafka clients (Consumer, Producer, Admin), their options, record
 * types and errors, serializers, diagnostics channels and logger. The wire protocol layer
 * (message codecs, record batches, frames) is `brook/protocol`.
 */
export { Admin } from './client/admin/index.js';
export type * from './client/admin/types.js';
export { GroupNotFoundError, GroupNotInactiveError, ResetOffsetsError } from './client/admin/errors.js';
export * from './client/producer/index.js';
export * from './client/consumer/index.js';
export * from './client/share/index.js';
export {
  bufferDeserializer, bufferSerializer, jsonDeserializer, jsonSerializer, stringDeserializer, stringDeserializers, stringSerializer, stringSerializers,
  type Deserializer, type Deserializers, type Serializer, type Serializers,
} from './client/serdes.js';
export { CLIENT_CHANNELS, type CommitMessage, type FetchMessage, type RebalanceMessage, type RequestMessage } from './client/diagnostics.js';
export { AuthenticationError, ConfigError, ConnectionError, NoBrokerReachableError, RequestTimeoutError, TimeoutError, UnsupportedApiVersionError } from './client/errors.js';
export type { CommonClientOptions } from './client/options.js';
export type { SecurityProtocol, SslOptions } from './client/ssl.js';
export type { SaslMechanism, SaslOptions } from './client/sasl.js';
// What clients throw or report from the protocol layer: broker error codes and corrupt data.
export { BrookError, ErrorCode, KafkaProtocolError, errorInfo, isRetriable, type ErrorCodeName, type KafkaErrorInfo } from './protocol/errors.js';
export { ProtocolDecodeError } from './protocol/primitives/decode-error.js';
export { CorruptRecordError, type CorruptRecordReason } from './protocol/records/errors.js';
export { createLogger, silentLogger, type Logger, type LogLevel } from './util/log.js';
export type { Scheduler, Clock, TimerHandle } from './util/clock.js';
export type { PartitionAssignor, TopicPartition, MemberSubscription, MemberAssignment, AssignmentInput, RebalanceProtocol } from './assignors/types.js';
export { Broker, type BrokerOptions, type BrokerStats } from './broker/broker.js';
export type { ListenerInfo } from './broker/listeners.js';
// The embedded broker as a test tool (docs/TESTING.md): hooks, injected faults, inspection.
export {
  BROKER_CHANNELS, type BrokerRequest, type BrokerRequestOf, type BrokerResponse, type BrokerResponseOf, type ApiRequestData, type ApiResponseData, type FaultSpec, type FaultHandle,
} from './broker/test-controls/request-controls.js';
export type { CoordinatorKey, CoordinatorMove, CoordinatorMoveError, MoveCoordinatorOptions } from './broker/test-controls/coordinator-move.js';
export type { BrokerSnapshot, SnapshotTopic, SnapshotPartition } from './broker/test-controls/snapshot.js';
export { GroupStateTimeoutError, type BrokerRecord, type CommittedOffsets } from './broker/test-controls/inspection.js';
export type { ApiName } from './protocol/messages/index.js';
