/** Brook's public API. */
export * from './protocol/index.js';
export * from './client/producer/index.js';
