/**
 * The console's JSON: what the pages draw, computed per request for the caller.
 *
 * - overview: the topics the caller may DESCRIBE (partitions, log start and end offsets,
 *   bytes) and the groups ListGroups shows it (type, state, members, generation or epoch,
 *   total lag over the partitions it may DESCRIBE);
 * - a group: its description (group-view.ts), lag per partition now, and its timeline (the
 *   flight recorder's entries and the rebalance in progress);
 * - a group's lag history (lag-history.ts);
 * - the writes, when console.writes.enable is on: offsets reset to the earliest or latest
 *   offset of a topic's partitions for an Empty group (as kafka-consumer-groups
 *   --reset-offsets, an admin's OffsetCommit), and group deletion (DeleteGroups).
 *
 * Every answer is `{ status, body }`; Kafka's refusals become HTTP statuses (403 for
 * authorization, 404 for an unknown group, 409 for a group in the wrong state).
 */
import { Api } from '../../protocol/messages/index.js';
import type { ListGroupsRequestData, ListGroupsResponseData } from '../../protocol/messages/list-groups.js';
import type { OffsetCommitRequestData, OffsetCommitResponseData } from '../../protocol/messages/offset-commit.js';
import type { DeleteGroupsRequestData, DeleteGroupsResponseData } from '../../protocol/messages/delete-groups.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import type { GroupType } from '../../coordinator/index.js';
import type { BrokerContext } from '../broker-context.js';
import { AclOperation, ResourceType, authorize } from '../authorization.js';
import { committedLags } from '../group-lag.js';
import type { TimelineEntry } from '../flight-recorder/timeline-entry.js';
import { callKafkaApi, consoleContext, type ConsoleCaller } from './kafka-calls.js';
import { DescribeError, describeGroup, type GroupDescription } from './group-view.js';
import type { LagHistory, LagSample } from './lag-history.js';

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface TopicView {
  readonly name: string;
  readonly internal: boolean;
  readonly sizeBytes: number;
  readonly partitions: readonly { readonly partition: number; readonly logStartOffset: number; readonly logEndOffset: number; readonly sizeBytes: number }[];
}

export interface GroupListing {
  readonly groupId: string;
  readonly type: GroupType;
  readonly state: string;
  readonly protocolType: string;
  readonly members: number;
  /** Classic: the generation; the others: the group epoch; null for a group with only offsets. */
  readonly generation: number | null;
  /** The sum of the lag of its committed partitions the caller may see. */
  readonly lag: number;
}

export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  /** Null: assigned, nothing committed yet. */
  readonly committed: number | null;
  readonly logEndOffset: number;
  readonly lag: number | null;
}

const GROUP_TYPES: ReadonlySet<string> = new Set(['classic', 'consumer', 'share', 'streams']);

/** An HTTP status for a Kafka refusal. */
export function statusOf(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.GROUP_AUTHORIZATION_FAILED:
    case ErrorCode.TOPIC_AUTHORIZATION_FAILED:
    case ErrorCode.CLUSTER_AUTHORIZATION_FAILED:
      return 403;
    case ErrorCode.GROUP_ID_NOT_FOUND:
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
      return 404;
    case ErrorCode.NON_EMPTY_GROUP:
    case ErrorCode.UNKNOWN_MEMBER_ID:
    case ErrorCode.ILLEGAL_GENERATION:
    case ErrorCode.REBALANCE_IN_PROGRESS:
    case ErrorCode.STALE_MEMBER_EPOCH:
      return 409;
    case ErrorCode.INVALID_GROUP_ID:
      return 400;
    default:
      return 503;
  }
}

const refusal = (errorCode: number, message?: string | null): ApiAnswer =>
  ({ status: statusOf(errorCode), body: { error: errorInfo(errorCode).name, message: message ?? errorInfo(errorCode).message } });

const fail = (status: number, error: string, message: string): ApiAnswer => ({ status, body: { error, message } });

export class ConsoleApi {
  constructor(
    private readonly broker: BrokerContext,
    private readonly history: LagHistory,
    /** console.writes.enable */
    readonly writesEnabled: boolean,
  ) {}

  private mayDescribeTopic(caller: ConsoleCaller): (topic: string) => boolean {
    const ctx = consoleContext(this.broker, caller);
    const seen = new Map<string, boolean>();
    return (topic) => {
      let ok = seen.get(topic);
      if (ok === undefined) seen.set(topic, (ok = authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)));
      return ok;
    };
  }

  /** The groups ListGroups shows the caller (Kafka's filtering), with members, generation and lag. */
  async groups(caller: ConsoleCaller): Promise<GroupListing[]> {
    const listed = await callKafkaApi<ListGroupsRequestData, ListGroupsResponseData>(this.broker, caller, Api.ListGroups, { statesFilter: [], typesFilter: [] });
    if (listed.errorCode !== ErrorCode.NONE) throw new DescribeError(listed.errorCode);
    const summaries = new Map(this.broker.groups.coordinator.groupSummaries().map((s) => [s.groupId, s]));
    const mayDescribe = this.mayDescribeTopic(caller);
    const lag = new Map<string, number>();
    for (const l of committedLags(this.broker.groups.coordinator, this.broker.storage)) {
      if (mayDescribe(l.topic)) lag.set(l.groupId, (lag.get(l.groupId) ?? 0) + Number(l.lag));
    }
    return listed.groups.map((g) => {
      const s = summaries.get(g.groupId);
      const type = (GROUP_TYPES.has(g.groupType ?? '') ? g.groupType : s?.groupType ?? 'classic') as GroupType;
      return {
        groupId: g.groupId, type, state: g.groupState ?? '', protocolType: g.protocolType,
        members: s?.members ?? 0, generation: s?.generation ?? null, lag: lag.get(g.groupId) ?? 0,
      };
    }).sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  }

  topics(caller: ConsoleCaller): TopicView[] {
    const mayDescribe = this.mayDescribeTopic(caller);
    const { storage } = this.broker;
    return storage.topics().filter((t) => mayDescribe(t.name)).map((t) => {
      const partitions = [];
      for (let p = 0; p < t.partitions; p++) {
        const log = storage.partition(t.name, p);
        if (log === undefined) continue;
        partitions.push({ partition: p, logStartOffset: Number(log.logStartOffset), logEndOffset: Number(log.logEndOffset), sizeBytes: log.sizeInBytes });
      }
      return { name: t.name, internal: t.isInternal, sizeBytes: partitions.reduce((n, p) => n + p.sizeBytes, 0), partitions };
    }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async overview(caller: ConsoleCaller): Promise<ApiAnswer> {
    try {
      return { status: 200, body: { writesEnabled: this.writesEnabled, principal: caller.principal, topics: this.topics(caller), groups: await this.groups(caller) } };
    } catch (err) {
      if (err instanceof DescribeError) return refusal(err.errorCode, err.message);
      throw err;
    }
  }

  /** The group as ListGroups shows it to the caller; null when it does not (unknown, or hidden from the caller). */
  private async listing(caller: ConsoleCaller, groupId: string): Promise<GroupListing | null> {
    return (await this.groups(caller)).find((g) => g.groupId === groupId) ?? null;
  }

  /** Lag per partition now: the committed ones the caller may see, and assigned ones with nothing committed yet. */
  private lagNow(caller: ConsoleCaller, groupId: string, description: GroupDescription | null): PartitionLag[] {
    const mayDescribe = this.mayDescribeTopic(caller);
    const out = new Map<string, PartitionLag>();
    for (const l of committedLags(this.broker.groups.coordinator, this.broker.storage, groupId)) {
      if (!mayDescribe(l.topic)) continue;
      out.set(`${l.topic}/${l.partition}`, { topic: l.topic, partition: l.partition, committed: Number(l.committed), logEndOffset: Number(l.logEndOffset), lag: Number(l.lag) });
    }
    if (description !== null && description.type !== 'streams') {
      for (const m of description.members) {
        for (const [topic, partitions] of Object.entries(m.assignment)) {
          if (!mayDescribe(topic)) continue;
          for (const p of partitions) {
            const log = this.broker.storage.partition(topic, p);
            if (log === undefined || out.has(`${topic}/${p}`)) continue;
            out.set(`${topic}/${p}`, { topic, partition: p, committed: null, logEndOffset: Number(log.logEndOffset), lag: null });
          }
        }
      }
    }
    return [...out.values()].sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
  }

  async group(caller: ConsoleCaller, groupId: string): Promise<ApiAnswer> {
    const listing = await this.listing(caller, groupId);
    if (listing === null) return fail(404, 'GROUP_ID_NOT_FOUND', `no group ${JSON.stringify(groupId)} (or not one you may describe)`);
    let description: GroupDescription;
    try {
      description = await describeGroup(this.broker, caller, groupId, listing.type, listing.generation);
    } catch (err) {
      if (err instanceof DescribeError) return refusal(err.errorCode, err.message);
      throw err;
    }
    const timeline: readonly TimelineEntry[] = this.broker.timeline.entries(groupId);
    return {
      status: 200,
      body: {
        ...description, lagTotal: listing.lag, writesEnabled: this.writesEnabled,
        lag: this.lagNow(caller, groupId, description), timeline, inProgress: this.broker.timeline.inProgress(groupId),
        nowMs: this.broker.clock.nowMs(),
      },
    };
  }

  async lagHistory(caller: ConsoleCaller, groupId: string): Promise<ApiAnswer> {
    if (await this.listing(caller, groupId) === null) return fail(404, 'GROUP_ID_NOT_FOUND', `no group ${JSON.stringify(groupId)} (or not one you may describe)`);
    const mayDescribe = this.mayDescribeTopic(caller);
    const samples: LagSample[] = this.history.samples(groupId).map((s) => ({
      timeMs: s.timeMs, lag: Object.fromEntries(Object.entries(s.lag).filter(([key]) => mayDescribe(key.slice(0, key.lastIndexOf('/'))))),
    }));
    return { status: 200, body: { groupId, intervalMs: this.history.sampleIntervalMs, samples } };
  }

  /**
   * Commits the earliest (log start) or latest (log end) offset of every partition of `topic`
   * for the group, as an admin's OffsetCommit (generation -1, no member id): only for an Empty
   * group (Kafka's tool refuses the others), and only what OffsetCommit allows the caller
   * (READ on the group and on the topic).
   */
  async resetOffsets(caller: ConsoleCaller, groupId: string, input: unknown): Promise<ApiAnswer> {
    if (!this.writesEnabled) return fail(403, 'WRITES_DISABLED', 'the console only reads: start the broker with console.writes.enable=true (--console-writes true)');
    const body = (typeof input === 'object' && input !== null ? input : {}) as { topic?: unknown; to?: unknown };
    if (typeof body.topic !== 'string' || body.topic === '') return fail(400, 'BAD_REQUEST', 'expected {"topic": "<name>", "to": "earliest" | "latest"}');
    if (body.to !== 'earliest' && body.to !== 'latest') return fail(400, 'BAD_REQUEST', '"to" must be "earliest" or "latest"');
    const listing = await this.listing(caller, groupId);
    if (listing === null) return fail(404, 'GROUP_ID_NOT_FOUND', `no group ${JSON.stringify(groupId)} (or not one you may describe)`);
    if (listing.state !== 'Empty') {
      return fail(409, 'NON_EMPTY_GROUP', `the group is ${listing.state}: offsets can be reset only when it is Empty (every member gone), as kafka-consumer-groups --reset-offsets requires`);
    }
    const topic = this.broker.storage.topic(body.topic);
    if (topic === undefined || !this.mayDescribeTopic(caller)(body.topic)) return fail(404, 'UNKNOWN_TOPIC_OR_PARTITION', `no topic ${JSON.stringify(body.topic)}`);
    const partitions = [];
    for (let p = 0; p < topic.partitions; p++) {
      const log = this.broker.storage.partition(topic.name, p);
      if (log === undefined) continue;
      partitions.push({ partitionIndex: p, committedOffset: body.to === 'earliest' ? log.logStartOffset : log.logEndOffset, committedLeaderEpoch: -1, committedMetadata: '' });
    }
    // v9: topics by name (v10 names them by id).
    const answer = await callKafkaApi<OffsetCommitRequestData, OffsetCommitResponseData>(this.broker, caller, Api.OffsetCommit, {
      groupId, generationIdOrMemberEpoch: -1, memberId: '', groupInstanceId: null, topics: [{ name: topic.name, partitions }],
    }, 9);
    const results = answer.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name ?? topic.name, partition: p.partitionIndex, error: errorInfo(p.errorCode).name, errorCode: p.errorCode })));
    const failed = results.find((r) => r.errorCode !== ErrorCode.NONE);
    if (failed !== undefined) return { status: statusOf(failed.errorCode), body: { error: failed.error, message: errorInfo(failed.errorCode).message, results } };
    const offsets = Object.fromEntries(partitions.map((p) => [p.partitionIndex, Number(p.committedOffset)]));
    return { status: 200, body: { groupId, topic: topic.name, to: body.to, offsets, results } };
  }

  /** DeleteGroups for the one group: DELETE on it, and only when it is Empty (the coordinator refuses the others). */
  async deleteGroup(caller: ConsoleCaller, groupId: string): Promise<ApiAnswer> {
    if (!this.writesEnabled) return fail(403, 'WRITES_DISABLED', 'the console only reads: start the broker with console.writes.enable=true (--console-writes true)');
    const answer = await callKafkaApi<DeleteGroupsRequestData, DeleteGroupsResponseData>(this.broker, caller, Api.DeleteGroups, { groupsNames: [groupId] });
    const r = answer.results.find((x) => x.groupId === groupId);
    const errorCode = r?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    if (errorCode !== ErrorCode.NONE) return refusal(errorCode);
    return { status: 200, body: { groupId, deleted: true } };
  }
}
