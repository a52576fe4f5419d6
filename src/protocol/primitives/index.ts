export { Reader } from './reader.js';
export { Writer } from './writer.js';
export { ProtocolDecodeError, ProtocolEncodeError } from './decode-error.js';
