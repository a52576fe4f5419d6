/**
 * ConsumerGroupHeartbeat and ConsumerGroupDescribe requests for the coordinator harness,
 * with topics named rather than given by id (the harness's setTopics gives the ids).
 */
import type { ConsumerGroupHeartbeatRequestData, ConsumerGroupHeartbeatResponseData } from '../../../src/protocol/messages/consumer-group-heartbeat.js';
import type { ConsumerGroupDescribeResponseDescribedGroup } from '../../../src/protocol/messages/consumer-group-describe.js';
import type { CoordinatorHarness, Sent } from './harness.js';

export type Partitions = Record<string, number[]>;

function idOf(h: CoordinatorHarness, topic: string): string {
  const t = h.knownTopics.find((x) => x.name === topic);
  if (t === undefined) throw new Error(`no topic ${topic} in the harness`);
  return t.topicId;
}

function nameOf(h: CoordinatorHarness, topicId: string): string {
  return h.knownTopics.find((x) => x.topicId === topicId)?.name ?? `?${topicId}`;
}

/** Named partitions as the protocol's topic-id list. */
export function byId(h: CoordinatorHarness, partitions: Partitions): { topicId: string; partitions: number[] }[] {
  return Object.entries(partitions).map(([topic, ps]) => ({ topicId: idOf(h, topic), partitions: ps }));
}

/** A topic-id list as named partitions, sorted (null stays null). */
export function named(h: CoordinatorHarness, list: readonly { topicId: string; partitions: readonly number[] }[] | null | undefined): Partitions | null {
  if (list === null || list === undefined) return null;
  const out: Partitions = {};
  for (const t of [...list].sort((a, b) => (nameOf(h, a.topicId) < nameOf(h, b.topicId) ? -1 : 1))) {
    out[nameOf(h, t.topicId)] = [...t.partitions].sort((a, b) => a - b);
  }
  return out;
}

export interface HeartbeatOptions {
  group?: string;
  memberId: string;
  epoch: number;
  instanceId?: string | null;
  rackId?: string | null;
  rebalanceTimeoutMs?: number;
  topics?: string[] | null;
  regex?: string | null;
  assignor?: string | null;
  /** Named partitions the member owns; null: not sent. */
  owned?: Partitions | null;
  version?: number;
  clientId?: string;
}

/** What each member was last told it holds, by harness and `group/member`. */
const lastAssigned = new WeakMap<CoordinatorHarness, Map<string, Partitions>>();

/**
 * The partitions a member owns as a client would: what its last heartbeat answer with an
 * assignment gave it ({} before). ConsumerGroupDescribe cannot tell: it lists what the member
 * must still revoke with what it keeps (Kafka 4.4).
 */
export function ownedBy(h: CoordinatorHarness, memberId: string, group = 'g'): Partitions {
  return lastAssigned.get(h)?.get(`${group}/${memberId}`) ?? {};
}

export function cgHeartbeat(h: CoordinatorHarness, o: HeartbeatOptions): Sent<ConsumerGroupHeartbeatResponseData> {
  const req: ConsumerGroupHeartbeatRequestData = {
    groupId: o.group ?? 'g',
    memberId: o.memberId,
    memberEpoch: o.epoch,
    instanceId: o.instanceId ?? null,
    rackId: o.rackId ?? null,
    rebalanceTimeoutMs: o.rebalanceTimeoutMs ?? -1,
    subscribedTopicNames: o.topics ?? null,
    subscribedTopicRegex: o.regex ?? null,
    serverAssignor: o.assignor ?? null,
    topicPartitions: o.owned === null || o.owned === undefined ? null : byId(h, o.owned),
  };
  const sent = h.send('ConsumerGroupHeartbeat', o.version ?? 1, req, o.clientId ?? 'consumer');
  const answer = sent.response;
  if (answer?.assignment != null && answer.memberId !== null) {
    let byMember = lastAssigned.get(h);
    if (byMember === undefined) lastAssigned.set(h, (byMember = new Map()));
    byMember.set(`${req.groupId}/${answer.memberId}`, named(h, answer.assignment.topicPartitions)!);
  }
  return sent;
}

/** A member joining (epoch 0, owning nothing), as the Java consumer does. */
export function cgJoin(h: CoordinatorHarness, o: Omit<HeartbeatOptions, 'epoch'> & { epoch?: number }): ConsumerGroupHeartbeatResponseData {
  return cgHeartbeat(h, { rebalanceTimeoutMs: 300_000, topics: o.regex === undefined ? ['t'] : null, owned: {}, epoch: 0, ...o }).answer;
}

/** A regular heartbeat: epoch and owned partitions only. */
export function cgBeat(h: CoordinatorHarness, memberId: string, epoch: number, owned: Partitions | null = null, group = 'g'): ConsumerGroupHeartbeatResponseData {
  return cgHeartbeat(h, { group, memberId, epoch, owned }).answer;
}

export function cgDescribe(h: CoordinatorHarness, group = 'g'): ConsumerGroupDescribeResponseDescribedGroup {
  return h.send('ConsumerGroupDescribe', 0, { groupIds: [group], includeAuthorizedOperations: false }).answer.groups[0]!;
}

/**
 * Each member's current (with what it must still revoke) and target assignment from
 * ConsumerGroupDescribe, by member id.
 */
export function assignments(h: CoordinatorHarness, group = 'g'): Record<string, { epoch: number; current: Partitions; target: Partitions }> {
  const out: Record<string, { epoch: number; current: Partitions; target: Partitions }> = {};
  for (const m of cgDescribe(h, group).members) {
    out[m.memberId] = { epoch: m.memberEpoch, current: named(h, m.assignment.topicPartitions)!, target: named(h, m.targetAssignment.topicPartitions)! };
  }
  return out;
}
