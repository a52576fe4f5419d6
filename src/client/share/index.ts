/** The share consumer client (KIP-932 share groups). */
export { ShareConsumer } from './share-consumer.js';
export type { ShareConsumerOptions, AcknowledgementMode } from './options.js';
export type { ShareConsumerRecord } from './share-completed-fetch.js';
export type { AcknowledgeType, AcknowledgementCommit, AcknowledgementCommitCallback } from './acknowledgements.js';
