/**
 * What the consumer consumes (Java's SubscriptionState): the subscription (topics, a
 * pattern, or a manual assignment), the assigned partitions, and per partition a
 * TopicPartitionState holding the **position** (next offset to give the application), the
 * **consumed** offset (the offset after the last record the application has finished with:
 * what commits send) and the **committed** offset separately, pause flag and pending
 * offset reset.
 *
 * Position and consumed differ while the application works on records already handed
 * out: a commit of the position would claim records it has not finished (and lose them if
 * it dies). A record counts as consumed once the application comes back for more (the
 * next poll(), the next step of the async iterator) or closes the consumer; an explicit
 * seek, or an explicit commit of an offset, also moves it.
 */
import type { TopicPartition } from '../../assignors/types.js';
import { IllegalConsumerStateError } from './errors.js';
import type { AutoOffsetReset } from './options.js';

export type SubscriptionType = 'none' | 'topics' | 'pattern' | 'assigned';

export interface RebalanceListener {
  onPartitionsRevoked?(partitions: TopicPartition[]): void | Promise<void>;
  onPartitionsAssigned?(partitions: TopicPartition[]): void | Promise<void>;
  /** Partitions taken away without a chance to commit (session lost); defaults to onPartitionsRevoked, as Java. */
  onPartitionsLost?(partitions: TopicPartition[]): void | Promise<void>;
}

export interface OffsetAndEpoch {
  readonly offset: bigint;
  readonly leaderEpoch: number;
}

export class TopicPartitionState implements TopicPartition {
  /** Next offset to give the application; null until initialised (committed offset or reset). */
  position: bigint | null = null;
  /** Leader epoch of the last record handed out (committed along with the offset). */
  positionLeaderEpoch = -1;
  /** The offset after the last record the application has finished with; null until the position is set. */
  consumed: bigint | null = null;
  /** Leader epoch of the last consumed record (committed along with the offset). */
  consumedLeaderEpoch = -1;
  /** Last committed offset this consumer knows of (from OffsetFetch or its own commits). */
  committed: bigint | null = null;
  paused = false;
  /**
   * Being revoked (consumer protocol): no new fetches and no more records handed out while
   * the commit and onPartitionsRevoked run, so the position cannot move past what is
   * committed (Java's markPendingRevocation).
   */
  revoking = false;
  /** A pending reset (auto.offset.reset or seekToBeginning/End). */
  resetStrategy: AutoOffsetReset | null = null;
  highWatermark = -1n;
  /** Bumped on every seek/reset so stale fetch responses are recognised and dropped. */
  epoch = 0;

  constructor(readonly topic: string, readonly partition: number) {}

  get hasValidPosition(): boolean {
    return this.position !== null && this.resetStrategy === null;
  }

  /** Sets the position; the application chose it (or it is the starting point), so it counts as consumed too. */
  seek(offset: bigint, leaderEpoch = -1): void {
    this.position = offset;
    this.positionLeaderEpoch = leaderEpoch;
    this.consumed = offset;
    this.consumedLeaderEpoch = leaderEpoch;
    this.resetStrategy = null;
    this.epoch++;
  }

  /** The application finished with everything before `offset` (never moves consumed back). */
  markConsumed(offset: bigint, leaderEpoch: number): void {
    if (this.consumed !== null && offset <= this.consumed) return;
    this.consumed = offset;
    if (leaderEpoch >= 0) this.consumedLeaderEpoch = leaderEpoch;
  }

  requestReset(strategy: AutoOffsetReset): void {
    this.resetStrategy = strategy;
    this.epoch++;
  }
}

export function tpKey(topic: string, partition: number): string {
  return `${topic}:${partition}`;
}

export function sortPartitions<T extends TopicPartition>(list: T[]): T[] {
  return list.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

export class SubscriptionState {
  type: SubscriptionType = 'none';
  /** Explicit topics, or for a pattern the topics it currently matches. */
  topics: string[] = [];
  pattern: RegExp | null = null;
  listener: RebalanceListener = {};
  private readonly assigned = new Map<string, TopicPartitionState>();

  constructor(private readonly defaultReset: AutoOffsetReset) {}

  private setType(type: SubscriptionType): void {
    if (this.type !== 'none' && this.type !== type && !(this.type !== 'assigned' && type !== 'assigned')) {
      throw new IllegalConsumerStateError('subscribe() and assign() cannot be mixed; call unsubscribe() first');
    }
    this.type = type;
  }

  subscribe(topics: readonly string[], listener: RebalanceListener): void {
    this.setType('topics');
    this.topics = [...new Set(topics)].sort();
    this.pattern = null;
    this.listener = listener;
  }

  subscribePattern(pattern: RegExp, listener: RebalanceListener): void {
    this.setType('pattern');
    this.pattern = pattern;
    this.topics = [];
    this.listener = listener;
  }

  /** For a pattern subscription: the topics that match now; true when they changed. */
  matchTopics(allTopics: readonly string[]): boolean {
    const pattern = this.pattern;
    if (!pattern) return false;
    const matched = allTopics.filter((t) => { pattern.lastIndex = 0; return pattern.test(t); }).sort();
    const changed = matched.length !== this.topics.length || matched.some((t, i) => t !== this.topics[i]);
    this.topics = matched;
    return changed;
  }

  get usesGroup(): boolean {
    return this.type === 'topics' || this.type === 'pattern';
  }

  unsubscribe(): void {
    this.type = 'none';
    this.topics = [];
    this.pattern = null;
    this.listener = {};
    this.assigned.clear();
  }

  /** Manual assignment (assign()). */
  assignManually(partitions: readonly TopicPartition[]): void {
    this.setType('assigned');
    this.setAssignment(partitions);
  }

  /** Replaces the assignment, keeping the state of partitions that stay. */
  setAssignment(partitions: readonly TopicPartition[]): void {
    const next = new Map<string, TopicPartitionState>();
    for (const tp of partitions) {
      const key = tpKey(tp.topic, tp.partition);
      next.set(key, this.assigned.get(key) ?? new TopicPartitionState(tp.topic, tp.partition));
    }
    this.assigned.clear();
    for (const [k, v] of next) this.assigned.set(k, v);
  }

  assignedPartitions(): TopicPartition[] {
    return sortPartitions([...this.assigned.values()].map((s) => ({ topic: s.topic, partition: s.partition })));
  }

  states(): IterableIterator<TopicPartitionState> {
    return this.assigned.values();
  }

  get size(): number {
    return this.assigned.size;
  }

  stateOf(topic: string, partition: number): TopicPartitionState | undefined {
    return this.assigned.get(tpKey(topic, partition));
  }

  /** The state of an assigned partition, or an error naming it. */
  assignedState(tp: TopicPartition): TopicPartitionState {
    const s = this.assigned.get(tpKey(tp.topic, tp.partition));
    if (!s) throw new IllegalConsumerStateError(`partition ${tp.topic}-${tp.partition} is not assigned to this consumer`);
    return s;
  }

  /**
   * Java's allConsumed(): each assigned partition's consumed offset — what auto-commit,
   * commitSync() without offsets, the commit before a rebalance and close() send.
   */
  allConsumed(): ({ topic: string; partition: number } & OffsetAndEpoch)[] {
    const out: ({ topic: string; partition: number } & OffsetAndEpoch)[] = [];
    for (const s of this.assigned.values()) {
      if (s.consumed !== null && s.resetStrategy === null) {
        out.push({ topic: s.topic, partition: s.partition, offset: s.consumed, leaderEpoch: s.consumedLeaderEpoch });
      }
    }
    return out;
  }

  /** Every record handed out so far counts as consumed (the application came back for more, or is closing). */
  markPositionsConsumed(): void {
    for (const s of this.assigned.values()) {
      if (s.position !== null && s.resetStrategy === null) s.markConsumed(s.position, s.positionLeaderEpoch);
    }
  }

  /** True when some partition has a consumed offset that differs from its committed one: a commit has something to say. */
  consumedDiffersFromCommitted(): boolean {
    for (const s of this.assigned.values()) {
      if (s.consumed !== null && s.resetStrategy === null && s.consumed !== s.committed) return true;
    }
    return false;
  }

  /** Partitions whose position must be initialised: from the committed offset, else by reset. */
  missingPositions(): TopicPartitionState[] {
    return [...this.assigned.values()].filter((s) => s.position === null && s.resetStrategy === null);
  }

  needingReset(): TopicPartitionState[] {
    return [...this.assigned.values()].filter((s) => s.resetStrategy !== null);
  }

  /** No committed offset: apply auto.offset.reset. */
  requestDefaultReset(s: TopicPartitionState): void {
    s.requestReset(this.defaultReset);
  }

  get defaultResetStrategy(): AutoOffsetReset {
    return this.defaultReset;
  }

  fetchable(s: TopicPartitionState): boolean {
    return !s.paused && !s.revoking && s.hasValidPosition;
  }
}
