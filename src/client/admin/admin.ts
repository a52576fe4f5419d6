/**
 * The admin client's facade, over a `Cluster` so it works against any Kafka-compatible
 * cluster of one or many brokers: topics, groups, committed and log offsets, lag, and
 * offset resets. Each operation lives in its own module; this class only holds the cluster
 * and the timeouts.
 */
import { Cluster } from '../cluster.js';
import type { AdminContext } from './requests.js';
import * as topics from './topics.js';
import * as groups from './groups.js';
import * as offsets from './offsets.js';
import { describeGroupOffsets } from './lag.js';
import { resetOffsets } from './reset.js';
import type {
  AdminOptions, CommittedOffset, DeletedOffset, GroupDescription, GroupListing, GroupOffsets, NewTopic,
  PlannedOffset, ResetOffsetsOptions, TopicDescription, TopicPartition,
} from './types.js';

export class Admin {
  private readonly ctx: AdminContext;

  private constructor(readonly cluster: Cluster, apiTimeoutMs: number, signal?: AbortSignal) {
    this.ctx = { cluster, apiTimeoutMs, signal };
  }

  /** Connects to a bootstrap broker and reads the cluster's brokers; fails when none answers. */
  static async connect(options: AdminOptions): Promise<Admin> {
    const cluster = new Cluster({
      bootstrapServers: options.bootstrapServers,
      clientId: options.clientId ?? 'brook-admin',
      requestTimeoutMs: options.requestTimeoutMs,
      connectTimeoutMs: options.connectTimeoutMs,
    });
    try {
      await cluster.refreshMetadata([], options.signal);
    } catch (err) {
      cluster.close();
      throw err;
    }
    return new Admin(cluster, options.defaultApiTimeoutMs ?? 60_000, options.signal);
  }

  createTopic(topic: NewTopic): Promise<void> {
    return topics.createTopic(this.ctx, topic);
  }

  deleteTopic(name: string): Promise<void> {
    return topics.deleteTopic(this.ctx, name);
  }

  /** Names of all topics, internal ones included, sorted. */
  listTopics(): Promise<string[]> {
    return topics.listTopics(this.ctx);
  }

  describeTopic(name: string): Promise<TopicDescription> {
    return topics.describeTopic(this.ctx, name);
  }

  listGroups(): Promise<GroupListing[]> {
    return groups.listGroups(this.ctx);
  }

  /** An unknown group is described with state 'Dead'. */
  describeGroup(group: string): Promise<GroupDescription> {
    return groups.describeGroup(this.ctx, group);
  }

  deleteGroup(group: string): Promise<void> {
    return groups.deleteGroup(this.ctx, group);
  }

  committedOffsets(group: string): Promise<CommittedOffset[]> {
    return offsets.fetchCommittedOffsets(this.ctx, group);
  }

  /** Log start offsets (ListOffsets -2 at each leader), keyed `topic:partition`. */
  async logStartOffsets(partitions: readonly TopicPartition[]): Promise<Map<string, bigint>> {
    return this.logOffsets(partitions, offsets.EARLIEST_TIMESTAMP);
  }

  /** Log end offsets (ListOffsets -1 at each leader), keyed `topic:partition`. */
  async logEndOffsets(partitions: readonly TopicPartition[]): Promise<Map<string, bigint>> {
    return this.logOffsets(partitions, offsets.LATEST_TIMESTAMP);
  }

  /** First offset whose timestamp is >= `timestampMs` per partition (null: none), keyed `topic:partition`. */
  async offsetsForTime(partitions: readonly TopicPartition[], timestampMs: bigint): Promise<Map<string, bigint | null>> {
    const found = await offsets.listOffsets(this.ctx, partitions, timestampMs);
    return new Map(partitions.map((tp) => [`${tp.topic}:${tp.partition}`, found.get(`${tp.topic}\u0000${tp.partition}`) ?? null]));
  }

  private async logOffsets(partitions: readonly TopicPartition[], timestamp: bigint): Promise<Map<string, bigint>> {
    const found = await offsets.listOffsets(this.ctx, partitions, timestamp);
    const out = new Map<string, bigint>();
    for (const tp of partitions) {
      const v = found.get(`${tp.topic}\u0000${tp.partition}`);
      if (v !== undefined && v !== null) out.set(`${tp.topic}:${tp.partition}`, v);
    }
    return out;
  }

  /** Committed offsets, log end offsets and lag of every assigned or committed partition. */
  describeGroupOffsets(group: string): Promise<GroupOffsets> {
    return describeGroupOffsets(this.ctx, group);
  }

  /** Commits offsets for an inactive group (OffsetCommit, generation -1). */
  commitOffsets(group: string, offsetsToCommit: readonly PlannedOffset[]): Promise<void> {
    return offsets.commitOffsets(this.ctx, group, offsetsToCommit);
  }

  deleteOffsets(group: string, partitions: readonly TopicPartition[]): Promise<DeletedOffset[]> {
    return offsets.deleteOffsets(this.ctx, group, partitions);
  }

  /** Plans new offsets and, with `execute`, commits them; refused while the group has active members. */
  resetOffsets(group: string, options: ResetOffsetsOptions): Promise<PlannedOffset[]> {
    return resetOffsets(this.ctx, group, options);
  }

  close(): void {
    this.cluster.close();
  }
}
