/**
 * A classic group member's heartbeats (Java's AbstractCoordinator.HeartbeatThread and
 * Heartbeat): while the member is in a stable generation, one Heartbeat every
 * heartbeat.interval.ms (counted from when the last one was sent; retry.backoff.ms after one
 * that failed), on the injected Scheduler. It also keeps the max.poll.interval.ms clock: a
 * heartbeat due after poll() was not called for that long leaves the group instead (the
 * next poll rejoins). What an answer means for the membership is the membership's to do.
 */
import { Api } from '../../../protocol/messages/index.js';
import { KafkaProtocolError } from '../../../protocol/errors.js';
import { coordinatorErrorAction } from '../../coordinator-errors.js';
import { withTimeLimit } from '../../deadline.js';
import type { TimerHandle } from '../../../util/clock.js';
import { FencedInstanceIdError } from '../errors.js';
import type { MembershipContext } from './group-member.js';

/** What the heartbeats need from the membership (ClassicMembership). */
export interface ClassicHeartbeatSubject {
  readonly memberId: string;
  readonly generationId: number;
  /** In a stable generation: heartbeats go. */
  readonly active: boolean;
  requestRejoin(reason: string): void;
  resetGeneration(reason: string, keepMemberId: boolean): void;
  fail(err: Error): void;
  maybeLeaveGroup(reason: string, signal?: AbortSignal): Promise<void>;
}

export class ClassicHeartbeat {
  private timer: TimerHandle | null = null;
  private inFlight = false;
  private lastPollMs: number;
  private closed = false;

  constructor(private readonly ctx: MembershipContext, private readonly member: ClassicHeartbeatSubject) {
    this.lastPollMs = ctx.cluster.scheduler.nowMs();
  }

  /** poll() was called: restarts the max.poll.interval.ms clock. */
  recordPoll(): void {
    this.lastPollMs = this.ctx.cluster.scheduler.nowMs();
  }

  /**
   * The member joined: the first heartbeat goes one interval from now. Not after close(): a
   * join still in flight when the consumer closed may complete later.
   */
  start(): void {
    this.stop();
    if (this.closed) return;
    this.timer = this.ctx.cluster.scheduler.schedule(this.ctx.options.heartbeatIntervalMs, () => this.tick());
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  close(): void {
    this.closed = true;
    this.stop();
  }

  /** One heartbeat; the next is scheduled heartbeat.interval.ms after this one was sent. */
  private tick(): void {
    this.timer = null;
    if (this.closed || !this.member.active || this.inFlight) return;
    const { scheduler } = this.ctx.cluster;
    const o = this.ctx.options;
    const now = scheduler.nowMs();
    if (now - this.lastPollMs > o.maxPollIntervalMs) {
      this.ctx.logger.warn('poll() not called within max.poll.interval.ms: leaving the group', { group: this.ctx.lookup.groupId, maxPollIntervalMs: o.maxPollIntervalMs });
      void withTimeLimit(scheduler, { what: 'LeaveGroup', timeoutMs: o.requestTimeoutMs }, (signal) => this.member.maybeLeaveGroup('consumer poll timeout has expired', signal))
        .catch((err: unknown) => this.ctx.logger.debug('LeaveGroup after the poll timeout failed', { error: err as Error }));
      return;
    }
    this.inFlight = true;
    const next = (delay: number): void => {
      this.inFlight = false;
      if (this.closed || !this.member.active || this.timer) return;
      this.timer = scheduler.schedule(Math.max(0, delay), () => this.tick());
    };
    void this.send().then((ok) => {
      const elapsed = scheduler.nowMs() - now;
      next(ok ? o.heartbeatIntervalMs - elapsed : o.retryBackoffMs);
    });
  }

  /** True when the heartbeat went through (whatever the group answered). */
  private async send(): Promise<boolean> {
    const { lookup, options, logger } = this.ctx;
    const member = this.member;
    const generationId = member.generationId;
    try {
      const connection = await lookup.connection();
      const response = await connection.request(Api.Heartbeat, {
        groupId: lookup.groupId, generationId, memberId: member.memberId, groupInstanceId: options.groupInstanceId,
      });
      if (generationId !== member.generationId) return true; // a rejoin happened meanwhile
      const failure = new KafkaProtocolError(response.errorCode, `Heartbeat ${lookup.groupId}`);
      const action = coordinatorErrorAction(response.errorCode);
      switch (action) {
        case 'none':
          return true;
        case 'rejoin':
          member.requestRejoin('heartbeat: group is rebalancing');
          return true;
        case 'reset-generation':
        case 'reset-member':
          member.resetGeneration(`Heartbeat: ${failure.errorName}`, action === 'reset-generation');
          return true;
        case 'fenced':
          member.fail(new FencedInstanceIdError(`group.instance.id ${options.groupInstanceId} was fenced by another member`));
          return true;
        case 'find-coordinator':
          lookup.markUnknown(`Heartbeat: ${failure.errorName}`);
          return false;
        default:
          // As Java's heartbeat thread: log it and try again after retry.backoff.ms.
          logger.warn('heartbeat error', { group: lookup.groupId, error: failure });
          return false;
      }
    } catch (err) {
      if (this.closed) return false;
      logger.debug('heartbeat failed', { group: lookup.groupId, error: err as Error });
      lookup.markUnknown('heartbeat failed');
      return false;
    }
  }
}
