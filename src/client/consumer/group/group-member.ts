/**
 * The consumer as a member of its group: what the Consumer drives from subscribe(), poll(),
 * unsubscribe() and close(), whichever group protocol (`groupProtocol`) runs it. It creates
 * and owns everything the membership works with — the coordinator look-up, the offset
 * committer (commits carry the member's identity and their errors act on the membership),
 * the membership of its protocol — so nothing is wired after the fact. The protocols plug in
 * behind `Membership`, each the one owner of its lifecycle:
 *
 * - classic (classic-membership.ts, Java's AbstractCoordinator): prepare → JoinGroup → the
 *   leader assigns → SyncGroup → the assignment applies → heartbeats, until a rejoin; what
 *   the consumer does in each rebalance (subscription, assignment, revoking and assigning
 *   through the listener) is classic-rebalance.ts (Java's ConsumerCoordinator);
 * - consumer (consumer-protocol-membership.ts, KIP-848, Java's ConsumerMembershipManager):
 *   a ConsumerGroupHeartbeat joins, the coordinator assigns, the member reconciles
 *   (commit, revoke, assign, acknowledge) and heartbeats, until fenced or leaving.
 *
 * What both protocols share is here: commits of assign() (no member, no generation), the
 * commit before leaving on close, and calling the rebalance listener.
 */
import type { PartitionAssignor, TopicPartition } from '../../../assignors/types.js';
import type { Cluster } from '../../cluster.js';
import type { Logger } from '../../../util/log.js';
import { CoordinatorLookup } from '../coordinator-lookup.js';
import { OffsetCommitter, type CommitGroupHooks, type CommitIdentity, type CommitObserver } from '../offset-committer.js';
import type { ResolvedConsumerOptions } from '../options.js';
import type { SubscriptionState } from '../subscription-state.js';
import { ClassicMembership } from './classic-membership.js';
import { ConsumerProtocolMembership } from './consumer-protocol-membership.js';
import { invokeListener, type ListenerMethod } from './rebalance-listener.js';

/** What the group member gets from the Consumer. */
export interface MemberContext {
  readonly cluster: Cluster;
  readonly subscriptions: SubscriptionState;
  readonly options: ResolvedConsumerOptions;
  readonly logger: Logger;
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
  /** Told of every commit that had offsets, once it ended (instrumentation). */
  commitCompleted: CommitObserver;
}

/** What a protocol's membership gets from its GroupMember. */
export interface MembershipContext extends MemberContext {
  readonly lookup: CoordinatorLookup;
  readonly committer: OffsetCommitter;
  /**
   * Calls the application's rebalance listener; true when it returned normally. Its error
   * is logged and thrown by the next poll() (the consumer protocol retries the step then).
   */
  callListener(which: ListenerMethod, partitions: TopicPartition[]): Promise<boolean>;
}

/** What a group protocol's membership gives its GroupMember. */
export interface Membership {
  readonly memberId: string;
  /** The generation (classic) or the member epoch (consumer; -1 outside the group, as Java's ConsumerGroupMetadata). */
  readonly generationId: number;
  /** The assignor the group chose (classic); null for the consumer protocol. */
  readonly protocolName: string | null;
  /** The classic group's leader in the current generation ('' before a join); null for the consumer protocol. */
  readonly leaderId: string | null;
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

/** The identity of assign()'s commits: simple commits, no member, no generation. */
const NO_GENERATION: CommitIdentity = { generationId: -1, memberId: '', groupInstanceId: null };

export class GroupMember implements CommitGroupHooks {
  readonly lookup: CoordinatorLookup;
  readonly committer: OffsetCommitter;
  /** As Java's CommitRequestManager, the consumer protocol names topics by id when it can. */
  readonly topicIds: boolean;
  private readonly membership: Membership;

  /** `assignors` matter to the classic protocol only. */
  constructor(private readonly ctx: MemberContext, groupId: string, assignors: readonly PartitionAssignor[]) {
    this.lookup = new CoordinatorLookup(ctx.cluster, groupId, ctx.logger);
    this.topicIds = ctx.options.groupProtocol === 'consumer';
    this.committer = new OffsetCommitter(ctx.cluster, this.lookup, ctx.subscriptions, this, ctx.logger, ctx.commitCompleted);
    const context: MembershipContext = {
      ...ctx, lookup: this.lookup, committer: this.committer, callListener: (which, partitions) => this.callListener(which, partitions),
    };
    this.membership = ctx.options.groupProtocol === 'consumer' ? new ConsumerProtocolMembership(context) : new ClassicMembership(context, assignors);
  }

  // ---- what the Consumer sees ---------------------------------------------------------

  get memberId(): string {
    return this.membership.memberId;
  }

  get generationId(): number {
    return this.membership.generationId;
  }

  get protocolName(): string | null {
    return this.membership.protocolName;
  }

  get leaderId(): string | null {
    return this.membership.leaderId;
  }

  get fatalError(): Error | null {
    return this.membership.fatalError;
  }

  get needsRejoin(): boolean {
    return this.membership.needsRejoin;
  }

  get active(): boolean {
    return this.membership.active;
  }

  subscriptionChanged(): void {
    this.membership.subscriptionChanged();
  }

  ensureActiveGroup(pollSignal: AbortSignal, closeSignal: AbortSignal): Promise<void> {
    return this.membership.ensureActiveGroup(pollSignal, closeSignal);
  }

  recordPoll(): void {
    this.membership.recordPoll();
  }

  unsubscribed(): void {
    this.membership.unsubscribed();
  }

  /**
   * The group part of close(), bounded by `signal`: with auto-commit, the consumed offsets
   * (while the commit still counts: in the group, or assign()), the async commits still in
   * flight, then the listener gives up the partitions and the member leaves.
   */
  async leave(signal: AbortSignal): Promise<void> {
    const { subscriptions, options, logger } = this.ctx;
    const active = subscriptions.usesGroup ? this.membership.active : true;
    if (options.enableAutoCommit && active && subscriptions.consumedDiffersFromCommitted()) {
      await this.committer.commitSync(subscriptions.allConsumed(), signal).catch((err: unknown) => {
        logger.warn('commit on close failed', { error: err as Error });
      });
    }
    await this.committer.flushAsync();
    if (subscriptions.usesGroup) await this.membership.leave(active, signal);
  }

  stopBackground(): void {
    this.membership.stopBackground();
  }

  close(): void {
    this.membership.close();
  }

  // ---- commits (CommitGroupHooks) -----------------------------------------------------

  identity(): CommitIdentity | Error {
    return this.ctx.subscriptions.usesGroup ? this.membership.commitHooks.identity() : NO_GENERATION;
  }

  fetchIdentity(): { memberId: string; memberEpoch: number } | null {
    return this.ctx.subscriptions.usesGroup ? this.membership.commitHooks.fetchIdentity?.() ?? null : null;
  }

  awaitNewerEpoch(signal?: AbortSignal): Promise<boolean> {
    return this.membership.commitHooks.awaitNewerEpoch?.(signal) ?? Promise.resolve(false);
  }

  requestRejoin(reason: string): void {
    this.membership.commitHooks.requestRejoin(reason);
  }

  resetGeneration(reason: string, keepMemberId: boolean): void {
    this.membership.commitHooks.resetGeneration(reason, keepMemberId);
  }

  fatal(err: Error): void {
    this.membership.commitHooks.fatal(err);
  }

  private async callListener(which: ListenerMethod, partitions: TopicPartition[]): Promise<boolean> {
    try {
      await invokeListener(this.ctx.subscriptions.listener, which, partitions);
      return true;
    } catch (err) {
      this.ctx.logger.warn(`rebalance listener ${which} threw`, { error: err as Error });
      this.ctx.reportError(err as Error);
      return false;
    }
  }
}
