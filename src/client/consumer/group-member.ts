/**
 * What the Consumer needs from its group membership, whichever protocol runs it. The
 * Consumer picks one by `groupProtocol`: the classic protocol (GroupMembership +
 * ConsumerCoordinator: JoinGroup/SyncGroup, client-side assignors; Java's ConsumerCoordinator)
 * or the consumer protocol (ConsumerMembership: ConsumerGroupHeartbeat, the broker assigns;
 * Java's ConsumerMembershipManager). The offset committer, subscription state, fetcher and
 * auto-commit task are shared by both.
 */
import type { PartitionAssignor } from '../../assignors/types.js';
import type { Cluster } from '../cluster.js';
import type { Logger } from '../../util/log.js';
import { ConsumerCoordinator } from './consumer-coordinator.js';
import type { CoordinatorLookup } from './coordinator-lookup.js';
import { CommitFailedError } from './errors.js';
import { GroupMembership } from './group-membership.js';
import type { CommitGroupHooks, CommitIdentity, OffsetCommitter } from './offset-committer.js';
import type { GroupProtocol, ResolvedConsumerOptions } from './options.js';
import type { SubscriptionState } from './subscription-state.js';

export interface GroupMember {
  readonly groupProtocol: GroupProtocol;
  readonly memberId: string;
  /** The generation (classic) or the member epoch (consumer; -1 outside the group, as Java's ConsumerGroupMetadata). */
  readonly generationId: number;
  /** The assignor the group chose (classic); null for the consumer protocol. */
  readonly protocolName: string | null;
  /** An error that ended the membership; every poll() throws it. */
  readonly fatalError: Error | null;
  /** poll() has group work to do before it fetches (join, sync, reconcile, release lost partitions). */
  readonly needsRejoin: boolean;
  /** A member of the group whose commits count: auto-commit runs, close() commits. */
  readonly active: boolean;
  /** How commits and offset fetches identify the member, and what their errors do to it. */
  readonly commitHooks: CommitGroupHooks;
  /** subscribe() changed the subscription. */
  subscriptionChanged(): void;
  /** The group work poll() waits for; it goes on after the poll's deadline, until `closeSignal`. */
  ensureActiveGroup(pollSignal: AbortSignal, closeSignal: AbortSignal): Promise<void>;
  /** poll() was called: restarts the max.poll.interval.ms clock. */
  recordPoll(): void;
  /** unsubscribe(): leave the group in the background. */
  unsubscribed(): void;
  /** close(): the listener gives up the partitions, then the member leaves; `wasActive` is `active` before close's commit. */
  leave(wasActive: boolean, signal: AbortSignal): Promise<void>;
  /** close() began: stop background work that is not needed to leave. */
  stopBackground(): void;
  /** close() ended. */
  close(): void;
}

/** What a membership gets from the Consumer. */
export interface MemberContext {
  readonly cluster: Cluster;
  readonly lookup: CoordinatorLookup;
  readonly subscriptions: SubscriptionState;
  readonly options: ResolvedConsumerOptions;
  readonly logger: Logger;
  readonly committer: OffsetCommitter;
  /**
   * Runs a call that talks to the cluster within `timeoutMs` (default default.api.timeout.ms);
   * close() ends it early.
   */
  withCallLimit<T>(what: string, timeoutMs: number | undefined, operation: (signal: AbortSignal) => Promise<T>): Promise<T>;
  /** A rebalance begins: the member prepares to join (classic) or reconciles a new target assignment (consumer protocol). */
  rebalanceStarted(): void;
  /** The assignment changed: drop fetched data of partitions gone, start auto-commit. */
  onAssigned(): void;
  /** The assignment was cleared: drop fetched data. */
  dropFetched(): void;
  /** Wakes a waiting poll() (group work to do, fatal error). */
  wake(): void;
  /** An error for the application (a rebalance listener threw, a topic it may not read): the next poll() throws it. */
  reportError(err: Error): void;
}

/** The classic protocol behind the GroupMember interface. */
export class ClassicGroupMember implements GroupMember {
  readonly groupProtocol = 'classic' as const;
  readonly commitHooks: CommitGroupHooks;
  private readonly membership: GroupMembership;
  private readonly coordinator: ConsumerCoordinator;

  constructor(private readonly ctx: MemberContext, assignors: readonly PartitionAssignor[]) {
    const { cluster, lookup, subscriptions, options, logger } = ctx;
    // eslint-disable-next-line prefer-const
    let membership: GroupMembership;
    this.coordinator = new ConsumerCoordinator(cluster, subscriptions, assignors, options, {
      commitAllConsumedSync: () => ctx.withCallLimit('commit before rebalance', undefined, (signal) => ctx.committer.commitSync(subscriptions.allConsumed(), signal)),
      rebalanceStarted: () => ctx.rebalanceStarted(),
      onAssigned: () => ctx.onAssigned(),
      requestRejoin: (reason) => membership.requestRejoin(reason),
      wake: () => ctx.wake(),
      reportError: (err) => ctx.reportError(err),
    }, logger, () => membership.generationId, () => membership.isLeader);
    membership = this.membership = new GroupMembership(cluster, lookup, options, this.coordinator, logger);
    this.commitHooks = {
      identity: (): CommitIdentity | Error => {
        if (membership.generationId < 0) return new CommitFailedError('the consumer is not part of an active group generation; poll() to join');
        return { generationId: membership.generationId, memberId: membership.memberId, groupInstanceId: options.groupInstanceId };
      },
      requestRejoin: (reason) => membership.requestRejoin(reason),
      resetGeneration: (reason, keepMemberId) => membership.resetGeneration(reason, keepMemberId),
      fatal: (err) => membership.fail(err),
    };
  }

  get memberId(): string {
    return this.membership.memberId;
  }

  get generationId(): number {
    return this.membership.generationId;
  }

  get protocolName(): string | null {
    return this.membership.protocolName;
  }

  get fatalError(): Error | null {
    return this.membership.fatalError;
  }

  get needsRejoin(): boolean {
    return this.membership.needsRejoin;
  }

  get active(): boolean {
    return this.membership.state === 'stable';
  }

  subscriptionChanged(): void {
    this.subscriptionMetadataStale = true;
    this.membership.requestRejoin('subscription changed');
  }

  /**
   * The subscription's metadata is fetched once before the first join after a (new)
   * subscription, as Java's consumer does: a pattern needs its matches, and topics the
   * principal may not describe fail poll() before it joins (and again at each poll until the
   * subscription or the ACLs change).
   */
  private subscriptionMetadataStale = true;

  async ensureActiveGroup(pollSignal: AbortSignal, closeSignal: AbortSignal): Promise<void> {
    const subscriptions = this.ctx.subscriptions;
    if (this.subscriptionMetadataStale || (subscriptions.type === 'pattern' && subscriptions.topics.length === 0)) {
      let refreshed: Awaited<ReturnType<ConsumerCoordinator['refreshSubscriptionMetadata']>> | null = null;
      try {
        refreshed = await this.coordinator.refreshSubscriptionMetadata(pollSignal);
      } catch (err) {
        // No broker reachable yet, or the poll's time is up: the join below retries and
        // reports as it does without this refresh; the next poll refreshes again.
        if (pollSignal.aborted) throw err;
        this.ctx.logger.debug('subscription metadata refresh failed', { error: err as Error });
      }
      if (refreshed !== null) {
        if (refreshed.unauthorized !== null) throw refreshed.unauthorized;
        this.subscriptionMetadataStale = false;
      }
    }
    await this.membership.ensureActiveGroup(closeSignal);
  }

  recordPoll(): void {
    this.membership.recordPoll();
  }

  unsubscribed(): void {
    const { options, logger } = this.ctx;
    void this.ctx.withCallLimit('LeaveGroup', options.requestTimeoutMs, (signal) => this.membership.maybeLeaveGroup('the consumer unsubscribed', signal))
      .catch((err: unknown) => logger.debug('LeaveGroup on unsubscribe failed', { error: err as Error }));
  }

  async leave(wasActive: boolean, signal: AbortSignal): Promise<void> {
    const owned = this.ctx.subscriptions.assignedPartitions();
    if (wasActive && owned.length > 0) {
      try {
        await this.ctx.subscriptions.listener.onPartitionsRevoked?.(owned);
      } catch (err) {
        this.ctx.logger.warn('onPartitionsRevoked threw during close', { error: err as Error });
      }
    }
    await this.membership.maybeLeaveGroup('the consumer is being closed', signal);
  }

  stopBackground(): void {
    this.coordinator.close();
  }

  close(): void {
    this.membership.close();
  }
}
