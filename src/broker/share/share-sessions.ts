/**
 * Share sessions (KIP-932), as Kafka's ShareSessionCache: one per (group, member), holding
 * the share-partitions the member fetches, so that a ShareFetch after the first names only
 * what changed. Epoch 0 opens a session (replacing the member's previous one), -1 closes it,
 * and each other request must carry the epoch after the last one's. A session belongs to the
 * connection that opened it: when that connection closes, the session goes and the records
 * the member acquired through it are released (Kafka's connection disconnect listener).
 */
import { ErrorCode } from '../../protocol/errors.js';

export const INITIAL_SHARE_SESSION_EPOCH = 0;
export const FINAL_SHARE_SESSION_EPOCH = -1;

/** A share-partition a session fetches: its topic by id, and the topic's name when it is known. */
export interface SharePartitionRef {
  readonly topicId: string;
  readonly partition: number;
}

export class ShareSession {
  /** The epoch the next request must carry. */
  epoch = 1;
  /** The session's share-partitions in the order they were added, keyed `topicId:partition`. */
  readonly partitions = new Map<string, SharePartitionRef>();

  constructor(readonly groupId: string, readonly memberId: string, readonly connection: object) {}

  add(refs: Iterable<SharePartitionRef>): void {
    for (const ref of refs) {
      const key = sharePartitionRefKey(ref);
      if (!this.partitions.has(key)) this.partitions.set(key, ref);
    }
  }

  forget(refs: Iterable<SharePartitionRef>): void {
    for (const ref of refs) this.partitions.delete(sharePartitionRefKey(ref));
  }
}

export function sharePartitionRefKey(ref: SharePartitionRef): string {
  return `${ref.topicId}:${ref.partition}`;
}

/** The outcome of a request's session epoch: the session to use, or the error to answer. */
export type ShareSessionLookup = { readonly session: ShareSession } | { readonly errorCode: number };

export class ShareSessionCache {
  private readonly sessions = new Map<string, ShareSession>();

  /** `maxSessions`: group.share.max.share.sessions. */
  constructor(private readonly maxSessions: number) {}

  get size(): number {
    return this.sessions.size;
  }

  get(groupId: string, memberId: string): ShareSession | undefined {
    return this.sessions.get(key(groupId, memberId));
  }

  /**
   * Opens the member's session (epoch 0), replacing an earlier one, which is returned so its
   * acquired records can be released; SHARE_SESSION_LIMIT_REACHED when the cache is full.
   */
  open(groupId: string, memberId: string, connection: object): { session: ShareSession; replaced: ShareSession | undefined } | { errorCode: number } {
    const k = key(groupId, memberId);
    const replaced = this.sessions.get(k);
    if (replaced === undefined && this.sessions.size >= this.maxSessions) return { errorCode: ErrorCode.SHARE_SESSION_LIMIT_REACHED };
    const session = new ShareSession(groupId, memberId, connection);
    this.sessions.set(k, session);
    return { session, replaced };
  }

  /** The session a request with `epoch` (neither 0 nor -1 for a fetch) continues, its epoch moved on. */
  next(groupId: string, memberId: string, epoch: number): ShareSessionLookup {
    const session = this.sessions.get(key(groupId, memberId));
    if (session === undefined) return { errorCode: ErrorCode.SHARE_SESSION_NOT_FOUND };
    if (epoch === FINAL_SHARE_SESSION_EPOCH) return { session };
    if (session.epoch !== epoch) return { errorCode: ErrorCode.INVALID_SHARE_SESSION_EPOCH };
    session.epoch = epoch === 0x7fffffff ? 1 : epoch + 1;
    return { session };
  }

  remove(session: ShareSession): void {
    const k = key(session.groupId, session.memberId);
    if (this.sessions.get(k) === session) this.sessions.delete(k);
  }

  /** Removes and returns the sessions a closed connection opened. */
  removeConnection(connection: object): ShareSession[] {
    const gone: ShareSession[] = [];
    for (const [k, session] of this.sessions) {
      if (session.connection !== connection) continue;
      this.sessions.delete(k);
      gone.push(session);
    }
    return gone;
  }

  /** Removes the member's session (it left its group), if any. */
  removeMember(groupId: string, memberId: string): ShareSession | undefined {
    const k = key(groupId, memberId);
    const session = this.sessions.get(k);
    if (session !== undefined) this.sessions.delete(k);
    return session;
  }
}

function key(groupId: string, memberId: string): string {
  return `${groupId}\u0000${memberId}`;
}
