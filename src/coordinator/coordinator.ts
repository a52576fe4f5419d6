/**
 * The group coordinator: Kafka's classic group protocol and committed offsets as a
 * value-returning state machine. The broker runtime calls one method per request or fired
 * timer and carries out the returned CoordinatorResult (see README.md in this directory).
 */
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
import { CoordinatorState } from './coordinator-state.js';
import { deleteGroups, describeGroups, listGroups } from './describe.js';
import { findCoordinatorResponse, type CoordinatorNode } from './find-coordinator.js';
import { heartbeat, leaveGroup } from './heartbeat.js';
import { joinGroup } from './join.js';
import { applyRecord, loaded, unload } from './load.js';
import { expireOffsets, offsetCommit, offsetDelete, offsetFetch } from './offsets.js';
import { OFFSETS_EXPIRATION_KEY, type Operation } from './operation.js';
import { completeClassicGroupJoin, expireHeartbeat, expirePendingSync, tryCompleteInitialRebalanceElseSchedule } from './rebalance.js';
import type { GroupState } from './state.js';
import { syncGroup } from './sync.js';
import {
  assertNever,
  groupCoordinatorConfig,
  type CoordinatorRecord,
  type CoordinatorResult,
  type GroupCoordinatorConfig,
  type RequestContext,
  type TimerKey,
} from './types.js';

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

  /** This node coordinates everything; `node` is where clients should connect. */
  findCoordinator(ctx: RequestContext, req: FindCoordinatorRequestData, node: CoordinatorNode): CoordinatorResult {
    const op = this.s.operation(ctx.nowMs);
    op.reply(ctx.requestId, findCoordinatorResponse(ctx.apiVersion, req, node));
    return op.result();
  }

  /** A timer the runtime scheduled has come due. Stale keys (cancelled, replaced) do nothing. */
  onTimer(key: TimerKey, nowMs: number): CoordinatorResult {
    const s = this.s;
    const op = s.operation(nowMs);
    const action = s.timers.take(key);
    if (action === undefined) return op.result();
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
      default:
        assertNever(action, 'timer action');
    }
    return op.result();
  }

  /**
   * Start-up: apply one record of `__consumer_offsets`, in log order. Call `loaded` after
   * the last one. Undecodable records throw (ProtocolDecodeError).
   */
  replay(record: CoordinatorRecord): void {
    applyRecord(this.s, record, null);
  }

  /** Replay is over: arms the loaded members' session timers and the offset expiration. */
  loaded(nowMs: number): CoordinatorResult {
    const op = this.s.operation(nowMs);
    loaded(this.s, op);
    return op.result();
  }

  /**
   * Offsets past `offsets.retention.minutes` (Kafka's rules: by commit time for simple
   * groups and unsubscribed topics of Stable consumer groups, from the moment the group
   * became Empty otherwise) become tombstones, and Empty groups without offsets go too.
   * Runs by itself on the `offsets-expiration` timer armed by `loaded`.
   */
  expireOffsets(nowMs: number): CoordinatorResult {
    const op = this.s.operation(nowMs);
    expireOffsets(this.s, op);
    return op.result();
  }

  /** Shutdown: parked requests are answered NOT_COORDINATOR and every timer is cancelled. */
  unload(nowMs: number): CoordinatorResult {
    const op = this.s.operation(nowMs);
    unload(this.s, op);
    return op.result();
  }

  groupIds(): string[] {
    return [...this.s.groups.keys()];
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
    const op = this.s.operation(ctx.nowMs);
    handler(this.s, op, ctx, req);
    return op.result();
  }
}
