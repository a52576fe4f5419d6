/**
 * The consumer protocol's heartbeats (Java's ConsumerHeartbeatRequestManager,
 * AbstractHeartbeatRequestManager and HeartbeatState): one ConsumerGroupHeartbeat in flight
 * at a time, every heartbeat interval the coordinator gives, and at once while joining or
 * acknowledging a reconciled assignment. A request carries the group, member id, epoch and
 * instance id every time; the rest only when it changed since the last one sent (all of it
 * when joining, and again after an error), as HeartbeatState does:
 *
 * - rebalance timeout (rebalanceTimeoutMs, by default max.poll.interval.ms), subscribed
 *   topic names, SubscribedTopicRegex (v1), server assignor (groupRemoteAssignor): when changed;
 * - TopicPartitions: the partitions the member owns (topic ids), when its reconciled
 *   assignment changed: that is the acknowledgement;
 * - rack (clientRack): when joining only.
 *
 * Errors follow Java's handler, through the shared classification (../../coordinator-errors.ts).
 * Timers run on the injected Scheduler.
 */
import { Api } from '../../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../../protocol/errors.js';
import type { ConsumerGroupHeartbeatRequestData, ConsumerGroupHeartbeatResponseData } from '../../../protocol/messages/consumer-group-heartbeat.js';
import type { TimerHandle } from '../../../util/clock.js';
import { coordinatorErrorAction, coordinatorFailureAction } from '../../coordinator-errors.js';
import type { BrokerConnection } from '../../connection.js';
import { FencedInstanceIdError, GroupError } from '../errors.js';
import type { MembershipContext } from './group-member.js';
import type { LocalAssignment } from './local-assignment.js';

/** What the heartbeat manager needs from the membership (ConsumerProtocolMembership). */
export interface HeartbeatSubject {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly state: string;
  /** The reconciled assignment: what the member owns. */
  readonly current: LocalAssignment;
  subscription(): { names: string[]; regex: RegExp | null };
  shouldSkipHeartbeat(): boolean;
  shouldHeartbeatNow(): boolean;
  onHeartbeatRequestGenerated(): void;
  onHeartbeatSuccess(response: ConsumerGroupHeartbeatResponseData): void;
  transitionToFenced(reason: string): void;
  transitionToFatal(err: Error): void;
}

/** Java's AbstractHeartbeatRequestManager.CONSUMER_PROTOCOL_NOT_SUPPORTED_MSG. */
const NOT_SUPPORTED = 'The cluster does not support the consumer group protocol (ConsumerGroupHeartbeat); use groupProtocol \'classic\' until it does';

/**
 * A RegExp as the coordinator reads it. Kafka matches SubscribedTopicRegex with RE2J
 * against whole topic names; the consumer's classic protocol tests topic names with
 * RegExp.test, which matches anywhere. So the source goes wrapped as `.*(?:source).*`
 * (without the leading `.*` for a sticky RegExp, which test() anchors at the start), and the
 * flags RE2 has inline go in front: `(?i)`, `(?m)`, `(?s)`. The broker speaks RE2 syntax:
 * lookarounds and backreferences, which RE2 lacks, make it answer INVALID_REGULAR_EXPRESSION.
 */
export function brokerRegex(re: RegExp): string {
  const flags = [...'ims'].filter((f) => re.flags.includes(f)).join('');
  return `${flags === '' ? '' : `(?${flags})`}${re.sticky ? '' : '.*'}(?:${re.source}).*`;
}

/** The fields of the last request sent (Java's HeartbeatState.SentFields); null/-1: not sent yet. */
class SentFields {
  rebalanceTimeoutMs = -1;
  topicNames: string | null = null;
  regex: string | null = null;
  serverAssignor: string | null = null;
  assignment: LocalAssignment | null = null;
}

export class ConsumerProtocolHeartbeat {
  private sent = new SentFields();
  private timer: TimerHandle | null = null;
  private inFlight = false;
  /** The coordinator's heartbeat interval (group.consumer.heartbeat.interval.ms), from its last answer. */
  private intervalMs = 0;
  private lastSentMs = Number.NEGATIVE_INFINITY;
  private backoffUntilMs = 0;
  /** Resolved by the next heartbeat response, whatever it says. */
  private responseWaiters: (() => void)[] = [];
  private closed = false;
  /** Ends a coordinator look-up still going when the consumer closes. */
  private readonly closeController = new AbortController();

  constructor(private readonly ctx: MembershipContext, private readonly member: HeartbeatSubject) {}

  /** When the next heartbeat goes, after the member's state changed. */
  schedule(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.closed || this.inFlight || this.member.shouldSkipHeartbeat()) return;
    const scheduler = this.ctx.cluster.scheduler;
    const due = this.member.shouldHeartbeatNow() ? this.backoffUntilMs : Math.max(this.lastSentMs + this.intervalMs, this.backoffUntilMs);
    this.timer = scheduler.schedule(Math.max(0, due - scheduler.nowMs()), () => {
      this.timer = null;
      void this.send();
    });
  }

  /** A heartbeat as soon as none is in flight (a subscription change). */
  now(): void {
    this.lastSentMs = Number.NEGATIVE_INFINITY;
    this.schedule();
  }

  /** Everything is sent again with the next request (after an error, or when joining). */
  resetSentFields(): void {
    this.sent = new SentFields();
  }

  /** Resolves when the next heartbeat response arrives (or `signal` aborts). */
  nextResponse(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.responseWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  private async send(): Promise<void> {
    if (this.closed || this.inFlight || this.member.shouldSkipHeartbeat()) return;
    this.inFlight = true;
    let response: ConsumerGroupHeartbeatResponseData | null = null;
    let failure: unknown = null;
    try {
      const connection = await this.ctx.lookup.connection(this.closeController.signal);
      const body = this.build(connection);
      this.lastSentMs = this.ctx.cluster.scheduler.nowMs();
      this.member.onHeartbeatRequestGenerated();
      response = await connection.request(Api.ConsumerGroupHeartbeat, body);
    } catch (err) {
      failure = err;
    }
    this.inFlight = false;
    if (!this.closed) {
      if (response) this.onResponse(response);
      else this.onFailure(failure);
    }
    const waiters = this.responseWaiters;
    this.responseWaiters = [];
    for (const w of waiters) w();
    this.schedule();
  }

  /**
   * The leave heartbeat (epoch -1, or -2 for a static member, already set by the
   * membership): sent by itself, even with another heartbeat in flight, never retried; its
   * answer only ends the wait.
   */
  async sendLeave(signal?: AbortSignal): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    try {
      const connection = await this.ctx.lookup.connection(signal);
      const response = await connection.request(Api.ConsumerGroupHeartbeat, this.build(connection), { signal });
      if (response.errorCode !== ErrorCode.NONE) this.ctx.logger.info('the leave heartbeat was answered with an error', { errorCode: response.errorCode });
    } catch (err) {
      this.ctx.logger.debug('the leave heartbeat failed', { error: err as Error });
    } finally {
      this.resetSentFields();
    }
  }

  private build(connection: BrokerConnection): ConsumerGroupHeartbeatRequestData {
    const version = connection.supportedVersion(Api.ConsumerGroupHeartbeat);
    if (version === undefined) throw new GroupError(NOT_SUPPORTED, { cause: new KafkaProtocolError(ErrorCode.UNSUPPORTED_VERSION, 'ConsumerGroupHeartbeat') });
    const o = this.ctx.options;
    const m = this.member;
    const sent = this.sent;
    const joining = m.state === 'joining';
    const body: ConsumerGroupHeartbeatRequestData = {
      groupId: this.ctx.lookup.groupId, memberId: m.memberId, memberEpoch: m.memberEpoch, instanceId: o.groupInstanceId,
      rackId: joining ? o.clientRack : null, rebalanceTimeoutMs: -1, subscribedTopicNames: null, subscribedTopicRegex: null,
      serverAssignor: null, topicPartitions: null,
    };
    if (joining || sent.rebalanceTimeoutMs !== o.rebalanceTimeoutMs) body.rebalanceTimeoutMs = sent.rebalanceTimeoutMs = o.rebalanceTimeoutMs;
    const { names, regex } = m.subscription();
    const namesKey = JSON.stringify(names);
    if (joining || sent.topicNames !== namesKey) {
      body.subscribedTopicNames = names;
      sent.topicNames = namesKey;
    }
    const source = regex === null ? null : brokerRegex(regex);
    if (source !== null && version < 1) {
      throw new GroupError('the coordinator speaks ConsumerGroupHeartbeat v0, which cannot carry a regular expression; subscribe to topic names or use groupProtocol \'classic\'');
    }
    if ((joining && source !== null) || source !== sent.regex) {
      // An empty regex clears the one sent before (a pattern subscription replaced by topic names).
      body.subscribedTopicRegex = source ?? '';
      sent.regex = source;
    }
    if (o.groupRemoteAssignor !== null && (joining || sent.serverAssignor !== o.groupRemoteAssignor)) body.serverAssignor = sent.serverAssignor = o.groupRemoteAssignor;
    if (joining || sent.assignment === null || !m.current.equals(sent.assignment)) {
      body.topicPartitions = [...m.current.partitions].map(([topicId, partitions]) => ({ topicId, partitions: [...partitions] }));
      sent.assignment = m.current;
    }
    return body;
  }

  private onResponse(response: ConsumerGroupHeartbeatResponseData): void {
    const now = this.ctx.cluster.scheduler.nowMs();
    if (response.errorCode === ErrorCode.NONE) {
      if (response.heartbeatIntervalMs > 0) this.intervalMs = response.heartbeatIntervalMs;
      this.backoffUntilMs = 0;
      this.member.onHeartbeatSuccess(response);
      return;
    }
    // As Java: after any error everything is sent again, and the next attempt does not wait
    // for the interval, only for the backoff (none when a rejoin or a new coordinator is next).
    this.resetSentFields();
    this.lastSentMs = Number.NEGATIVE_INFINITY;
    this.backoffUntilMs = now + this.ctx.options.retryBackoffMs;
    const failure = new KafkaProtocolError(response.errorCode, `ConsumerGroupHeartbeat ${this.ctx.lookup.groupId}${response.errorMessage ? `: ${response.errorMessage}` : ''}`);
    switch (coordinatorErrorAction(response.errorCode)) {
      case 'find-coordinator':
        this.ctx.lookup.markUnknown(`ConsumerGroupHeartbeat: ${failure.errorName}`);
        this.backoffUntilMs = 0;
        return;
      case 'retry':
        this.ctx.logger.info('heartbeat failed; retrying', { group: this.ctx.lookup.groupId, error: failure });
        return;
      case 'reset-generation':
      case 'reset-member':
        this.backoffUntilMs = 0;
        this.member.transitionToFenced(failure.errorName);
        return;
      case 'fenced':
        this.member.transitionToFatal(new FencedInstanceIdError(`group.instance.id ${this.ctx.options.groupInstanceId} was fenced by another member`, { cause: failure }));
        return;
      case 'report':
        // As Java: the application hears of it from poll(); the membership goes on.
        this.ctx.reportError(failure);
        return;
      default:
        // UNRELEASED_INSTANCE_ID, UNSUPPORTED_ASSIGNOR, GROUP_MAX_SIZE_REACHED,
        // INVALID_REGULAR_EXPRESSION, authorization, an unexpected code: the membership ends.
        this.member.transitionToFatal(new GroupError(failure.message, { cause: failure }));
    }
  }

  /** No answer: a lost connection or timeout looks for the coordinator again; anything else ends the membership (as Java). */
  private onFailure(err: unknown): void {
    this.resetSentFields();
    this.lastSentMs = Number.NEGATIVE_INFINITY;
    this.backoffUntilMs = this.ctx.cluster.scheduler.nowMs() + this.ctx.options.retryBackoffMs;
    const action = err instanceof GroupError ? 'fatal' : coordinatorFailureAction(err);
    if (action === 'find-coordinator' || action === 'retry') {
      this.ctx.logger.debug('heartbeat failed; retrying', { group: this.ctx.lookup.groupId, error: err as Error });
      if (action === 'find-coordinator') this.ctx.lookup.markUnknown('heartbeat failed');
      return;
    }
    this.member.transitionToFatal(err as Error);
  }

  close(): void {
    this.closed = true;
    this.closeController.abort(new GroupError('the consumer was closed'));
    this.timer?.cancel();
    this.timer = null;
  }
}
