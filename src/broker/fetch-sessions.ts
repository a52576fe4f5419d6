/**
 * Incremental fetch sessions (KIP-227), as Kafka 4.4's FetchSessionCache and FetchManager.
 *
 * A consumer's Fetch with session epoch 0 (a full request) may create a session: the broker
 * caches every requested partition with its request parameters and the high watermark and
 * log start offset it answered, and returns the session's id. The consumer's next requests
 * (incremental: that id and epochs 1, 2, ...) carry only the partitions whose parameters
 * changed (a new fetch offset) and the ones to forget; the broker reads every cached
 * partition and answers only those with something new: records, a moved high watermark or
 * log start offset, or an error. Partitions that returned records move to the end of the
 * session, so a response bounded by maxBytes serves the others next time.
 *
 * Request metadata (session id, epoch): (0, -1) is a plain fetch without a session; (id, -1)
 * closes session id and fetches without one; (id, 0) closes id (when not 0) and asks for a
 * new session; (id, epoch > 0) continues session id, whose expected epoch must match
 * (FETCH_SESSION_ID_NOT_FOUND, INVALID_FETCH_SESSION_EPOCH otherwise), and whose
 * topic naming (ids from Fetch v13, names before) must be the request's
 * (FETCH_SESSION_TOPIC_ID_ERROR). An incremental request that leaves the session empty
 * closes it and is answered without one.
 *
 * Capacity as Kafka's: `max.incremental.fetch.session.cache.slots` (1000) split over 8
 * shards, each holding slots / 8 sessions; new sessions go to the shards in turn and each
 * shard hands out ids from its own range. A full shard evicts, for a new session, its least
 * recently used session when that one has been idle for more than 120 s; otherwise a session
 * created more than 120 s before its last use and holding fewer partitions than the new one
 * asks for; otherwise no session is created (session id 0: the client goes on with full
 * requests). Brook has no followers, so every session is a consumer's ("unprivileged").
 *
 * Pure state: the caller passes the time.
 */
import type { FetchRequestFetchPartition } from '../protocol/messages/fetch.js';

export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
/** Kafka's `max.incremental.fetch.session.cache.slots` default. */
export const DEFAULT_FETCH_SESSION_CACHE_SLOTS = 1000;
/** Kafka's MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS (not configurable there either). */
export const FETCH_SESSION_EVICTION_MS = 120_000;
/** Kafka's NumFetchSessionCacheShards. */
export const FETCH_SESSION_CACHE_SHARDS = 8;
const MAX_INT = 0x7fffffff;

/** The epoch after `epoch` (Kafka's FetchMetadata.nextEpoch): wraps to 1, never back to 0. */
export function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  return epoch === MAX_INT ? 1 : epoch + 1;
}

/** One partition of a session: what the client asked last, and what the broker last answered. */
export interface CachedPartition {
  /** The topic's name; undefined for a topic id this broker does not know (Fetch v13+). */
  topic: string | undefined;
  /** The topic's id (Fetch v13+), the zero UUID before. */
  readonly topicId: string;
  readonly partition: number;
  /** The request parameters to read with (fetch offset, max bytes, ...), as last sent. */
  request: FetchRequestFetchPartition;
  /** The high watermark last answered; -1 after an error, so the partition is answered again once it clears. */
  highWatermark: bigint;
  /** The log start offset last answered. */
  logStartOffset: bigint;
}

/** The key of a partition within a session: by topic id when the session uses ids, else by name. */
export function partitionKey(usesTopicIds: boolean, topic: string | undefined, topicId: string, partition: number): string {
  return `${usesTopicIds ? topicId : topic ?? ''}\u0000${partition}`;
}

export class FetchSession {
  /** Cached partitions in the order they are read and answered. */
  readonly partitions = new Map<string, CachedPartition>();
  lastUsedMs: number;
  /** Whether it may be evicted by a larger new session (it was created over 120 s before its last use). */
  evictableBySize = false;

  constructor(
    readonly id: number,
    readonly usesTopicIds: boolean,
    readonly creationMs: number,
    /** The epoch the next incremental request must carry. */
    public epoch: number,
  ) {
    this.lastUsedMs = creationMs;
  }

  get size(): number {
    return this.partitions.size;
  }

  /** Adds or updates the requested partitions, then drops the forgotten ones (Kafka's order). */
  update(requested: readonly CachedPartition[], forgotten: readonly string[]): void {
    for (const p of requested) {
      const key = partitionKey(this.usesTopicIds, p.topic, p.topicId, p.partition);
      const cached = this.partitions.get(key);
      if (cached === undefined) this.partitions.set(key, p);
      else cached.request = p.request;
    }
    for (const key of forgotten) this.partitions.delete(key);
  }

  /** Moves a partition to the end of the session's order. */
  moveToEnd(p: CachedPartition): void {
    const key = partitionKey(this.usesTopicIds, p.topic, p.topicId, p.partition);
    this.partitions.delete(key);
    this.partitions.set(key, p);
  }
}

class CacheShard {
  readonly sessions = new Map<number, FetchSession>();

  constructor(
    private readonly maxEntries: number,
    private readonly evictionMs: number,
    private readonly idBase: number,
    private readonly idRange: number,
    private readonly random: () => number,
  ) {}

  newSessionId(): number {
    const low = Math.max(1, this.idBase);
    const high = this.idBase + this.idRange;
    for (;;) {
      const id = low + Math.floor(this.random() * (high - low));
      if (id !== INVALID_SESSION_ID && !this.sessions.has(id)) return id;
    }
  }

  touch(session: FetchSession, nowMs: number): void {
    session.lastUsedMs = nowMs;
    session.evictableBySize = nowMs - session.creationMs > this.evictionMs;
  }

  /** Room for a new session of `size` partitions, evicting one if Kafka's rules allow. */
  makeRoom(size: number, nowMs: number): boolean {
    if (this.sessions.size < this.maxEntries) return true;
    let lru: FetchSession | null = null;
    let smallest: FetchSession | null = null;
    for (const s of this.sessions.values()) {
      if (lru === null || s.lastUsedMs < lru.lastUsedMs || (s.lastUsedMs === lru.lastUsedMs && s.id < lru.id)) lru = s;
      if (s.evictableBySize && (smallest === null || s.size < smallest.size || (s.size === smallest.size && s.id < smallest.id))) smallest = s;
    }
    if (lru === null) return false;
    if (nowMs - lru.lastUsedMs > this.evictionMs) {
      this.sessions.delete(lru.id);
      return true;
    }
    // Kafka compares (size, id) with the new session's id as 0: only a strictly larger session wins.
    if (smallest !== null && size > smallest.size) {
      this.sessions.delete(smallest.id);
      return true;
    }
    return false;
  }
}

export interface FetchSessionCacheOptions {
  /** `max.incremental.fetch.session.cache.slots`: sessions across all shards. */
  readonly slots?: number;
  readonly evictionMs?: number;
  /** Random numbers in [0, 1) for session ids (tests inject their own). */
  readonly random?: () => number;
}

export class FetchSessionCache {
  private readonly shards: CacheShard[];
  private readonly idRange = Math.floor(MAX_INT / FETCH_SESSION_CACHE_SHARDS);
  private nextShard = 0;
  /** Sessions evicted to make room for new ones (Kafka's IncrementalFetchSessionEvictionsPerSec). */
  evictions = 0;

  constructor(options: FetchSessionCacheOptions = {}) {
    const slots = options.slots ?? DEFAULT_FETCH_SESSION_CACHE_SLOTS;
    const perShard = Math.floor(slots / FETCH_SESSION_CACHE_SHARDS);
    this.shards = Array.from({ length: FETCH_SESSION_CACHE_SHARDS }, (_, i) => new CacheShard(
      perShard, options.evictionMs ?? FETCH_SESSION_EVICTION_MS, i * this.idRange, this.idRange, options.random ?? Math.random,
    ));
  }

  private shardOf(id: number): CacheShard | undefined {
    if (!Number.isInteger(id) || id <= 0) return undefined;
    return this.shards[Math.floor(id / this.idRange)];
  }

  get(id: number): FetchSession | undefined {
    return this.shardOf(id)?.sessions.get(id);
  }

  remove(id: number): boolean {
    return this.shardOf(id)?.sessions.delete(id) ?? false;
  }

  /** Sessions cached (Kafka's NumIncrementalFetchSessions). */
  get size(): number {
    let n = 0;
    for (const s of this.shards) n += s.sessions.size;
    return n;
  }

  /** Partitions cached over all sessions (Kafka's NumIncrementalFetchPartitionsCached). */
  get partitionsCached(): number {
    let n = 0;
    for (const shard of this.shards) for (const s of shard.sessions.values()) n += s.size;
    return n;
  }

  /** Marks a session used now (it continues with an incremental request). */
  touch(session: FetchSession, nowMs: number): void {
    this.shardOf(session.id)?.touch(session, nowMs);
  }

  /** A new session for these partitions when the next shard has room (or may evict); null otherwise. */
  maybeCreate(partitions: readonly CachedPartition[], usesTopicIds: boolean, nowMs: number): FetchSession | null {
    const shard = this.shards[this.nextShard]!;
    this.nextShard = (this.nextShard + 1) % this.shards.length;
    const before = shard.sessions.size;
    if (!shard.makeRoom(partitions.length, nowMs)) return null;
    if (shard.sessions.size < before) this.evictions++;
    const session = new FetchSession(shard.newSessionId(), usesTopicIds, nowMs, nextEpoch(INITIAL_EPOCH));
    session.update(partitions, []);
    shard.sessions.set(session.id, session);
    shard.touch(session, nowMs);
    return session;
  }
}
