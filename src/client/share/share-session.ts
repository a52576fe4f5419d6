/**
 * The share session with one leader (Kafka's ShareSessionHandler): the first ShareFetch
 * opens it at epoch 0 naming every partition; later requests carry the next epoch and only
 * what changed (partitions added, forgotten, or with acknowledgements). A broker ties the
 * session to the connection that opened it, so a new connection means a new session. The
 * session's requests go one at a time: each carries the epoch after the previous one's.
 */
import { INT32_MAX } from '../options.js';
import type { BrokerConnection } from '../connection.js';
import type { SharePartition } from './share-membership.js';

/** ShareFetch/ShareAcknowledge epochs with a meaning of their own. */
export const INITIAL_SHARE_SESSION_EPOCH = 0;
export const FINAL_SHARE_SESSION_EPOCH = -1;

export function sharePartitionKey(p: { readonly topicId: string; readonly partition: number }): string {
  return `${p.topicId}:${p.partition}`;
}

export class ShareSession {
  epoch = INITIAL_SHARE_SESSION_EPOCH;
  /** The partitions the broker's session holds: sent by an earlier request of this session and not forgotten. */
  readonly held = new Map<string, SharePartition>();
  /** A ShareFetch of this session is in flight. */
  fetching = false;
  private connection: BrokerConnection | null = null;
  private tail: Promise<unknown> = Promise.resolve();

  constructor(readonly nodeId: number) {}

  /** True while no request opened the session (acknowledgements cannot go at epoch 0). */
  get initial(): boolean {
    return this.epoch === INITIAL_SHARE_SESSION_EPOCH;
  }

  /** Runs `request` after the session's earlier requests ended. */
  run<T>(request: () => Promise<T>): Promise<T> {
    const result = this.tail.then(request, request);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** The connection for the next request: a different one than the session's starts a new session. */
  use(connection: BrokerConnection): void {
    if (connection !== this.connection && !this.initial) this.reset();
    this.connection = connection;
  }

  /** A request of the session was answered without a session error. */
  advance(added: Iterable<SharePartition>, forgotten: Iterable<SharePartition>): void {
    this.epoch = this.epoch === INT32_MAX ? 1 : this.epoch + 1;
    for (const p of added) this.held.set(sharePartitionKey(p), p);
    for (const p of forgotten) this.held.delete(sharePartitionKey(p));
  }

  /** The broker lost the session (SHARE_SESSION_NOT_FOUND, INVALID_SHARE_SESSION_EPOCH, a broken connection), or it was closed. */
  reset(): void {
    this.epoch = INITIAL_SHARE_SESSION_EPOCH;
    this.held.clear();
    this.connection = null;
  }
}
