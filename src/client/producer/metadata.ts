/**
 * The producer's metadata needs on top of the shared Cluster cache: topics asked for with
 * allowAutoTopicCreation=true (as Java's producer does), refreshed in the background after
 * leader errors, coalesced so one Metadata request carries every topic that needs it, and
 * spaced by `retryBackoffMs`.
 */
import type { Cluster, TopicMetadata } from '../cluster.js';
import type { TimerHandle } from '../../util/clock.js';
import { ErrorCode, isRetriable, KafkaProtocolError } from '../../protocol/errors.js';

export class ProducerMetadata {
  private readonly wanted = new Set<string>();
  private running = false;
  private lastRefreshMs = -Infinity;
  /** Why the last refresh failed (null once one succeeds): a metadata timeout says it. */
  lastFailure: Error | null = null;
  private ageTimer: TimerHandle | null = null;

  constructor(
    private readonly cluster: Cluster,
    /** Called after every refresh (the sender and blocked sends look again). */
    private readonly onUpdate: () => void,
    /** Called when a topic's metadata carries an error that retrying will not cure. */
    private readonly onTopicError: (topic: string, err: KafkaProtocolError) => void,
  ) {}

  /** Partition count from the cache, or -1 when the topic is not known (yet). */
  partitionCount(topic: string): number {
    return this.cluster.topic(topic)?.partitions.length ?? -1;
  }

  leaderOf(topic: string, partition: number): number {
    return this.cluster.topic(topic)?.partitions[partition]?.leaderId ?? -1;
  }

  topic(name: string): TopicMetadata | undefined {
    return this.cluster.topic(name);
  }

  /**
   * Reads every known topic's metadata again each `maxAgeMs` (metadata.max.age.ms), as
   * Java's producer does, so partitions added to a topic get records (keys are placed over
   * the new count) without waiting for an error.
   */
  refreshEvery(maxAgeMs: number): void {
    this.ageTimer = this.cluster.scheduler.schedule(maxAgeMs, () => {
      for (const t of this.cluster.cachedTopics()) this.request(t.name);
      this.refreshEvery(maxAgeMs);
    });
  }

  stop(): void {
    this.ageTimer?.cancel();
    this.ageTimer = null;
  }

  /** Asks for a refresh that includes `topic`; requests coalesce. */
  request(topic: string): void {
    this.wanted.add(topic);
    if (!this.running) {
      this.running = true;
      void this.loop();
    }
  }

  private async loop(): Promise<void> {
    try {
      while (this.wanted.size > 0) {
        const wait = this.lastRefreshMs + this.cluster.retryBackoffMs - this.cluster.scheduler.nowMs();
        if (wait > 0) await this.cluster.backoff(undefined, wait);
        const topics = [...this.wanted];
        this.wanted.clear();
        this.lastRefreshMs = this.cluster.scheduler.nowMs();
        try {
          const result = await this.cluster.refreshMetadata(topics, undefined, true);
          this.lastFailure = null;
          for (const t of result) {
            if (t.errorCode !== ErrorCode.NONE && !isRetriable(t.errorCode) && t.errorCode !== ErrorCode.LEADER_NOT_AVAILABLE) {
              this.onTopicError(t.name, new KafkaProtocolError(t.errorCode, `metadata of topic ${t.name}`));
            }
          }
        } catch (err) {
          this.lastFailure = err as Error;
          this.cluster.logger.debug('producer metadata refresh failed', { error: err as Error });
        }
        this.onUpdate();
      }
    } finally {
      this.running = false;
    }
  }
}
