/**
 * What a consumer does in each rebalance of a classic group (Java's ConsumerCoordinator, the
 * consumer's side of AbstractCoordinator's hooks), driven by ClassicMembership, which owns
 * the lifecycle and calls each step in turn:
 *
 * - the JoinGroup protocols: one per configured assignor, metadata = ConsumerProtocolSubscription;
 * - before joining (onJoinPrepare): commit consumed offsets, then eager revokes everything,
 *   cooperative only unsubscribed topics; a reset generation loses the partitions instead;
 * - the leader's assignment: the chosen assignor over every member's subscription with
 *   current partition counts;
 * - the SyncGroup assignment: cooperative revokes what moved (a second round follows), then
 *   the assignment applies and the listener hears of it;
 * - the leader's (and a pattern's) check of metadata: new partitions, new matches.
 *
 * It answers with values (whether partitions were revoked, the reason metadata calls for a
 * rebalance) and never calls back into the membership.
 */
import type { MemberSubscription, PartitionAssignor, RebalanceProtocol, TopicPartition } from '../../../assignors/types.js';
import { decodeAssignmentLenient, decodeSubscriptionLenient, encodeAssignment, encodeSubscription } from '../../../protocol/consumer-protocol.js';
import { ErrorCode, KafkaProtocolError } from '../../../protocol/errors.js';
import type { BrokerConnection } from '../../connection.js';
import { commonRebalanceProtocol } from '../assignor-registry.js';
import { GroupError } from '../errors.js';
import { sortPartitions, tpKey } from '../subscription-state.js';
import type { MembershipContext } from './group-member.js';

/** A member of the group as JoinGroup gave it to the leader. */
export interface JoinedMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly metadata: Buffer;
}

/** The SyncGroup assignment, compared with what the member owned. */
export interface ReceivedAssignment {
  readonly assigned: TopicPartition[];
  readonly added: TopicPartition[];
  /** Cooperative: partitions given up (already revoked through the listener); another round must follow. */
  readonly revoked: boolean;
}

function group(partitions: readonly TopicPartition[]): { topic: string; partitions: number[] }[] {
  const byTopic = new Map<string, number[]>();
  for (const tp of partitions) {
    let list = byTopic.get(tp.topic);
    if (!list) byTopic.set(tp.topic, list = []);
    list.push(tp.partition);
  }
  return [...byTopic].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([topic, ps]) => ({ topic, partitions: ps.sort((x, y) => x - y) }));
}

function minus(a: readonly TopicPartition[], b: readonly TopicPartition[]): TopicPartition[] {
  const keys = new Set(b.map((tp) => tpKey(tp.topic, tp.partition)));
  return a.filter((tp) => !keys.has(tpKey(tp.topic, tp.partition)));
}

export class ClassicRebalance {
  readonly protocol: RebalanceProtocol;
  /** The leader's partition counts at its last assignment (Java's assignmentSnapshot). */
  private assignmentSnapshot: Map<string, number> | null = null;
  /** Topics subscribed when we last joined (a pattern's matches may change). */
  private joinedTopics: string[] = [];

  constructor(private readonly ctx: MembershipContext, private readonly assignors: readonly PartitionAssignor[]) {
    this.protocol = commonRebalanceProtocol(assignors);
  }

  /**
   * Refreshes metadata for the subscription (every topic for a pattern); returns partition
   * counts. Subscribed topics the broker refuses to describe come back as a
   * TOPIC_AUTHORIZATION_FAILED error for the application (Java's consumer throws
   * TopicAuthorizationException from poll() after such a refresh); the topics get no partitions.
   */
  async refreshSubscriptionMetadata(signal?: AbortSignal): Promise<{ counts: Map<string, number>; unauthorized: KafkaProtocolError | null }> {
    const pattern = this.ctx.subscriptions.type === 'pattern';
    const topics = await this.ctx.cluster.refreshMetadata(pattern ? null : this.ctx.subscriptions.topics, signal);
    if (pattern) this.ctx.subscriptions.matchTopics(topics.filter((t) => !t.internal && t.errorCode === 0).map((t) => t.name));
    const refused = pattern ? [] : topics.filter((t) => t.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED).map((t) => t.name);
    return {
      counts: new Map(this.ctx.cluster.cachedTopics().map((t) => [t.name, t.partitions.length])),
      unauthorized: refused.length === 0 ? null : new KafkaProtocolError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, `Not authorized to access topics: [${refused.join(', ')}]`),
    };
  }

  /** JoinGroup's protocols: one per assignor, preferred first; `generationId` is the member's current one (-1: none). */
  protocols(generationId: number): { name: string; metadata: Buffer }[] {
    this.joinedTopics = [...this.ctx.subscriptions.topics];
    const owned = this.ctx.subscriptions.assignedPartitions();
    const context = { topics: this.joinedTopics, ownedPartitions: owned, generationId };
    return this.assignors.map((a) => ({
      name: a.name,
      metadata: a.subscriptionMetadata?.(context) ?? encodeSubscription({
        topics: this.joinedTopics,
        userData: a.subscriptionUserData(context),
        ownedPartitions: group(owned),
        generationId,
        rackId: this.ctx.options.clientRack,
      }),
    }));
  }

  /**
   * Before (re)joining: commit what was consumed, then give up partitions through the
   * listener (eager: all of them; cooperative: those of topics no longer subscribed).
   * `generationValid` false means the generation was reset: the partitions are lost instead.
   * `member` is read after the commit, which may have reset the generation.
   */
  async onJoinPrepare(generationValid: boolean, member: { readonly generationId: number }): Promise<void> {
    const { subscriptions, options, committer } = this.ctx;
    this.ctx.rebalanceStarted();
    const owned = subscriptions.assignedPartitions();
    if (!generationValid) {
      if (owned.length > 0) await this.ctx.callListener('onPartitionsLost', owned);
      subscriptions.setAssignment([]);
      return;
    }
    if (options.enableAutoCommit) {
      try {
        await this.ctx.withCallLimit('commit before rebalance', undefined, (signal) => committer.commitSync(subscriptions.allConsumed(), signal));
      } catch (err) {
        this.ctx.logger.warn('commit before rebalance failed', { error: err as Error });
      }
    }
    if (this.protocol === 'eager') {
      if (owned.length > 0 || member.generationId >= 0) await this.ctx.callListener('onPartitionsRevoked', owned);
      subscriptions.setAssignment([]);
    } else {
      // Cooperative: keep what we own, except topics no longer subscribed.
      const subscribed = new Set(subscriptions.topics);
      const gone = owned.filter((tp) => !subscribed.has(tp.topic));
      if (gone.length > 0) {
        await this.ctx.callListener('onPartitionsRevoked', gone);
        subscriptions.setAssignment(minus(owned, gone));
      }
    }
  }

  /** Leader only: member id → serialized assignment, for every member. `coordinator` is the connection the join runs on. */
  async performAssignment(protocol: string, members: readonly JoinedMember[], coordinator: BrokerConnection): Promise<Map<string, Buffer>> {
    const assignor = this.assignors.find((a) => a.name === protocol);
    if (!assignor) throw new GroupError(`the coordinator chose protocol '${protocol}', which this consumer did not offer`);
    const subscriptions: MemberSubscription[] = members.map((m) => {
      const { subscription } = decodeSubscriptionLenient(m.metadata);
      return {
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        topics: subscription.topics,
        userData: subscription.userData,
        ownedPartitions: (subscription.ownedPartitions ?? []).flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))),
        generationId: subscription.generationId ?? -1,
        rackId: subscription.rackId ?? null,
        metadata: m.metadata,
      };
    });
    const allTopics = [...new Set(subscriptions.flatMap((s) => s.topics))].sort();
    // Fresh metadata, asked on the coordinator connection: on the data connection the request
    // would wait behind the long-polling Fetch (up to fetch.max.wait.ms) while the whole group
    // waits for the leader's SyncGroup.
    const metadata = await this.ctx.cluster.refreshMetadata(allTopics, undefined, false, coordinator);
    const partitionsPerTopic = new Map<string, number>();
    for (const t of metadata) if (t.errorCode === 0 && t.partitions.length > 0) partitionsPerTopic.set(t.name, t.partitions.length);
    this.assignmentSnapshot = partitionsPerTopic;
    const result = await assignor.assign({ members: subscriptions, partitionsPerTopic });
    const out = new Map<string, Buffer>();
    for (const m of subscriptions) {
      const a = result.get(m.memberId) ?? { partitions: [], userData: null };
      out.set(m.memberId, a.encoded ?? encodeAssignment({ assignedPartitions: group(a.partitions), userData: a.userData }));
    }
    this.ctx.logger.info('leader assigned partitions', { protocol, members: members.length, topics: allTopics.length });
    return out;
  }

  /**
   * The SyncGroup assignment arrived: the assignor hears of it and, cooperative, the partitions
   * that move elsewhere are revoked through the listener before the assignment changes, as
   * Java (the listener can still commit what it finished of them). The caller then asks for
   * the second round those partitions need and applies the assignment (applyAssignment).
   */
  async onJoinComplete(generationId: number, protocol: string, assignmentBytes: Buffer, isLeader: boolean): Promise<ReceivedAssignment> {
    // An empty SyncGroup assignment means no partitions: KafkaJS's leader sends one to
    // members it gives nothing.
    const assignment = assignmentBytes.length === 0 ? { assignedPartitions: [], userData: null } : decodeAssignmentLenient(assignmentBytes).assignment;
    const assigned = sortPartitions(assignment.assignedPartitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))));
    const assignor = this.assignors.find((a) => a.name === protocol);
    assignor?.onAssignment({ partitions: assigned, userData: assignment.userData }, generationId);
    if (!isLeader) this.assignmentSnapshot = null; // only the leader watches partition counts
    const owned = this.ctx.subscriptions.assignedPartitions();
    const added = minus(assigned, owned);
    const revoked = minus(owned, assigned);
    const cooperativeRevoke = this.protocol === 'cooperative' && revoked.length > 0;
    if (cooperativeRevoke) await this.ctx.callListener('onPartitionsRevoked', revoked);
    return { assigned, added, revoked: cooperativeRevoke };
  }

  /** The assignment becomes the member's; the listener hears what it got (eager: everything; cooperative: what is new). */
  async applyAssignment(received: ReceivedAssignment): Promise<void> {
    this.ctx.subscriptions.setAssignment(received.assigned);
    this.ctx.onAssigned();
    await this.ctx.callListener('onPartitionsAssigned', this.protocol === 'eager' ? received.assigned : received.added);
  }

  /**
   * Compares fresh metadata with what the last join and assignment saw (metadata.max.age.ms
   * watch): the reason for a rebalance when the subscribed topics (a pattern's matches)
   * changed, or, on the leader, a partition count or a new subscribed topic; null otherwise.
   * Topics the member may not describe are reported to the application.
   */
  async metadataChange(): Promise<string | null> {
    try {
      const { counts, unauthorized } = await this.refreshSubscriptionMetadata();
      if (unauthorized !== null) this.ctx.reportError(unauthorized);
      const topics = this.ctx.subscriptions.topics;
      if (topics.length !== this.joinedTopics.length || topics.some((t, i) => t !== this.joinedTopics[i])) return 'subscribed topics changed';
      const snapshot = this.assignmentSnapshot;
      if (!snapshot) return null;
      for (const [topic, count] of snapshot) {
        if ((counts.get(topic) ?? 0) !== count) return `partition count of ${topic} changed`;
      }
      for (const topic of topics) {
        if (!snapshot.has(topic) && (counts.get(topic) ?? 0) > 0) return `topic ${topic} appeared`;
      }
    } catch (err) {
      this.ctx.logger.debug('metadata check failed', { error: err as Error });
    }
    return null;
  }
}
