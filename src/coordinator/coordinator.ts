/**
 * The group coordinator: Kafka's classic group protocol and committed offsets as a
 * value-returning state machine. The broker runtime calls one method per request or fired
 * timer and carries out the returned CoordinatorResult (see README.md in this directory).
 */
import { ErrorCode } from '../protocol/errors.js';
import type { DeleteGroupsRequestData } from '../protocol/messages/delete-groups.js';
import type { DescribeGroupsRequestData } from '../protocol/messages/describe-groups.js';
import type { FindCoordinatorRequestData } from '../protocol/messages/find-coordinator.js';
import type { HeartbeatRequestData } from '../protocol/messages/heartbeat.js';
import type { JoinGroupRequestData } from '../protocol/messages/join-group.js';
import type { LeaveGroupRequestData } from '../protocol/messages/leave-group.js';
import type { ListGroupsRequestData } from '../protocol/messages/list-groups.js';
import type { OffsetCommitRequestData } from '../protocol/messages/offset-commit.js';
import type { OffsetDeleteRequestData } from '../protocol/messages/offset-delete.js';
import type { OffsetFetchRequestData } from '../protocol/messages/offset-fetch.js';
import type { SyncGroupRequestData } from '../protocol/messages/sync-group.js';
import type { ConsumerGroupDescribeRequestData } from '../protocol/messages/consumer-group-describe.js';
import type { ConsumerGroupHeartbeatRequestData } from '../protocol/messages/consumer-group-heartbeat.js';
import type { ShareGroupDescribeRequestData } from '../protocol/messages/share-group-describe.js';
import type { ShareGroupHeartbeatRequestData } from '../protocol/messages/share-group-heartbeat.js';
import { describeShareGroup, shareGroupDescribe } from './share/describe.js';
import type { StreamsGroupDescribeRequestData } from '../protocol/messages/streams-group-describe.js';
import type { StreamsGroupHeartbeatRequestData } from '../protocol/messages/streams-group-heartbeat.js';
import { streamsGroupHeartbeat } from './streams/heartbeat.js';
import { streamsGroupDescribe } from './streams/describe.js';
import { completeStreamsInitialRebalance, expireStreamsRebalance, expireStreamsSession, loadedStreamsGroups } from './streams/fence.js';
import type { StreamsGroupState } from './streams/group.js';
import { expireShareSession, loadedShareGroups } from './share/fence.js';
import type { ShareGroupState } from './share/group.js';
import { shareGroupHeartbeat } from './share/heartbeat.js';
import { initializeShareGroupState, uninitializeShareGroupState } from './share/initialize.js';
import {
  alterShareGroupOffsets, completeDeleteShareGroupOffsets, initializedShareGroupPartitions, initiateDeleteShareGroupOffsets,
  sharePartitionDeleteRequests,
} from './share/offsets.js';
import type { AlterShareGroupOffsetsRequestData } from '../protocol/messages/alter-share-group-offsets.js';
import type { DeleteShareGroupOffsetsRequestData } from '../protocol/messages/delete-share-group-offsets.js';
import { consumerGroupDescribe, describeConsumerGroup } from './consumer/describe.js';
import { consumerGroupHeartbeat } from './consumer/heartbeat.js';
import { expireRebalance, expireSession } from './consumer/fence.js';
import { applyRegexRefresh, loadedConsumerGroups, onMetadataChange } from './consumer/lifecycle.js';
import type { TopicImage } from './consumer/metadata.js';
import { CoordinatorState } from './coordinator-state.js';
import { deleteGroups, describeGroups, listGroups } from './describe.js';
import { findCoordinatorResponse, type CoordinatorNode } from './find-coordinator.js';
import { heartbeat, leaveGroup } from './classic/heartbeat.js';
import { joinGroup } from './classic/join.js';
import { loaded, unload } from './load.js';
import { replayBytes, replayEndTransactionMarker } from './replay.js';
import { expireOffsets, offsetCommit, offsetDelete, offsetFetch } from './offsets.js';
import { txnOffsetCommit } from './txn-offsets.js';
import type { TxnOffsetCommitRequestData } from '../protocol/messages/txn-offset-commit.js';
import { OFFSETS_EXPIRATION_KEY, consumerSessionKey, heartbeatKey, shareSessionKey, streamsSessionKey, type Operation } from './operation.js';
import { completeClassicGroupJoin, expireHeartbeat, expirePendingSync, tryCompleteInitialRebalanceElseSchedule } from './classic/rebalance.js';
import { forceRebalance, rebalanceableGroupType } from './forced-rebalance.js';
import { parkedRequests, settleRevert, touchedTimers } from './revert.js';
import type { ConsumerGroupState } from './consumer/group.js';
import type { GroupType } from './events.js';
import type { GroupState } from './classic/state.js';
import { syncGroup } from './classic/sync.js';
import {
  assertNever,
  groupCoordinatorConfig,
  type CoordinatorRecord,
  type CoordinatorResult,
  type GroupCoordinatorConfig,
  type RequestContext,
  type ResultToken,
  type TimerKey,
} from './types.js';

/** What a metrics scrape reads about every group: cheap to build, nothing else. */
export interface GroupSummary {
  readonly groupId: string;
  readonly groupType: GroupType;
  /**
   * Kafka's state name: a classic group's, a consumer group's (Empty, Assigning, Reconciling,
   * Stable) or a share group's (Empty, Stable).
   */
  readonly state: GroupState | ConsumerGroupState | ShareGroupState | StreamsGroupState;
  readonly members: number;
  /** The generation (classic) or group epoch (consumer, share). */
  readonly generation: number;
}

/** A read-only view of a group, for logs, metrics and tests. */
export interface GroupSnapshot {
  readonly groupId: string;
  readonly state: GroupState;
  readonly generationId: number;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly leaderId: string | null;
  readonly members: readonly { readonly memberId: string; readonly groupInstanceId: string | null }[];
  readonly pendingMemberIds: readonly string[];
}

type Handler<Req> = (s: CoordinatorState, op: Operation, ctx: RequestContext, req: Req) => void;

export class GroupCoordinator {
  private readonly s: CoordinatorState;

  constructor(config: Partial<GroupCoordinatorConfig> = {}) {
    this.s = new CoordinatorState(groupCoordinatorConfig(config));
  }

  get config(): GroupCoordinatorConfig {
    return this.s.config;
  }

  joinGroup(ctx: RequestContext, req: JoinGroupRequestData): CoordinatorResult {
    return this.run(joinGroup, ctx, req);
  }

  syncGroup(ctx: RequestContext, req: SyncGroupRequestData): CoordinatorResult {
    return this.run(syncGroup, ctx, req);
  }

  heartbeat(ctx: RequestContext, req: HeartbeatRequestData): CoordinatorResult {
    return this.run(heartbeat, ctx, req);
  }

  leaveGroup(ctx: RequestContext, req: LeaveGroupRequestData): CoordinatorResult {
    return this.run(leaveGroup, ctx, req);
  }

  offsetCommit(ctx: RequestContext, req: OffsetCommitRequestData): CoordinatorResult {
    return this.run(offsetCommit, ctx, req);
  }

  offsetFetch(ctx: RequestContext, req: OffsetFetchRequestData): CoordinatorResult {
    return this.run(offsetFetch, ctx, req);
  }

  /** Offsets inside a transaction: its records carry the producer id and epoch (txn-offsets.ts). */
  txnOffsetCommit(ctx: RequestContext, req: TxnOffsetCommitRequestData): CoordinatorResult {
    return this.run(txnOffsetCommit, ctx, req);
  }

  /**
   * The transaction of `producerId` is over: its COMMIT (`commit`) or ABORT marker was
   * appended to `__consumer_offsets` and is durable. Its pending offsets become committed
   * or are dropped. No records: the marker is the record.
   */
  completeTransaction(producerId: bigint, commit: boolean, nowMs: number): CoordinatorResult {
    return this.execute(nowMs, () => replayEndTransactionMarker(this.s, producerId, commit, nowMs));
  }

  offsetDelete(ctx: RequestContext, req: OffsetDeleteRequestData): CoordinatorResult {
    return this.run(offsetDelete, ctx, req);
  }

  deleteGroups(ctx: RequestContext, req: DeleteGroupsRequestData): CoordinatorResult {
    return this.run(deleteGroups, ctx, req);
  }

  describeGroups(ctx: RequestContext, req: DescribeGroupsRequestData): CoordinatorResult {
    return this.run(describeGroups, ctx, req);
  }

  listGroups(ctx: RequestContext, req: ListGroupsRequestData): CoordinatorResult {
    return this.run(listGroups, ctx, req);
  }

  consumerGroupHeartbeat(ctx: RequestContext, req: ConsumerGroupHeartbeatRequestData): CoordinatorResult {
    return this.run(consumerGroupHeartbeat, ctx, req);
  }

  consumerGroupDescribe(ctx: RequestContext, req: ConsumerGroupDescribeRequestData): CoordinatorResult {
    return this.run(consumerGroupDescribe, ctx, req);
  }

  /** ShareGroupHeartbeat (KIP-932): join, heartbeat and leave of a share group (share/heartbeat.ts). */
  shareGroupHeartbeat(ctx: RequestContext, req: ShareGroupHeartbeatRequestData): CoordinatorResult {
    return this.run(shareGroupHeartbeat, ctx, req);
  }

  shareGroupDescribe(ctx: RequestContext, req: ShareGroupDescribeRequestData): CoordinatorResult {
    return this.run(shareGroupDescribe, ctx, req);
  }

  /**
   * StreamsGroupHeartbeat (KIP-1071): join, heartbeat and leave of a streams group
   * (streams/heartbeat.ts). A result may carry `streamsInternalTopics` for the broker to create.
   */
  streamsGroupHeartbeat(ctx: RequestContext, req: StreamsGroupHeartbeatRequestData): CoordinatorResult {
    return this.run(streamsGroupHeartbeat, ctx, req);
  }

  streamsGroupDescribe(ctx: RequestContext, req: StreamsGroupDescribeRequestData): CoordinatorResult {
    return this.run(streamsGroupDescribe, ctx, req);
  }

  /**
   * The share-group offset APIs' steps in the group coordinator (share/offsets.ts): each
   * replies with a value the broker's handler goes on with (share coordinator calls between).
   */
  initializedShareGroupPartitions(ctx: RequestContext, groupId: string): CoordinatorResult {
    return this.run(initializedShareGroupPartitions, ctx, groupId);
  }

  alterShareGroupOffsets(ctx: RequestContext, req: AlterShareGroupOffsetsRequestData): CoordinatorResult {
    return this.run(alterShareGroupOffsets, ctx, req);
  }

  initiateDeleteShareGroupOffsets(ctx: RequestContext, req: DeleteShareGroupOffsetsRequestData): CoordinatorResult {
    return this.run(initiateDeleteShareGroupOffsets, ctx, req);
  }

  completeDeleteShareGroupOffsets(ctx: RequestContext, groupId: string, topics: ReadonlyMap<string, string>): CoordinatorResult {
    return this.run(completeDeleteShareGroupOffsets, ctx, { groupId, topics });
  }

  /** DeleteGroups' first step for share groups: their share state to delete (Kafka's sharePartitionDeleteRequests). */
  sharePartitionDeleteRequests(ctx: RequestContext, groupIds: readonly string[]): CoordinatorResult {
    return this.run(sharePartitionDeleteRequests, ctx, groupIds);
  }

  /**
   * The share coordinator initialized the share state of these partitions (topic id →
   * partitions) of a share group, as a result's `shareInitializations` asked: they are
   * recorded as initialized, and the group's next heartbeat assigns them (Kafka's
   * GroupMetadataManager.initializeShareGroupState, which GroupCoordinatorService runs after
   * the share coordinator's InitializeShareGroupState succeeded).
   */
  initializeShareGroupState(groupId: string, topicPartitions: ReadonlyMap<string, readonly number[]>, nowMs: number): CoordinatorResult {
    return this.execute(nowMs, (op) => initializeShareGroupState(this.s, op, groupId, topicPartitions));
  }

  /**
   * The share coordinator could not initialize these partitions: they are no longer
   * initializing, so a later heartbeat asks again (Kafka's uninitializeShareGroupState).
   */
  uninitializeShareGroupState(groupId: string, topicPartitions: ReadonlyMap<string, readonly number[]>, nowMs: number): CoordinatorResult {
    return this.execute(nowMs, (op) => uninitializeShareGroupState(this.s, op, groupId, topicPartitions));
  }

  /**
   * The broker's topics, every one of them (internal ones too, as Kafka's metadata image):
   * call before `loaded` and whenever a topic is created, deleted or gets partitions.
   * Consumer groups subscribed to a changed topic compute their subscription again at their
   * next heartbeat (Kafka's onNewMetadataImage); nothing is written now, so nothing returns.
   */
  onMetadataChange(topics: readonly TopicImage[]): void {
    onMetadataChange(this.s, topics);
  }

  /** This node coordinates everything; `node` is where clients should connect. */
  findCoordinator(ctx: RequestContext, req: FindCoordinatorRequestData, node: CoordinatorNode): CoordinatorResult {
    return this.execute(ctx.nowMs, (op) => op.reply(ctx.requestId, findCoordinatorResponse(ctx.apiVersion, req, node)));
  }

  /**
   * The pending session deadline of a member (a classic group's heartbeat, a consumer,
   * share or streams group's session), or undefined when it has none.
   */
  memberSessionKey(groupId: string, memberId: string): TimerKey | undefined {
    const keys = [heartbeatKey(groupId, memberId), consumerSessionKey(groupId, memberId), shareSessionKey(groupId, memberId), streamsSessionKey(groupId, memberId)];
    return keys.find((key) => this.s.timers.has(key));
  }

  /**
   * Ends a member's session now, as its session timer would when it fires (a test's control:
   * a member that died). Kafka's rules hold: a classic member whose JoinGroup or SyncGroup
   * is awaiting its answer is not expired. Nothing happens without a pending session deadline.
   */
  expireMemberSession(groupId: string, memberId: string, nowMs: number): CoordinatorResult {
    const key = this.memberSessionKey(groupId, memberId);
    return key === undefined ? this.execute(nowMs, () => undefined) : this.onTimer(key, nowMs);
  }

  /**
   * The kind of group `triggerRebalance` would act on now, or null: a classic group that is
   * Stable or CompletingRebalance, or a consumer, share or streams group with members.
   */
  rebalanceableGroupType(groupId: string): 'classic' | 'consumer' | 'share' | 'streams' | null {
    return rebalanceableGroupType(this.s, groupId);
  }

  /**
   * Starts a rebalance (a test's control): a classic group prepares one, as a change of its
   * members would; a consumer, share or streams group has its group epoch bumped, so its
   * members get a new target assignment at their next heartbeat. Nothing for other groups.
   */
  triggerRebalance(groupId: string, reason: string, nowMs: number): CoordinatorResult {
    return this.execute(nowMs, (op) => forceRebalance(this.s, op, groupId, reason));
  }

  /** A timer the runtime scheduled has come due. Stale keys (cancelled, replaced) do nothing. */
  onTimer(key: TimerKey, nowMs: number): CoordinatorResult {
    return this.execute(nowMs, (op) => this.timerFired(op, key));
  }

  /**
   * The records of the result named `token` did not become durable (or an earlier result's
   * did not, the runtime failing this result's replies with `errorCode`): the state goes back
   * to what it was before that result and every later one, newest first, as Kafka's runtime
   * reverts to its last committed snapshot. The returned result answers the requests those
   * results had parked with `errorCode`, brings the runtime's timers back in line (a timer
   * whose firing is undone fires again after a retry backoff; a session deadline is not
   * moved back) and carries what Kafka does
   * after such a failure (a leader's SyncGroup: the group rebalances). Undefined when that
   * result was already reverted, with an earlier one.
   */
  revert(token: ResultToken, errorCode: number, nowMs: number): CoordinatorResult | undefined {
    const s = this.s;
    const reverted = s.journal.takeFrom(token);
    if (reverted === undefined) return undefined;
    const parked = parkedRequests(s);
    const timers = touchedTimers(s, reverted);
    for (const changes of reverted) changes.rollback();
    return this.execute(nowMs, (op) => settleRevert(s, op, reverted, parked, timers, errorCode));
  }

  /** The records of the result named `token`, and of every earlier one, are durable. */
  committed(token: ResultToken): void {
    this.s.journal.committed(token);
  }

  /**
   * The runtime's one call for a settled result (src/broker/coordinator-runtime/shard.ts):
   * `committed` when its records are durable (errorCode NONE), else `revert`.
   */
  settle(token: ResultToken, errorCode: number, nowMs: number): CoordinatorResult | undefined {
    if (errorCode === ErrorCode.NONE) {
      this.committed(token);
      return undefined;
    }
    return this.revert(token, errorCode, nowMs);
  }

  private timerFired(op: Operation, key: TimerKey): void {
    const s = this.s;
    const action = s.timers.take(key);
    if (action === undefined) return;
    switch (action.kind) {
      case 'heartbeat':
        expireHeartbeat(s, op, action.groupId, action.memberId);
        break;
      case 'join': {
        // The key is cancelled whenever the join phase ends, so the group is normally
        // PreparingRebalance here; the check keeps a late firing harmless.
        const group = s.groups.get(action.groupId);
        if (group?.is('PreparingRebalance')) completeClassicGroupJoin(s, op, group);
        break;
      }
      case 'initial-rebalance':
        tryCompleteInitialRebalanceElseSchedule(s, op, action.groupId, action.delayMs, action.remainingMs);
        break;
      case 'sync':
        expirePendingSync(s, op, action.groupId, action.generationId);
        break;
      case 'offsets-expiration':
        expireOffsets(s, op);
        op.schedule(OFFSETS_EXPIRATION_KEY, s.config.offsetsRetentionCheckIntervalMs, action);
        break;
      // A classic member of a consumer group that misses its join or sync deadline is fenced
      // as one whose session expired.
      case 'consumer-session':
      case 'consumer-join':
      case 'consumer-sync':
        expireSession(s, op, action.groupId, action.memberId);
        break;
      case 'consumer-rebalance':
        expireRebalance(s, op, action.groupId, action.memberId, action.memberEpoch);
        break;
      case 'consumer-regex':
        applyRegexRefresh(s, op, action.groupId, action.regexes, action.startMs, action.mayDescribeTopic);
        break;
      case 'share-session':
        expireShareSession(s, op, action.groupId, action.memberId);
        break;
      case 'streams-session':
        expireStreamsSession(s, op, action.groupId, action.memberId);
        break;
      case 'streams-rebalance':
        expireStreamsRebalance(s, op, action.groupId, action.memberId, action.memberEpoch);
        break;
      case 'streams-initial-rebalance':
        completeStreamsInitialRebalance(s, op, action.groupId);
        break;
      default:
        assertNever(action, 'timer action');
    }
  }

  /**
   * Start-up: apply one record of `__consumer_offsets`, in log order. Call `loaded` after
   * the last one. Undecodable records throw (ProtocolDecodeError).
   */
  replay(record: CoordinatorRecord): void {
    replayBytes(this.s, record);
  }

  /** Start-up: a transaction marker met in `__consumer_offsets`, in log order with the records. */
  replayEndTransactionMarker(producerId: bigint, commit: boolean): void {
    replayEndTransactionMarker(this.s, producerId, commit, null);
  }

  /**
   * Replay is over: arms the loaded members' session timers and the offset expiration. The
   * topics (onMetadataChange) must be known by then: consumer groups resolve their regexes.
   */
  loaded(nowMs: number): CoordinatorResult {
    return this.execute(nowMs, (op) => {
      loaded(this.s, op);
      loadedConsumerGroups(this.s, op);
      loadedShareGroups(this.s, op);
      loadedStreamsGroups(this.s, op);
    });
  }

  /**
   * Offsets past `offsets.retention.minutes` (Kafka's rules: by commit time for simple
   * groups and unsubscribed topics of Stable consumer groups, from the moment the group
   * became Empty otherwise) become tombstones, and Empty groups without offsets go too.
   * Runs by itself on the `offsets-expiration` timer armed by `loaded`.
   */
  expireOffsets(nowMs: number): CoordinatorResult {
    return this.execute(nowMs, (op) => expireOffsets(this.s, op));
  }

  /**
   * Shutdown: parked requests are answered NOT_COORDINATOR and every timer is cancelled.
   * Nothing is reverted after it (the coordinator is gone).
   */
  unload(nowMs: number): CoordinatorResult {
    return this.execute(nowMs, (op) => {
      unload(this.s, op);
      this.s.journal.clearPending();
    });
  }

  /** Every group id: classic groups, then consumer groups, share groups and streams groups. */
  groupIds(): string[] {
    return [...this.s.groups.keys(), ...this.s.consumerGroups.keys(), ...this.s.shareGroups.keys(), ...this.s.streamsGroups.keys()];
  }

  /** Every group's state, members and generation (metrics). */
  groupSummaries(): GroupSummary[] {
    const out: GroupSummary[] = [];
    for (const g of this.s.groups.values()) {
      out.push({ groupId: g.groupId, groupType: 'classic', state: g.state, members: g.numMembers, generation: g.generationId });
    }
    for (const g of this.s.consumerGroups.values()) {
      out.push({ groupId: g.groupId, groupType: 'consumer', state: g.state, members: g.numMembers, generation: g.groupEpoch });
    }
    for (const g of this.s.shareGroups.values()) {
      out.push({ groupId: g.groupId, groupType: 'share', state: g.state, members: g.numMembers, generation: g.groupEpoch });
    }
    for (const g of this.s.streamsGroups.values()) {
      out.push({ groupId: g.groupId, groupType: 'streams', state: g.state, members: g.numMembers, generation: g.groupEpoch });
    }
    return out;
  }

  /**
   * Calls `visit` with every committed offset, group by group (metrics: lag against the log
   * end offsets). Read-only; the coordinator must not be called from `visit`.
   */
  forEachCommittedOffset(visit: (groupId: string, topic: string, partition: number, committedOffset: bigint) => void): void {
    this.s.offsets.forEach(visit);
  }

  /** A consumer group as ConsumerGroupDescribe shows it, for logs and tests. */
  consumerGroup(groupId: string): ReturnType<typeof describeConsumerGroup> | undefined {
    const g = this.s.consumerGroups.get(groupId);
    return g === undefined ? undefined : describeConsumerGroup(this.s, g);
  }

  /** A share group as ShareGroupDescribe shows it, for logs and tests. */
  shareGroup(groupId: string): ReturnType<typeof describeShareGroup> | undefined {
    const g = this.s.shareGroups.get(groupId);
    return g === undefined ? undefined : describeShareGroup(this.s, g);
  }

  group(groupId: string): GroupSnapshot | undefined {
    const g = this.s.groups.get(groupId);
    if (g === undefined) return undefined;
    return {
      groupId: g.groupId,
      state: g.state,
      generationId: g.generationId,
      protocolType: g.protocolType,
      protocolName: g.protocolName,
      leaderId: g.leaderId,
      members: [...g.members.values()].map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId })),
      pendingMemberIds: [...g.pendingJoinMembers],
    };
  }

  private run<Req>(handler: Handler<Req>, ctx: RequestContext, req: Req): CoordinatorResult {
    return this.execute(ctx.nowMs, (op) => handler(this.s, op, ctx, req));
  }

  /**
   * Runs one operation under the journal. An operation that throws (an internal bug) is
   * undone: its result is never carried out, so nothing it changed may stay.
   */
  private execute(nowMs: number, body: (op: Operation) => void): CoordinatorResult {
    const s = this.s;
    const op = s.operation(nowMs);
    s.journal.begin();
    try {
      body(op);
    } catch (err) {
      s.journal.abort();
      throw err;
    }
    return op.result(s.journal.end(op.recordCount > 0, op.replyList));
  }
}
