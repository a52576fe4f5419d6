/** The sans-I/O protocol layer shared by broker and client. */
export * from './primitives/index.js';
export * from './messages/index.js';
export * from './errors.js';
export type { MessageCodec, StructSchema, FieldSchema, RawTaggedField } from './messages/runtime.js';
export * from './frame.js';
export * as coordinatorRecords from './coordinator-records/index.js';
export * from './consumer-protocol.js';
export * from './records/index.js';
