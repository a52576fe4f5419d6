/**
 * The clients' diagnostics channels (node:diagnostics_channel): tracers and metrics
 * libraries subscribe by name, with no dependency on Brook. Each message is published when
 * the operation ends, and only while the channel has subscribers: without them, the cost
 * is one `hasSubscribers` check. Messages are plain objects; durations are in milliseconds
 * on the client's clock (its `scheduler`). docs/INSTRUMENTATION.md describes each one.
 */
import { channel } from 'node:diagnostics_channel';
import type { TopicPartition } from '../assignors/types.js';

export const CLIENT_CHANNELS = Object.freeze({
  request: 'brook:client:request',
  rebalance: 'brook:client:rebalance',
  commit: 'brook:client:commit',
  fetch: 'brook:client:fetch',
} as const);

/** One request to a broker, answered or failed (a Produce with acks=0 ends when written). */
export interface RequestMessage {
  readonly clientId: string;
  readonly broker: { readonly host: string; readonly port: number };
  readonly apiKey: number;
  /** Kafka's name of the API, e.g. 'Fetch', 'OffsetCommit'. */
  readonly api: string;
  readonly apiVersion: number;
  /** The request's correlation id; null when it was never written or the connection cannot tell. */
  readonly correlationId: number | null;
  /** The response's size in bytes (after its 4-byte length); null without a response. */
  readonly responseBytes: number | null;
  readonly durationMs: number;
  /** The response's top-level error code; null when the response has none (per-partition codes stay in the response) or it failed. */
  readonly errorCode: number | null;
  /** Why the request got no response (connection lost, timeout, abort); null when it got one. */
  readonly error: Error | null;
}

/** A rebalance of a consumer's group ended with a new assignment applied. */
export interface RebalanceMessage {
  readonly clientId: string;
  readonly groupId: string;
  readonly groupProtocol: 'classic' | 'consumer';
  readonly memberId: string;
  /** The classic generation id, or the consumer protocol's member epoch. */
  readonly generationId: number;
  /** Partitions the member did not own before. */
  readonly assigned: readonly TopicPartition[];
  /** Partitions the member owned before and does not any more. */
  readonly revoked: readonly TopicPartition[];
  /** The whole assignment now. */
  readonly assignment: readonly TopicPartition[];
  /** From the rebalance's start (JoinGroup prepared, or a new target assignment) to the assignment applied. */
  readonly durationMs: number;
}

/** An offset commit: commitSync (with its retries), commitAsync, auto-commit, the commits of rebalances and close. */
export interface CommitMessage {
  readonly clientId: string;
  readonly groupId: string;
  readonly offsets: readonly { readonly topic: string; readonly partition: number; readonly offset: bigint }[];
  readonly durationMs: number;
  /** Null when every offset was committed. */
  readonly error: Error | null;
}

/** One partition's data of a Fetch response, as the consumer buffered it. */
export interface FetchMessage {
  readonly clientId: string;
  readonly topic: string;
  readonly partition: number;
  readonly fetchOffset: bigint;
  readonly highWatermark: bigint;
  /** Records in the fetched batches (control records included, as the batch headers count them). */
  readonly records: number;
  /** Size of the fetched record batches. */
  readonly bytes: number;
}

export const requestChannel = channel(CLIENT_CHANNELS.request);
export const rebalanceChannel = channel(CLIENT_CHANNELS.rebalance);
export const commitChannel = channel(CLIENT_CHANNELS.commit);
export const fetchChannel = channel(CLIENT_CHANNELS.fetch);
