/**
 * Request builders with a consumer's usual values, and the common flows (join with
 * MEMBER_ID_REQUIRED, form a stable group) the coordinator tests start from.
 */
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import type { JoinGroupResponseData } from '../../../src/protocol/messages/join-group.js';
import type { SyncGroupResponseData } from '../../../src/protocol/messages/sync-group.js';
import type { HeartbeatResponseData } from '../../../src/protocol/messages/heartbeat.js';
import type { LeaveGroupResponseData } from '../../../src/protocol/messages/leave-group.js';
import type { OffsetCommitResponseData } from '../../../src/protocol/messages/offset-commit.js';
import type { OffsetFetchResponseData } from '../../../src/protocol/messages/offset-fetch.js';
import { assignment, subscription, topicIdFor, type CoordinatorHarness, type Sent } from './harness.js';

export const SESSION_TIMEOUT_MS = 10_000;
export const REBALANCE_TIMEOUT_MS = 30_000;

export interface Protocol {
  name: string;
  metadata: Buffer;
}

export interface JoinOptions {
  group: string;
  memberId?: string;
  clientId?: string;
  instanceId?: string | null;
  protocols?: Protocol[];
  /** Shorthand for one 'range' protocol subscribing to these topics. */
  topics?: string[];
  protocolType?: string;
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  version?: number;
}

export function join(h: CoordinatorHarness, o: JoinOptions): Sent<JoinGroupResponseData> {
  const version = o.version ?? 9;
  return h.send(
    'JoinGroup',
    version,
    {
      groupId: o.group,
      sessionTimeoutMs: o.sessionTimeoutMs ?? SESSION_TIMEOUT_MS,
      rebalanceTimeoutMs: version >= 1 ? (o.rebalanceTimeoutMs ?? REBALANCE_TIMEOUT_MS) : -1,
      memberId: o.memberId ?? '',
      groupInstanceId: version >= 5 ? (o.instanceId ?? null) : null,
      protocolType: o.protocolType ?? 'consumer',
      protocols: o.protocols ?? [{ name: 'range', metadata: subscription(o.topics ?? ['orders']) }],
      reason: null,
    },
    o.clientId ?? 'consumer',
  );
}

/**
 * A dynamic member's first join at v4+: MEMBER_ID_REQUIRED, then the join with the
 * assigned id (returned, usually parked).
 */
export function joinNew(h: CoordinatorHarness, o: JoinOptions): Sent<JoinGroupResponseData> {
  const first = join(h, { ...o, memberId: '' });
  assert.equal(first.answer.errorCode, ErrorCode.MEMBER_ID_REQUIRED);
  return join(h, { ...o, memberId: first.answer.memberId });
}

export interface SyncOptions {
  group: string;
  generationId: number;
  memberId: string;
  instanceId?: string | null;
  assignments?: Record<string, Buffer>;
  version?: number;
  protocolType?: string | null;
  protocolName?: string | null;
}

export function sync(h: CoordinatorHarness, o: SyncOptions): Sent<SyncGroupResponseData> {
  const version = o.version ?? 5;
  return h.send('SyncGroup', version, {
    groupId: o.group,
    generationId: o.generationId,
    memberId: o.memberId,
    groupInstanceId: version >= 3 ? (o.instanceId ?? null) : null,
    protocolType: version >= 5 ? (o.protocolType === undefined ? 'consumer' : o.protocolType) : null,
    protocolName: version >= 5 ? (o.protocolName === undefined ? 'range' : o.protocolName) : null,
    assignments: Object.entries(o.assignments ?? {}).map(([memberId, a]) => ({ memberId, assignment: a })),
  });
}

export function heartbeat(
  h: CoordinatorHarness,
  o: { group: string; generationId: number; memberId: string; instanceId?: string | null; version?: number },
): Sent<HeartbeatResponseData> {
  const version = o.version ?? 4;
  return h.send('Heartbeat', version, {
    groupId: o.group,
    generationId: o.generationId,
    memberId: o.memberId,
    groupInstanceId: version >= 3 ? (o.instanceId ?? null) : null,
  });
}

export function leave(
  h: CoordinatorHarness,
  o: { group: string; members: { memberId: string; instanceId?: string | null }[]; version?: number },
): Sent<LeaveGroupResponseData> {
  const version = o.version ?? 5;
  if (version < 3) {
    assert.equal(o.members.length, 1);
    return h.send('LeaveGroup', version, { groupId: o.group, memberId: o.members[0].memberId, members: [] });
  }
  return h.send('LeaveGroup', version, {
    groupId: o.group,
    members: o.members.map((m) => ({ memberId: m.memberId, groupInstanceId: m.instanceId ?? null, reason: null })),
  });
}

export interface CommitOptions {
  group: string;
  generationId?: number;
  memberId?: string;
  instanceId?: string | null;
  /** topic → partition → offset */
  offsets: Record<string, Record<number, number>>;
  metadata?: string | null;
  leaderEpoch?: number;
  retentionTimeMs?: bigint;
  version?: number;
}

export function commit(h: CoordinatorHarness, o: CommitOptions): Sent<OffsetCommitResponseData> {
  const version = o.version ?? 9;
  return h.send('OffsetCommit', version, {
    groupId: o.group,
    generationIdOrMemberEpoch: version >= 1 ? (o.generationId ?? -1) : -1,
    memberId: version >= 1 ? (o.memberId ?? '') : '',
    groupInstanceId: version >= 7 ? (o.instanceId ?? null) : null,
    retentionTimeMs: version >= 2 && version <= 4 ? (o.retentionTimeMs ?? -1n) : -1n,
    // v10 names topics by id, earlier versions by name; the broker resolves the other and
    // hands the coordinator both.
    topics: Object.entries(o.offsets).map(([name, partitions]) => ({
      name,
      topicId: topicIdFor(name),
      partitions: Object.entries(partitions).map(([p, offset]) => ({
        partitionIndex: Number(p),
        committedOffset: BigInt(offset),
        committedLeaderEpoch: version >= 6 ? (o.leaderEpoch ?? -1) : -1,
        committedMetadata: o.metadata === undefined ? '' : o.metadata,
      })),
    })),
  });
}

/** OffsetFetch of one group; topics null = every partition the group has an offset for. */
export function fetchOffsets(
  h: CoordinatorHarness,
  o: { group: string; topics: Record<string, number[]> | null; version?: number },
): Sent<OffsetFetchResponseData> {
  const version = o.version ?? 9;
  const topics = o.topics === null ? null : Object.entries(o.topics).map(([name, partitionIndexes]) => ({ name, ...(version >= 10 ? { topicId: topicIdFor(name) } : {}), partitionIndexes }));
  if (version >= 8) {
    return h.send('OffsetFetch', version, {
      groups: [{ groupId: o.group, memberId: null, memberEpoch: -1, topics }],
      requireStable: false,
    });
  }
  return h.send('OffsetFetch', version, { groupId: o.group, topics, requireStable: false });
}

/** offset per "topic/partition" in a single-group OffsetFetch answer (any version). */
export function fetchedOffsets(r: OffsetFetchResponseData): Record<string, number> {
  const topics = r.groups !== undefined && r.groups.length > 0 ? r.groups[0].topics : (r.topics ?? []);
  const out: Record<string, number> = {};
  for (const t of topics) for (const p of t.partitions) out[`${t.name}/${p.partitionIndex}`] = Number(p.committedOffset);
  return out;
}

/**
 * Advances the clock by initial delays until every join is answered. Members joining
 * during the initial delay extend it (Kafka's rule), so n > 1 members that join together
 * are answered after two delays.
 */
export function awaitJoins(h: CoordinatorHarness, joins: readonly Sent<JoinGroupResponseData>[]): JoinGroupResponseData[] {
  for (let i = 0; i < 20 && joins.some((j) => j.response === undefined); i++) h.advance(h.coordinator.config.initialRebalanceDelayMs);
  return joins.map((j) => j.answer);
}

export interface StableGroup {
  group: string;
  generationId: number;
  leader: string;
  /** member ids in join order */
  members: string[];
}

/**
 * n dynamic members join (v4+ flow), the initial delay passes, the leader assigns one
 * partition of "orders" per member and everybody syncs: a Stable group.
 */
export function formGroup(h: CoordinatorHarness, group: string, n: number, o: Partial<JoinOptions> = {}): StableGroup {
  const joins = Array.from({ length: n }, (_, i) => joinNew(h, { clientId: `c${i + 1}`, ...o, group }));
  const responses = awaitJoins(h, joins);
  for (const r of responses) assert.equal(r.errorCode, ErrorCode.NONE);
  const leader = responses[0].leader;
  const generationId = responses[0].generationId;
  const members = responses.map((r) => r.memberId);
  const assignments = Object.fromEntries(members.map((m, i) => [m, assignment({ orders: [i] })]));
  const syncs = members.map((m) =>
    sync(h, { group, generationId, memberId: m, assignments: m === leader ? assignments : {}, protocolName: responses[0].protocolName }),
  );
  for (const s of syncs) assert.equal(s.answer.errorCode, ErrorCode.NONE);
  return { group, generationId, leader, members };
}
