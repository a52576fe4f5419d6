/**
 * The consumer's membership in a classic group (`groupProtocol: 'classic'`; Java's
 * AbstractCoordinator), owner of its whole lifecycle: before the first join the subscription's
 * metadata; then, in poll(), prepare (ClassicRebalance: commit, revoke) → JoinGroup with our
 * protocols → the leader assigns → SyncGroup (followers send it empty) → the assignment
 * applies (ClassicRebalance: revoke what moved, assign, listener) → heartbeats on the injected
 * Scheduler while the application processes, and a metadata watch, until something asks for
 * a rejoin (the coordinator, a commit's error, a subscription or metadata change, a
 * cooperative round) → prepare → JoinGroup again. If poll() is not called within
 * max.poll.interval.ms the member leaves the group (LeaveGroup) and rejoins on the next
 * poll; close() and unsubscribe() leave it.
 *
 * Node runs one thread: a handler that blocks the event loop also stalls heartbeats.
 */
import type { PartitionAssignor } from '../../../assignors/types.js';
import { Api } from '../../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../../protocol/errors.js';
import { CONSUMER_PROTOCOL_TYPE } from '../../../protocol/consumer-protocol.js';
import { coordinatorErrorAction, coordinatorFailureAction } from '../../coordinator-errors.js';
import type { BrokerConnection } from '../../connection.js';
import type { TimerHandle } from '../../../util/clock.js';
import type { CommitGroupHooks, CommitIdentity } from '../offset-committer.js';
import { CommitFailedError, FencedInstanceIdError, GroupError } from '../errors.js';
import { JOIN_RESPONSE_MARGIN_MS } from '../options.js';
import { ClassicHeartbeat, type ClassicHeartbeatSubject } from './classic-heartbeat.js';
import { ClassicRebalance } from './classic-rebalance.js';
import type { Membership, MembershipContext } from './group-member.js';

export type MemberState = 'unjoined' | 'rebalancing' | 'stable';

export class ClassicMembership implements Membership, ClassicHeartbeatSubject {
  readonly commitHooks: CommitGroupHooks;
  state: MemberState = 'unjoined';
  memberId = '';
  generationId = -1;
  protocolName: string | null = null;
  leaderId = '';
  fatalError: Error | null = null;
  private readonly rebalance: ClassicRebalance;
  private readonly heartbeat: ClassicHeartbeat;
  private rejoinNeeded = true;
  /** The last join ended with an unexpected group error: wait retry.backoff.ms before the next. */
  private backoffBeforeJoin = false;
  private needsJoinPrepare = true;
  /** False after the generation was reset (member removed / left): owned partitions are lost. */
  private generationValid = true;
  /**
   * The subscription's metadata is fetched once before the first join after a (new)
   * subscription, as Java's consumer does: a pattern needs its matches, and topics the
   * principal may not describe fail poll() before it joins (and again at each poll until the
   * subscription or the ACLs change).
   */
  private subscriptionMetadataStale = true;
  private joining: Promise<void> | null = null;
  private metadataTimer: TimerHandle | null = null;
  /** close() began: no more metadata checks. */
  private backgroundStopped = false;
  private closed = false;

  constructor(private readonly ctx: MembershipContext, assignors: readonly PartitionAssignor[]) {
    this.rebalance = new ClassicRebalance(ctx, assignors);
    this.heartbeat = new ClassicHeartbeat(ctx, this);
    this.commitHooks = {
      identity: (): CommitIdentity | Error => {
        if (this.generationId < 0) return new CommitFailedError('the consumer is not part of an active group generation; poll() to join');
        return { generationId: this.generationId, memberId: this.memberId, groupInstanceId: ctx.options.groupInstanceId };
      },
      requestRejoin: (reason) => this.requestRejoin(reason),
      resetGeneration: (reason, keepMemberId) => this.resetGeneration(reason, keepMemberId),
      fatal: (err) => this.fail(err),
    };
  }

  get groupId(): string {
    return this.ctx.lookup.groupId;
  }

  get isLeader(): boolean {
    return this.memberId !== '' && this.memberId === this.leaderId;
  }

  get needsRejoin(): boolean {
    return this.rejoinNeeded || this.state !== 'stable';
  }

  get active(): boolean {
    return this.state === 'stable';
  }

  subscriptionChanged(): void {
    this.subscriptionMetadataStale = true;
    this.requestRejoin('subscription changed');
  }

  requestRejoin(reason: string): void {
    if (!this.rejoinNeeded) this.ctx.logger.info('rejoin requested', { group: this.groupId, reason });
    this.rejoinNeeded = true;
    this.ctx.wake();
  }

  /**
   * Forgets the generation, and the member id unless `keepMemberId` (Java's
   * resetStateAndRejoin): owned partitions count as lost, and the next join goes through
   * onJoinPrepare again to say so.
   */
  resetGeneration(reason: string, keepMemberId = false): void {
    this.ctx.logger.info('member generation reset', { group: this.groupId, reason, memberId: this.memberId, keepMemberId });
    if (!keepMemberId) this.memberId = '';
    this.generationId = -1;
    this.needsJoinPrepare = true;
    this.protocolName = null;
    this.generationValid = false;
    this.state = 'unjoined';
    this.heartbeat.stop();
    this.requestRejoin(reason);
  }

  fail(err: Error): void {
    this.fatalError ??= err;
    this.heartbeat.stop();
    this.ctx.wake();
  }

  /** poll() was called: restarts the max.poll.interval.ms clock. */
  recordPoll(): void {
    this.heartbeat.recordPoll();
  }

  /**
   * The group work of a poll(): the subscription's metadata when stale (bounded by the poll,
   * `pollSignal`), then joins (or rejoins) until stable, which goes on after the poll's
   * deadline until `closeSignal`; one join runs at a time, concurrent callers share it.
   */
  async ensureActiveGroup(pollSignal: AbortSignal, closeSignal: AbortSignal): Promise<void> {
    const subscriptions = this.ctx.subscriptions;
    if (this.subscriptionMetadataStale || (subscriptions.type === 'pattern' && subscriptions.topics.length === 0)) {
      let refreshed: Awaited<ReturnType<ClassicRebalance['refreshSubscriptionMetadata']>> | null = null;
      try {
        refreshed = await this.rebalance.refreshSubscriptionMetadata(pollSignal);
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
    if (!this.needsRejoin) return;
    this.joining ??= this.joinLoop(closeSignal).finally(() => { this.joining = null; });
    return this.joining;
  }

  private async joinLoop(signal?: AbortSignal): Promise<void> {
    while (this.needsRejoin && !this.closed) {
      if (this.fatalError) throw this.fatalError;
      signal?.throwIfAborted();
      if (this.backoffBeforeJoin) {
        this.backoffBeforeJoin = false;
        await this.ctx.cluster.backoff(signal);
      }
      const connection = await this.ctx.lookup.connection(signal);
      if (this.needsJoinPrepare) {
        this.heartbeat.stop();
        await this.rebalance.onJoinPrepare(this.generationValid, this);
        this.needsJoinPrepare = false;
      }
      this.state = 'rebalancing';
      this.rejoinNeeded = false;
      try {
        await this.joinAndSync(connection, signal);
      } catch (err) {
        if (signal?.aborted || this.closed) throw err;
        if (err instanceof FencedInstanceIdError) {
          this.fail(err);
          throw err;
        }
        const action = err instanceof GroupError ? 'fatal' : coordinatorFailureAction(err);
        if (action !== 'retry' && action !== 'find-coordinator') {
          // As Java: the error surfaces from poll(), and the next poll() joins again (after a
          // backoff). Only a fenced static member is done for good.
          this.rejoinNeeded = true;
          this.backoffBeforeJoin = true;
          throw err;
        }
        // Lost connection, coordinator moved or still loading: retry after a backoff.
        this.ctx.logger.debug('join failed; retrying', { group: this.groupId, error: err as Error });
        if (action === 'find-coordinator') this.ctx.lookup.markUnknown('join failed');
        this.rejoinNeeded = true;
        await this.ctx.cluster.backoff(signal);
      }
    }
  }

  /**
   * The errors JoinGroup and SyncGroup share: returns when a rejoin will follow (generation
   * reset, rebalance in progress), throws otherwise (fenced, coordinator moved, fatal).
   */
  private onGroupError(api: 'JoinGroup' | 'SyncGroup', errorCode: number): void {
    const failure = new KafkaProtocolError(errorCode, `${api} ${this.groupId}`);
    const action = coordinatorErrorAction(errorCode);
    switch (action) {
      case 'reset-generation':
      case 'reset-member':
        this.resetGeneration(`${api}: ${failure.errorName}`, action === 'reset-generation');
        return;
      case 'rejoin':
        this.rejoinNeeded = true;
        return;
      case 'fenced':
        throw new FencedInstanceIdError(`group.instance.id ${this.ctx.options.groupInstanceId} was fenced by another member`);
      case 'find-coordinator':
        this.ctx.lookup.markUnknown(`${api}: ${failure.errorName}`);
        throw failure;
      case 'retry':
        throw failure;
      default:
        throw new GroupError(failure.message, { cause: failure });
    }
  }

  private async joinAndSync(connection: BrokerConnection, signal?: AbortSignal): Promise<void> {
    const o = this.ctx.options;
    const join = await connection.request(Api.JoinGroup, {
      groupId: this.groupId,
      sessionTimeoutMs: o.sessionTimeoutMs,
      rebalanceTimeoutMs: o.rebalanceTimeoutMs,
      memberId: this.memberId,
      groupInstanceId: o.groupInstanceId,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocols: this.rebalance.protocols(this.generationId),
      reason: null,
    }, { signal, timeoutMs: o.rebalanceTimeoutMs + JOIN_RESPONSE_MARGIN_MS });
    switch (join.errorCode) {
      case ErrorCode.NONE:
        break;
      case ErrorCode.MEMBER_ID_REQUIRED:
        this.memberId = join.memberId; // rejoin at once with the id the coordinator gave
        this.rejoinNeeded = true;
        return;
      default:
        this.onGroupError('JoinGroup', join.errorCode);
        return;
    }
    this.memberId = join.memberId;
    this.generationId = join.generationId;
    this.protocolName = join.protocolName;
    this.leaderId = join.leader;
    const protocol = join.protocolName ?? '';
    let assignments: Map<string, Buffer> = new Map();
    if (this.isLeader && !join.skipAssignment) {
      assignments = await this.rebalance.performAssignment(protocol, join.members.map((m) => ({
        memberId: m.memberId, groupInstanceId: m.groupInstanceId ?? null, metadata: m.metadata,
      })), connection);
    }
    const sync = await connection.request(Api.SyncGroup, {
      groupId: this.groupId,
      generationId: this.generationId,
      memberId: this.memberId,
      groupInstanceId: o.groupInstanceId,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName: protocol,
      assignments: [...assignments].map(([memberId, assignment]) => ({ memberId, assignment })),
    }, { signal, timeoutMs: o.rebalanceTimeoutMs + JOIN_RESPONSE_MARGIN_MS });
    switch (sync.errorCode) {
      case ErrorCode.NONE:
        break;
      default:
        this.onGroupError('SyncGroup', sync.errorCode);
        return;
    }
    this.state = 'stable';
    this.generationValid = true;
    this.needsJoinPrepare = true;
    this.ctx.logger.info('joined group', { group: this.groupId, memberId: this.memberId, generation: this.generationId, protocol, leader: this.isLeader });
    this.heartbeat.start();
    const received = await this.rebalance.onJoinComplete(this.generationId, protocol, sync.assignment, this.isLeader);
    // Partitions given up can go to their new owner only in a second round.
    if (received.revoked) this.requestRejoin('cooperative rebalance: partitions were revoked');
    await this.rebalance.applyAssignment(received);
    this.startMetadataWatch();
  }

  /** Periodic metadata check (metadata.max.age.ms): the leader rebalances on new partitions, anyone on new pattern matches. */
  private startMetadataWatch(): void {
    if (this.metadataTimer || this.backgroundStopped) return;
    this.metadataTimer = this.ctx.cluster.scheduler.schedule(this.ctx.options.metadataMaxAgeMs, () => {
      this.metadataTimer = null;
      void this.checkMetadata().finally(() => this.startMetadataWatch());
    });
  }

  private async checkMetadata(): Promise<void> {
    if (this.backgroundStopped || !this.ctx.subscriptions.usesGroup) return;
    const reason = await this.rebalance.metadataChange();
    if (reason !== null) this.requestRejoin(reason);
  }

  /**
   * LeaveGroup (dynamic members only, as Java: a static member keeps its assignment across
   * restarts and is removed by the session timeout), then forget the generation.
   */
  async maybeLeaveGroup(reason: string, signal?: AbortSignal): Promise<void> {
    this.heartbeat.stop();
    const memberId = this.memberId;
    if (this.ctx.options.groupInstanceId === null && memberId !== '' && this.state !== 'unjoined' && this.ctx.lookup.known) {
      try {
        const connection = await this.ctx.lookup.connection(signal);
        const version = connection.supportedVersion(Api.LeaveGroup) ?? 0;
        const response = await connection.request(Api.LeaveGroup, version >= 3
          ? { groupId: this.groupId, members: [{ memberId, groupInstanceId: null, reason }] }
          : { groupId: this.groupId, memberId }, { version, signal });
        if (response.errorCode !== ErrorCode.NONE) this.ctx.logger.info('LeaveGroup answered with an error', { errorCode: response.errorCode });
      } catch (err) {
        this.ctx.logger.debug('LeaveGroup failed', { error: err as Error });
      }
    }
    this.resetGeneration(reason);
  }

  /** unsubscribe(): LeaveGroup in the background. */
  unsubscribed(): void {
    const { options, logger } = this.ctx;
    void this.ctx.withCallLimit('LeaveGroup', options.requestTimeoutMs, (signal) => this.maybeLeaveGroup('the consumer unsubscribed', signal))
      .catch((err: unknown) => logger.debug('LeaveGroup on unsubscribe failed', { error: err as Error }));
  }

  /** close(): the listener gives up the partitions (when `wasActive`), then LeaveGroup. */
  async leave(wasActive: boolean, signal: AbortSignal): Promise<void> {
    const owned = this.ctx.subscriptions.assignedPartitions();
    if (wasActive && owned.length > 0) {
      try {
        await this.ctx.subscriptions.listener.onPartitionsRevoked?.(owned);
      } catch (err) {
        this.ctx.logger.warn('onPartitionsRevoked threw during close', { error: err as Error });
      }
    }
    await this.maybeLeaveGroup('the consumer is being closed', signal);
  }

  stopBackground(): void {
    this.backgroundStopped = true;
    this.metadataTimer?.cancel();
    this.metadataTimer = null;
  }

  close(): void {
    this.closed = true;
    this.heartbeat.close();
  }
}
