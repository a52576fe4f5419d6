/** The consumer client. */
export { Consumer, type PollOptions, type CallOptions, type CloseOptions } from './consumer.js';
export type { ConsumerOptions, AutoOffsetReset, IsolationLevel, GroupProtocol } from './options.js';
export type { ConsumerRecord, ConsumerRecordHeader, RawRecord, RawRecordVisitor } from './record-decoding.js';
export { recordHeaders } from './record-decoding.js';
export { ConsumerRecordView } from './record-view.js';
export type { RebalanceListener } from './subscription-state.js';
export type { OffsetToCommit, CommitCallback } from './offset-committer.js';
export type { ConsumerMetrics, PartitionLag } from './metrics.js';
export { resolveAssignors, commonRebalanceProtocol, DEFAULT_ASSIGNORS } from './assignor-registry.js';
export {
  CommitFailedError, RebalanceInProgressError, FencedInstanceIdError, NoOffsetForPartitionError, UnknownAssignorError, IllegalConsumerStateError, GroupError, ConsumerAbortedError,
  RecordDeserializationError, type DeserializationOrigin,
} from './errors.js';
