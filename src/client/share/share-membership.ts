/**
 * The share consumer's membership in its share group (Kafka's ShareMembershipManager and
 * ShareHeartbeatRequestManager): ShareGroupHeartbeat at epoch 0 to join with a member id
 * the client generates once (Uuid.randomUuid().toString(), as Kafka's client), then every
 * heartbeat interval the coordinator gives. The subscription goes when joining and when it
 * changed; the rack only when joining.
 *
 * Share groups have no revocation: the assignment in a response is applied at once (topic
 * ids resolved through metadata) and never acknowledged. FENCED_MEMBER_EPOCH and
 * UNKNOWN_MEMBER_ID drop the assignment and rejoin at epoch 0 with the same member id; a
 * lost coordinator is looked up again; fatal errors are kept for poll() to throw. Leaving is
 * a heartbeat at epoch -1. Timers run on the injected Scheduler.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import type { ShareGroupHeartbeatRequestData, ShareGroupHeartbeatResponseData } from '../../protocol/messages/share-group-heartbeat.js';
import type { TimerHandle } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import type { Cluster } from '../cluster.js';
import { coordinatorErrorAction, coordinatorFailureAction } from '../coordinator-errors.js';
import { CoordinatorLookup } from '../consumer/coordinator-lookup.js';
import { GroupError } from '../consumer/errors.js';
import { generateMemberId } from '../consumer/group/local-assignment.js';
import type { ResolvedShareConsumerOptions } from './options.js';

const JOIN_EPOCH = 0;
const LEAVE_EPOCH = -1;

/** A partition assigned to this member, by name and id (ShareFetch names topics by id). */
export interface SharePartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
}

export interface ShareMembershipHooks {
  /** The assignment changed (applied at once). */
  assigned(partitions: readonly SharePartition[]): void;
  /** A fatal error for poll() to throw. */
  reportError(err: Error): void;
}

export class ShareMembership {
  /** Generated once for the consumer's lifetime, as Kafka's client. */
  readonly memberId = generateMemberId();
  memberEpoch = JOIN_EPOCH;
  private subscription: readonly string[] = [];
  /** The subscription as last sent (null: send it with the next heartbeat). */
  private sentSubscription: string | null = null;
  /** The coordinator's assignment by topic id, and what of it resolved to names. */
  private target = new Map<string, readonly number[]>();
  assignment: readonly SharePartition[] = [];
  private readonly lookup: CoordinatorLookup;
  private timer: TimerHandle | null = null;
  private inFlight = false;
  private intervalMs = 0;
  private lastSentMs = Number.NEGATIVE_INFINITY;
  private backoffUntilMs = 0;
  private refreshing = false;
  private stopped = false;
  private fatal = false;
  /** Moves on when the member leaves: the answer to a heartbeat sent before is then ignored. */
  private membershipGeneration = 0;
  private readonly stopController = new AbortController();

  constructor(
    private readonly cluster: Cluster,
    private readonly options: ResolvedShareConsumerOptions,
    private readonly logger: Logger,
    private readonly hooks: ShareMembershipHooks,
  ) {
    this.lookup = new CoordinatorLookup(cluster, options.groupId, logger);
  }

  get subscribed(): readonly string[] {
    return this.subscription;
  }

  /** A new subscription: joins (or tells the coordinator) with the next heartbeat, sent at once. */
  subscribe(topics: readonly string[]): void {
    this.subscription = [...new Set(topics)].sort();
    this.sentSubscription = null;
    this.lastSentMs = Number.NEGATIVE_INFINITY;
    this.schedule();
  }

  /** When the next heartbeat goes: at once while joining or after an error (past the backoff), else after the interval. */
  private schedule(): void {
    this.timer?.cancel();
    this.timer = null;
    if (this.stopped || this.fatal || this.inFlight || this.subscription.length === 0) return;
    const scheduler = this.cluster.scheduler;
    const due = Math.max(this.lastSentMs + this.intervalMs, this.backoffUntilMs);
    this.timer = scheduler.schedule(Math.max(0, due - scheduler.nowMs()), () => {
      this.timer = null;
      void this.send();
    });
  }

  private build(epoch: number): ShareGroupHeartbeatRequestData {
    const joining = epoch === JOIN_EPOCH;
    const names = JSON.stringify(this.subscription);
    const sendNames = epoch !== LEAVE_EPOCH && (joining || this.sentSubscription !== names);
    if (sendNames) this.sentSubscription = names;
    return {
      groupId: this.options.groupId, memberId: this.memberId, memberEpoch: epoch,
      rackId: joining ? this.options.clientRack : null, subscribedTopicNames: sendNames ? [...this.subscription] : null,
    };
  }

  private async send(): Promise<void> {
    if (this.stopped || this.inFlight || this.fatal) return;
    this.inFlight = true;
    let response: ShareGroupHeartbeatResponseData | null = null;
    let failure: unknown = null;
    const generation = this.membershipGeneration;
    try {
      const connection = await this.lookup.connection(this.stopController.signal);
      if (connection.supportedVersion(Api.ShareGroupHeartbeat) === undefined) {
        throw new GroupError('the cluster does not support share groups (ShareGroupHeartbeat)', { cause: new KafkaProtocolError(ErrorCode.UNSUPPORTED_VERSION, 'ShareGroupHeartbeat') });
      }
      this.lastSentMs = this.cluster.scheduler.nowMs();
      response = await connection.request(Api.ShareGroupHeartbeat, this.build(this.memberEpoch), { signal: this.stopController.signal });
    } catch (err) {
      failure = err;
    }
    this.inFlight = false;
    if (this.stopped) return;
    if (generation !== this.membershipGeneration) {
      this.schedule();
      return;
    }
    if (response) this.onResponse(response);
    else this.onFailure(failure);
    this.schedule();
  }

  private onResponse(response: ShareGroupHeartbeatResponseData): void {
    if (response.errorCode === ErrorCode.NONE) {
      if (response.heartbeatIntervalMs > 0) this.intervalMs = response.heartbeatIntervalMs;
      this.backoffUntilMs = 0;
      this.memberEpoch = response.memberEpoch;
      if (response.assignment !== null) {
        this.target = new Map(response.assignment.topicPartitions.map((t) => [t.topicId, [...t.partitions].sort((a, b) => a - b)]));
        this.applyAssignment();
      }
      return;
    }
    // After an error everything goes again, without waiting for the interval.
    this.sentSubscription = null;
    this.lastSentMs = Number.NEGATIVE_INFINITY;
    this.backoffUntilMs = this.cluster.scheduler.nowMs() + this.options.retryBackoffMs;
    const failure = new KafkaProtocolError(response.errorCode, `ShareGroupHeartbeat ${this.options.groupId}${response.errorMessage ? `: ${response.errorMessage}` : ''}`);
    switch (coordinatorErrorAction(response.errorCode)) {
      case 'find-coordinator':
        this.lookup.markUnknown(`ShareGroupHeartbeat: ${failure.errorName}`);
        this.backoffUntilMs = 0;
        return;
      case 'retry':
        this.logger.info('share group heartbeat failed; retrying', { group: this.options.groupId, error: failure });
        return;
      case 'reset-generation':
      case 'reset-member':
      case 'rejoin':
      case 'stale-epoch':
        // No revocation in share groups: the assignment goes at once and the member rejoins.
        this.logger.info('share group member fenced; rejoining', { group: this.options.groupId, error: failure });
        this.backoffUntilMs = 0;
        this.rejoin();
        return;
      case 'report':
        this.hooks.reportError(failure);
        return;
      default:
        this.fatal = true;
        this.hooks.reportError(new GroupError(failure.message, { cause: failure }));
    }
  }

  private onFailure(err: unknown): void {
    this.sentSubscription = null;
    this.lastSentMs = Number.NEGATIVE_INFINITY;
    this.backoffUntilMs = this.cluster.scheduler.nowMs() + this.options.retryBackoffMs;
    const action = err instanceof GroupError ? 'fatal' : coordinatorFailureAction(err);
    if (action === 'find-coordinator' || action === 'retry') {
      this.logger.debug('share group heartbeat failed; retrying', { group: this.options.groupId, error: err as Error });
      if (action === 'find-coordinator') this.lookup.markUnknown('heartbeat failed');
      return;
    }
    this.fatal = true;
    this.hooks.reportError(err as Error);
  }

  private rejoin(): void {
    this.memberEpoch = JOIN_EPOCH;
    this.target = new Map();
    this.setAssignment([]);
  }

  /** Applies the target: what resolves to names at once; ids metadata does not know yet start a refresh. */
  private applyAssignment(): void {
    if (this.resolveTarget() && !this.refreshing) this.refreshForAssignment();
  }

  /** Sets the assignment to the target's partitions whose topic names are known; true when some are not. */
  private resolveTarget(): boolean {
    const byId = new Map(this.cluster.cachedTopics().map((t) => [t.topicId, t.name]));
    const out: SharePartition[] = [];
    let unresolved = false;
    for (const [topicId, partitions] of this.target) {
      const topic = byId.get(topicId);
      if (topic === undefined) {
        unresolved = true;
        continue;
      }
      for (const partition of partitions) out.push({ topic, topicId, partition });
    }
    this.setAssignment(out);
    return unresolved;
  }

  /** Metadata for the subscription, then the target again; ids still unknown then are looked up again after retry.backoff.ms. */
  private refreshForAssignment(): void {
    this.refreshing = true;
    const scheduler = this.cluster.scheduler;
    const started = scheduler.nowMs();
    const signal = this.stopController.signal;
    void this.cluster.refreshMetadata(this.subscription, signal)
      .catch((err: unknown) => this.logger.debug('metadata refresh for assigned topic ids failed', { error: err as Error }))
      .then(() => (!this.stopped && this.resolveTarget() ? scheduler.sleep(Math.max(0, started + this.options.retryBackoffMs - scheduler.nowMs()), signal) : undefined))
      .then(() => {
        this.refreshing = false;
        if (!this.stopped) this.applyAssignment();
      }, () => { this.refreshing = false; });
  }

  private setAssignment(partitions: SharePartition[]): void {
    const key = (ps: readonly SharePartition[]): string => ps.map((p) => `${p.topicId}:${p.partition}`).join(',');
    if (key(partitions) === key(this.assignment)) return;
    this.assignment = partitions;
    this.hooks.assigned(partitions);
  }

  /**
   * Leaves the group (a heartbeat at epoch -1, never retried) when in it; the member can
   * subscribe again later and rejoins at epoch 0.
   */
  async leave(signal?: AbortSignal): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    // A join in flight is answered first (one connection, answered in order), so the leave follows it.
    const wasIn = this.memberEpoch > 0 || this.inFlight;
    this.membershipGeneration++;
    this.subscription = [];
    this.rejoin();
    if (!wasIn || this.fatal) return;
    try {
      const connection = await this.lookup.connection(signal);
      const response = await connection.request(Api.ShareGroupHeartbeat, this.build(LEAVE_EPOCH), { signal });
      if (response.errorCode !== ErrorCode.NONE) this.logger.info('the leave heartbeat was answered with an error', { errorCode: response.errorCode });
    } catch (err) {
      this.logger.debug('the leave heartbeat failed', { error: err as Error });
    } finally {
      this.sentSubscription = null;
    }
  }

  /** Stops heartbeats for good (close()). */
  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = null;
    this.stopController.abort(new GroupError('the share consumer was closed'));
  }
}
