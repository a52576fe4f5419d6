/**
 * The consumer's instrumentation in one place: its metrics (./metrics.ts) and what it
 * publishes to the `brook:client:rebalance` and `brook:client:commit` diagnostics channels
 * (the fetcher publishes `brook:client:fetch`, every connection `brook:client:request`).
 * A rebalance starts when the member prepares to (re)join (classic) or starts reconciling
 * a new target assignment (consumer protocol), and ends when the new assignment is applied.
 */
import type { TopicPartition } from '../../assignors/types.js';
import type { Clock } from '../../util/clock.js';
import { commitChannel, rebalanceChannel, type CommitMessage, type RebalanceMessage } from '../diagnostics.js';
import { ConsumerMetricsRecorder, type ConsumerMetrics } from './metrics.js';
import type { OffsetToCommit } from './offset-committer.js';
import { tpKey, type SubscriptionState } from './subscription-state.js';

export interface MemberIdentity {
  readonly groupProtocol: 'classic' | 'consumer';
  readonly memberId: string;
  readonly generationId: number;
}

export class ConsumerInstrumentation {
  readonly metrics: ConsumerMetricsRecorder;
  private rebalanceStartedMs: number | null = null;
  private ownedBefore: TopicPartition[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly clientId: string,
    private readonly groupId: string | null,
    private readonly subscriptions: SubscriptionState,
    /** The member's identity once the assignment is applied (generation or member epoch). */
    private readonly member: () => MemberIdentity,
  ) {
    this.metrics = new ConsumerMetricsRecorder(clock);
  }

  snapshot(): ConsumerMetrics {
    return this.metrics.snapshot(this.subscriptions);
  }

  /** A rebalance began (a retried join keeps its first start). */
  rebalanceStarted(): void {
    if (this.rebalanceStartedMs !== null) return;
    this.rebalanceStartedMs = this.clock.nowMs();
    this.ownedBefore = this.subscriptions.assignedPartitions();
  }

  /** The rebalance's assignment was applied. */
  rebalanceCompleted(): void {
    const now = this.clock.nowMs();
    const durationMs = now - (this.rebalanceStartedMs ?? now);
    this.rebalanceStartedMs = null;
    this.metrics.rebalances.record(durationMs);
    if (!rebalanceChannel.hasSubscribers || this.groupId === null) return;
    const assignment = this.subscriptions.assignedPartitions();
    const member = this.member();
    const message: RebalanceMessage = {
      clientId: this.clientId, groupId: this.groupId, groupProtocol: member.groupProtocol, memberId: member.memberId,
      generationId: member.generationId, assigned: minus(assignment, this.ownedBefore), revoked: minus(this.ownedBefore, assignment),
      assignment, durationMs,
    };
    rebalanceChannel.publish(message);
  }

  /** A commit operation (with its retries) ended. */
  commitCompleted(offsets: readonly OffsetToCommit[], durationMs: number, error: Error | null): void {
    this.metrics.committed(durationMs, error !== null);
    if (!commitChannel.hasSubscribers || this.groupId === null) return;
    const message: CommitMessage = {
      clientId: this.clientId, groupId: this.groupId, durationMs, error,
      offsets: offsets.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset })),
    };
    commitChannel.publish(message);
  }
}

function minus(a: readonly TopicPartition[], b: readonly TopicPartition[]): TopicPartition[] {
  const keys = new Set(b.map((tp) => tpKey(tp.topic, tp.partition)));
  return a.filter((tp) => !keys.has(tpKey(tp.topic, tp.partition)));
}
