/**
 * The consumer's side of group membership (Java's ConsumerCoordinator): the JoinGroup
 * protocols (one per configured assignor, metadata = ConsumerProtocolSubscription), the
 * leader's assignment (onJoinLeader: the chosen assignor over every member's subscription
 * with current partition counts), applying the SyncGroup assignment with the rebalance
 * listener (eager: revoke all before joining; cooperative: revoke only what moves, then
 * rejoin), and the leader's watch on metadata (new partitions, new pattern matches).
 */
import type { MemberSubscription, PartitionAssignor, RebalanceProtocol, TopicPartition } from '../../assignors/types.js';
import { decodeAssignment, decodeSubscription, encodeAssignment, encodeSubscription } from '../../protocol/consumer-protocol.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import type { Cluster } from '../cluster.js';
import type { BrokerConnection } from '../connection.js';
import type { TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import { commonRebalanceProtocol } from './assignor-registry.js';
import { GroupError } from './errors.js';
import type { JoinedMember, MembershipHooks } from './group-membership.js';
import type { ResolvedConsumerOptions } from './options.js';
import { invokeListener, type ListenerMethod } from './rebalance-listener.js';
import { sortPartitions, tpKey, type SubscriptionState } from './subscription-state.js';

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

export interface ConsumerCoordinatorHooks {
  /** Synchronous commit of all consumed positions (before eager revocation). */
  commitAllConsumedSync(): Promise<void>;
  /** A rebalance begins (instrumentation): the member prepares to join. */
  rebalanceStarted(): void;
  onAssigned(): void;
  requestRejoin(reason: string): void;
  wake(): void;
  /** An error for the application: the next poll() throws it (a listener's, an unauthorized topic). */
  reportError(err: Error): void;
}

export class ConsumerCoordinator implements MembershipHooks {
  readonly protocol: RebalanceProtocol;
  /** The leader's partition counts at its last assignment (Java's assignmentSnapshot). */
  private assignmentSnapshot: Map<string, number> | null = null;
  /** Topics subscribed when we last joined (a pattern's matches may change). */
  private joinedTopics: string[] = [];
  private metadataTimer: TimerHandle | null = null;
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly subscriptions: SubscriptionState,
    private readonly assignors: readonly PartitionAssignor[],
    private readonly options: ResolvedConsumerOptions,
    private readonly hooks: ConsumerCoordinatorHooks,
    private readonly logger: Logger,
    private readonly generation: () => number,
    private readonly isLeader: () => boolean,
  ) {
    this.protocol = commonRebalanceProtocol(assignors);
  }

  /**
   * Refreshes metadata for the subscription (every topic for a pattern); returns partition
   * counts. Subscribed topics the broker refuses to describe come back as a
   * TOPIC_AUTHORIZATION_FAILED error for the application (Java's consumer throws
   * TopicAuthorizationException from poll() after such a refresh); the topics get no partitions.
   */
  async refreshSubscriptionMetadata(signal?: AbortSignal): Promise<{ counts: Map<string, number>; unauthorized: KafkaProtocolError | null }> {
    const pattern = this.subscriptions.type === 'pattern';
    const topics = await this.cluster.refreshMetadata(pattern ? null : this.subscriptions.topics, signal);
    if (pattern) this.subscriptions.matchTopics(topics.filter((t) => !t.internal && t.errorCode === 0).map((t) => t.name));
    const refused = pattern ? [] : topics.filter((t) => t.errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED).map((t) => t.name);
    return {
      counts: new Map(this.cluster.cachedTopics().map((t) => [t.name, t.partitions.length])),
      unauthorized: refused.length === 0 ? null : new KafkaProtocolError(ErrorCode.TOPIC_AUTHORIZATION_FAILED, `Not authorized to access topics: [${refused.join(', ')}]`),
    };
  }

  protocols(): { name: string; metadata: Buffer }[] {
    this.joinedTopics = [...this.subscriptions.topics];
    const owned = this.subscriptions.assignedPartitions();
    const context = { topics: this.joinedTopics, ownedPartitions: owned, generationId: this.generation() };
    return this.assignors.map((a) => ({
      name: a.name,
      metadata: encodeSubscription({
        topics: this.joinedTopics,
        userData: a.subscriptionUserData(context),
        ownedPartitions: group(owned),
        generationId: this.generation(),
        rackId: this.options.clientRack,
      }),
    }));
  }

  async onJoinPrepare(generationValid: boolean): Promise<void> {
    this.hooks.rebalanceStarted();
    const owned = this.subscriptions.assignedPartitions();
    if (!generationValid) {
      if (owned.length > 0) await this.callListener('onPartitionsLost', owned);
      this.subscriptions.setAssignment([]);
      return;
    }
    if (this.options.enableAutoCommit) {
      try {
        await this.hooks.commitAllConsumedSync();
      } catch (err) {
        this.logger.warn('commit before rebalance failed', { error: err as Error });
      }
    }
    if (this.protocol === 'eager') {
      if (owned.length > 0 || this.generation() >= 0) await this.callListener('onPartitionsRevoked', owned);
      this.subscriptions.setAssignment([]);
    } else {
      // Cooperative: keep what we own, except topics no longer subscribed.
      const subscribed = new Set(this.subscriptions.topics);
      const gone = owned.filter((tp) => !subscribed.has(tp.topic));
      if (gone.length > 0) {
        await this.callListener('onPartitionsRevoked', gone);
        this.subscriptions.setAssignment(minus(owned, gone));
      }
    }
  }

  async performAssignment(protocol: string, members: readonly JoinedMember[], coordinator: BrokerConnection): Promise<Map<string, Buffer>> {
    const assignor = this.assignors.find((a) => a.name === protocol);
    if (!assignor) throw new GroupError(`the coordinator chose protocol '${protocol}', which this consumer did not offer`);
    const subscriptions: MemberSubscription[] = members.map((m) => {
      const { subscription } = decodeSubscription(m.metadata);
      return {
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        topics: subscription.topics,
        userData: subscription.userData,
        ownedPartitions: (subscription.ownedPartitions ?? []).flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))),
        generationId: subscription.generationId ?? -1,
        rackId: subscription.rackId ?? null,
      };
    });
    const allTopics = [...new Set(subscriptions.flatMap((s) => s.topics))].sort();
    // Fresh metadata, asked on the coordinator connection: on the data connection the request
    // would wait behind the long-polling Fetch (up to fetch.max.wait.ms) while the whole group
    // waits for the leader's SyncGroup.
    const metadata = await this.cluster.refreshMetadata(allTopics, undefined, false, coordinator);
    const partitionsPerTopic = new Map<string, number>();
    for (const t of metadata) if (t.errorCode === 0 && t.partitions.length > 0) partitionsPerTopic.set(t.name, t.partitions.length);
    this.assignmentSnapshot = partitionsPerTopic;
    const result = assignor.assign({ members: subscriptions, partitionsPerTopic });
    const out = new Map<string, Buffer>();
    for (const m of subscriptions) {
      const a = result.get(m.memberId) ?? { partitions: [], userData: null };
      out.set(m.memberId, encodeAssignment({ assignedPartitions: group(a.partitions), userData: a.userData }));
    }
    this.logger.info('leader assigned partitions', { protocol, members: members.length, topics: allTopics.length });
    return out;
  }

  async onJoinComplete(generationId: number, _memberId: string, protocol: string, assignmentBytes: Buffer): Promise<void> {
    const { assignment } = decodeAssignment(assignmentBytes);
    const assigned = sortPartitions(assignment.assignedPartitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))));
    const assignor = this.assignors.find((a) => a.name === protocol);
    assignor?.onAssignment({ partitions: assigned, userData: assignment.userData }, generationId);
    if (!this.isLeader()) this.assignmentSnapshot = null; // only the leader watches partition counts
    const owned = this.subscriptions.assignedPartitions();
    const added = minus(assigned, owned);
    const revoked = minus(owned, assigned);
    if (this.protocol === 'cooperative' && revoked.length > 0) {
      // Before the assignment changes, as Java: the listener can still commit what it
      // finished of the partitions it gives up (commitSync() covers assigned partitions).
      await this.callListener('onPartitionsRevoked', revoked);
      // Partitions we gave up can go to their new owner only in a second round.
      this.hooks.requestRejoin('cooperative rebalance: partitions were revoked');
    }
    this.subscriptions.setAssignment(assigned);
    this.hooks.onAssigned();
    await this.callListener('onPartitionsAssigned', this.protocol === 'eager' ? assigned : added);
    this.startMetadataWatch();
  }

  private async callListener(which: ListenerMethod, partitions: TopicPartition[]): Promise<void> {
    try {
      await invokeListener(this.subscriptions.listener, which, partitions);
    } catch (err) {
      this.logger.warn(`rebalance listener ${which} threw`, { error: err as Error });
      this.hooks.reportError(err as Error);
    }
  }

  wake(): void {
    this.hooks.wake();
  }

  /** Periodic metadata check (metadata.max.age.ms): the leader rebalances on new partitions, anyone on new pattern matches. */
  private startMetadataWatch(): void {
    if (this.metadataTimer || this.closed) return;
    this.metadataTimer = this.cluster.scheduler.schedule(this.options.metadataMaxAgeMs, () => {
      this.metadataTimer = null;
      void this.checkMetadata().finally(() => this.startMetadataWatch());
    });
  }

  /** Compares fresh metadata with what the last join/assignment saw; requests a rejoin on change. */
  async checkMetadata(): Promise<void> {
    if (this.closed || !this.subscriptions.usesGroup) return;
    try {
      const { counts, unauthorized } = await this.refreshSubscriptionMetadata();
      if (unauthorized !== null) this.hooks.reportError(unauthorized);
      const topics = this.subscriptions.topics;
      if (topics.length !== this.joinedTopics.length || topics.some((t, i) => t !== this.joinedTopics[i])) {
        this.hooks.requestRejoin('subscribed topics changed');
        return;
      }
      const snapshot = this.assignmentSnapshot;
      if (!snapshot) return;
      for (const [topic, count] of snapshot) {
        if ((counts.get(topic) ?? 0) !== count) {
          this.hooks.requestRejoin(`partition count of ${topic} changed`);
          return;
        }
      }
      for (const topic of topics) {
        if (!snapshot.has(topic) && (counts.get(topic) ?? 0) > 0) {
          this.hooks.requestRejoin(`topic ${topic} appeared`);
          return;
        }
      }
    } catch (err) {
      this.logger.debug('metadata check failed', { error: err as Error });
    }
  }

  close(): void {
    this.closed = true;
    this.metadataTimer?.cancel();
    this.metadataTimer = null;
  }
}
