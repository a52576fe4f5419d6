/**
 * Topic ids of a consumer-protocol assignment resolved to names (Java's
 * assignedTopicNamesCache and findResolvableAssignmentAndTriggerMetadataUpdate): from the
 * client's metadata, else from the names of topics still assigned (metadata may have
 * dropped a topic being revoked). Ids nobody knows yet — a topic subscribed or created a
 * moment ago — start a metadata refresh, at most every retry.backoff.ms; the caller
 * reconciles what resolves and waits for the rest.
 */
import type { TopicPartition } from '../../../assignors/types.js';
import { sortPartitions } from '../subscription-state.js';
import type { MembershipContext } from './group-member.js';
import type { LocalAssignment } from './local-assignment.js';

export interface ResolvedAssignment {
  /** Topic id → partitions, for the topics whose names are known. */
  readonly assigned: Map<string, number[]>;
  readonly partitions: TopicPartition[];
  /** How many topics are still unknown. */
  readonly unresolved: number;
}

export class AssignedTopics {
  private readonly names = new Map<string, string>();
  private refreshing: Promise<void> | null = null;
  private lastRefreshMs = Number.NEGATIVE_INFINITY;
  /** The target's local epoch when the last completed refresh began (-1: none since the member joined). */
  refreshedForEpoch = -1;

  constructor(private readonly ctx: MembershipContext) {}

  resolve(target: LocalAssignment): ResolvedAssignment {
    const byId = new Map(this.ctx.cluster.cachedTopics().map((t) => [t.topicId, t.name]));
    const assigned = new Map<string, number[]>();
    const partitions: TopicPartition[] = [];
    let unresolved = 0;
    for (const [topicId, ps] of target.partitions) {
      const name = byId.get(topicId) ?? this.names.get(topicId);
      if (name === undefined) {
        unresolved++;
        continue;
      }
      this.names.set(topicId, name);
      assigned.set(topicId, [...ps]);
      for (const partition of ps) partitions.push({ topic: name, partition });
    }
    return { assigned, partitions: sortPartitions(partitions), unresolved };
  }

  /** Forgets the names of topics no longer assigned nor targeted. */
  retain(topicIds: ReadonlySet<string>): void {
    for (const topicId of [...this.names.keys()]) if (!topicIds.has(topicId)) this.names.delete(topicId);
  }

  clear(): void {
    this.names.clear();
    this.refreshedForEpoch = -1;
  }

  /**
   * Refreshes metadata (the subscribed topics, or every topic for a pattern) unless a refresh
   * is under way; `targetEpoch` is read as it begins; the consumer is woken when it ends.
   */
  refresh(targetEpoch: () => number): void {
    if (this.refreshing) return;
    const { cluster, subscriptions, options, logger } = this.ctx;
    const wait = Math.max(0, this.lastRefreshMs + options.retryBackoffMs - cluster.scheduler.nowMs());
    let epoch = -1;
    this.refreshing = cluster.scheduler.sleep(wait)
      .then(() => {
        this.lastRefreshMs = cluster.scheduler.nowMs();
        epoch = targetEpoch();
        return cluster.refreshMetadata(subscriptions.type === 'topics' ? subscriptions.topics : null);
      })
      .then(() => { this.refreshedForEpoch = Math.max(this.refreshedForEpoch, epoch); }, (err: unknown) => logger.debug('metadata refresh for assigned topic ids failed', { error: err as Error }))
      .finally(() => {
        this.refreshing = null;
        this.ctx.wake();
      });
  }
}
