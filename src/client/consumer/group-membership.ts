/**
 * Classic-protocol group membership (Java's AbstractCoordinator): JoinGroup with
 * our protocols, the leader assigns and SyncGroups the group assignment, followers SyncGroup
 * empty, everyone takes its partitions from the SyncGroup response. Heartbeats run on the
 * injected Scheduler while the application processes; if poll() is not called within
 * max.poll.interval.ms the member leaves the group (LeaveGroup) and rejoins on the next poll.
 *
 * Node runs one thread: a handler that blocks the event loop also stalls heartbeats.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { CONSUMER_PROTOCOL_TYPE } from '../../protocol/consumer-protocol.js';
import type { Cluster } from '../cluster.js';
import { coordinatorErrorAction, coordinatorFailureAction } from '../coordinator-errors.js';
import { withTimeLimit } from '../deadline.js';
import type { BrokerConnection } from '../connection.js';
import type { TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import type { CoordinatorLookup } from './coordinator-lookup.js';
import { FencedInstanceIdError, GroupError } from './errors.js';
import { JOIN_RESPONSE_MARGIN_MS, type ResolvedConsumerOptions } from './options.js';

export type MemberState = 'unjoined' | 'rebalancing' | 'stable';

export interface JoinedMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly metadata: Buffer;
}

/** What the consumer side (ConsumerCoordinator) plugs into the membership protocol. */
export interface MembershipHooks {
  protocols(): { name: string; metadata: Buffer }[];
  /** Before (re)joining; `generationValid` false means the partitions were lost. */
  onJoinPrepare(generationValid: boolean): Promise<void>;
  /**
   * Leader only: member id → serialized assignment, for every member. `coordinator` is the
   * connection the join runs on, idle until SyncGroup: requests the leader needs meanwhile
   * go there rather than behind a long-polling Fetch.
   */
  performAssignment(protocol: string, members: readonly JoinedMember[], coordinator: BrokerConnection): Promise<Map<string, Buffer>>;
  onJoinComplete(generationId: number, memberId: string, protocol: string, assignment: Buffer): Promise<void>;
  /** Wakes a waiting poll() (rejoin needed, fatal error). */
  wake(): void;
}

export class GroupMembership {
  state: MemberState = 'unjoined';
  memberId = '';
  generationId = -1;
  protocolName: string | null = null;
  leaderId = '';
  fatalError: Error | null = null;
  private rejoinNeeded = true;
  /** The last join ended with an unexpected group error: wait retry.backoff.ms before the next. */
  private backoffBeforeJoin = false;
  private needsJoinPrepare = true;
  /** False after the generation was reset (member removed / left): owned partitions are lost. */
  private generationValid = true;
  private joining: Promise<void> | null = null;
  private heartbeatTimer: TimerHandle | null = null;
  private heartbeatInFlight = false;
  private lastPollMs: number;
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    private readonly lookup: CoordinatorLookup,
    private readonly options: ResolvedConsumerOptions,
    private readonly hooks: MembershipHooks,
    private readonly logger: Logger,
  ) {
    this.lastPollMs = cluster.scheduler.nowMs();
  }

  get groupId(): string {
    return this.lookup.groupId;
  }

  get isLeader(): boolean {
    return this.memberId !== '' && this.memberId === this.leaderId;
  }

  get needsRejoin(): boolean {
    return this.rejoinNeeded || this.state !== 'stable';
  }

  requestRejoin(reason: string): void {
    if (!this.rejoinNeeded) this.logger.info('rejoin requested', { group: this.groupId, reason });
    this.rejoinNeeded = true;
    this.hooks.wake();
  }

  /**
   * Forgets the generation, and the member id unless `keepMemberId` (Java's
   * resetStateAndRejoin): owned partitions count as lost, and the next join goes through
   * onJoinPrepare again to say so.
   */
  resetGeneration(reason: string, keepMemberId = false): void {
    this.logger.info('member generation reset', { group: this.groupId, reason, memberId: this.memberId, keepMemberId });
    if (!keepMemberId) this.memberId = '';
    this.generationId = -1;
    this.needsJoinPrepare = true;
    this.protocolName = null;
    this.generationValid = false;
    this.state = 'unjoined';
    this.stopHeartbeat();
    this.requestRejoin(reason);
  }

  fail(err: Error): void {
    this.fatalError ??= err;
    this.stopHeartbeat();
    this.hooks.wake();
  }

  /** poll() was called: restarts the max.poll.interval.ms clock. */
  recordPoll(): void {
    this.lastPollMs = this.cluster.scheduler.nowMs();
  }

  /** Joins (or rejoins) until stable; one join runs at a time, concurrent callers share it. */
  ensureActiveGroup(signal?: AbortSignal): Promise<void> {
    if (!this.needsRejoin) return Promise.resolve();
    this.joining ??= this.joinLoop(signal).finally(() => { this.joining = null; });
    return this.joining;
  }

  private async joinLoop(signal?: AbortSignal): Promise<void> {
    while (this.needsRejoin && !this.closed) {
      if (this.fatalError) throw this.fatalError;
      signal?.throwIfAborted();
      if (this.backoffBeforeJoin) {
        this.backoffBeforeJoin = false;
        await this.cluster.backoff(signal);
      }
      const connection = await this.lookup.connection(signal);
      if (this.needsJoinPrepare) {
        this.stopHeartbeat();
        await this.hooks.onJoinPrepare(this.generationValid);
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
        this.logger.debug('join failed; retrying', { group: this.groupId, error: err as Error });
        if (action === 'find-coordinator') this.lookup.markUnknown('join failed');
        this.rejoinNeeded = true;
        await this.cluster.backoff(signal);
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
        throw new FencedInstanceIdError(`group.instance.id ${this.options.groupInstanceId} was fenced by another member`);
      case 'find-coordinator':
        this.lookup.markUnknown(`${api}: ${failure.errorName}`);
        throw failure;
      case 'retry':
        throw failure;
      default:
        throw new GroupError(failure.message, { cause: failure });
    }
  }

  private async joinAndSync(connection: Awaited<ReturnType<CoordinatorLookup['connection']>>, signal?: AbortSignal): Promise<void> {
    const o = this.options;
    const join = await connection.request(Api.JoinGroup, {
      groupId: this.groupId,
      sessionTimeoutMs: o.sessionTimeoutMs,
      rebalanceTimeoutMs: o.rebalanceTimeoutMs,
      memberId: this.memberId,
      groupInstanceId: o.groupInstanceId,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocols: this.hooks.protocols(),
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
      assignments = await this.hooks.performAssignment(protocol, join.members.map((m) => ({
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
    this.logger.info('joined group', { group: this.groupId, memberId: this.memberId, generation: this.generationId, protocol, leader: this.isLeader });
    this.startHeartbeat();
    await this.hooks.onJoinComplete(this.generationId, this.memberId, protocol, sync.assignment);
  }

  private startHeartbeat(): void {
    this.stopHeartbeat();
    this.heartbeatTimer = this.cluster.scheduler.schedule(this.options.heartbeatIntervalMs, () => this.heartbeatTick());
  }

  private stopHeartbeat(): void {
    this.heartbeatTimer?.cancel();
    this.heartbeatTimer = null;
  }

  /** One heartbeat; the next is scheduled heartbeat.interval.ms after this one was sent. */
  private heartbeatTick(): void {
    this.heartbeatTimer = null;
    if (this.closed || this.state !== 'stable' || this.heartbeatInFlight) return;
    const now = this.cluster.scheduler.nowMs();
    if (now - this.lastPollMs > this.options.maxPollIntervalMs) {
      this.logger.warn('poll() not called within max.poll.interval.ms: leaving the group', { group: this.groupId, maxPollIntervalMs: this.options.maxPollIntervalMs });
      void withTimeLimit(this.cluster.scheduler, { what: 'LeaveGroup', timeoutMs: this.options.requestTimeoutMs }, (signal) => this.maybeLeaveGroup('consumer poll timeout has expired', signal))
        .catch((err: unknown) => this.logger.debug('LeaveGroup after the poll timeout failed', { error: err as Error }));
      return;
    }
    this.heartbeatInFlight = true;
    const next = (delay: number): void => {
      this.heartbeatInFlight = false;
      if (this.closed || this.state !== 'stable' || this.heartbeatTimer) return;
      this.heartbeatTimer = this.cluster.scheduler.schedule(Math.max(0, delay), () => this.heartbeatTick());
    };
    void this.sendHeartbeat().then((ok) => {
      const elapsed = this.cluster.scheduler.nowMs() - now;
      next(ok ? this.options.heartbeatIntervalMs - elapsed : this.options.retryBackoffMs);
    });
  }

  /** True when the heartbeat went through (whatever the group answered). */
  private async sendHeartbeat(): Promise<boolean> {
    const generationId = this.generationId;
    try {
      const connection = await this.lookup.connection();
      const response = await connection.request(Api.Heartbeat, {
        groupId: this.groupId, generationId, memberId: this.memberId, groupInstanceId: this.options.groupInstanceId,
      });
      if (generationId !== this.generationId) return true; // a rejoin happened meanwhile
      const failure = new KafkaProtocolError(response.errorCode, `Heartbeat ${this.groupId}`);
      const action = coordinatorErrorAction(response.errorCode);
      switch (action) {
        case 'none':
          return true;
        case 'rejoin':
          this.requestRejoin('heartbeat: group is rebalancing');
          return true;
        case 'reset-generation':
        case 'reset-member':
          this.resetGeneration(`Heartbeat: ${failure.errorName}`, action === 'reset-generation');
          return true;
        case 'fenced':
          this.fail(new FencedInstanceIdError(`group.instance.id ${this.options.groupInstanceId} was fenced by another member`));
          return true;
        case 'find-coordinator':
          this.lookup.markUnknown(`Heartbeat: ${failure.errorName}`);
          return false;
        default:
          // As Java's heartbeat thread: log it and try again after retry.backoff.ms.
          this.logger.warn('heartbeat error', { group: this.groupId, error: failure });
          return false;
      }
    } catch (err) {
      if (this.closed) return false;
      this.logger.debug('heartbeat failed', { group: this.groupId, error: err as Error });
      this.lookup.markUnknown('heartbeat failed');
      return false;
    }
  }

  /**
   * LeaveGroup (dynamic members only, as Java: a static member keeps its assignment across
   * restarts and is removed by the session timeout), then forget the generation.
   */
  async maybeLeaveGroup(reason: string, signal?: AbortSignal): Promise<void> {
    this.stopHeartbeat();
    const memberId = this.memberId;
    if (this.options.groupInstanceId === null && memberId !== '' && this.state !== 'unjoined' && this.lookup.known) {
      try {
        const connection = await this.lookup.connection(signal);
        const version = connection.supportedVersion(Api.LeaveGroup) ?? 0;
        const response = await connection.request(Api.LeaveGroup, version >= 3
          ? { groupId: this.groupId, members: [{ memberId, groupInstanceId: null, reason }] }
          : { groupId: this.groupId, memberId }, { version, signal });
        if (response.errorCode !== ErrorCode.NONE) this.logger.info('LeaveGroup answered with an error', { errorCode: response.errorCode });
      } catch (err) {
        this.logger.debug('LeaveGroup failed', { error: err as Error });
      }
    }
    this.resetGeneration(reason);
  }

  close(): void {
    this.closed = true;
    this.stopHeartbeat();
  }
}
