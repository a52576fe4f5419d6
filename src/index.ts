/** Brook's public API. */
export * from './protocol/index.js';
