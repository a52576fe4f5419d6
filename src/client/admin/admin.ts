/**
 * The admin client's facade, over a `Cluster` so it works against any Kafka-compatible
 * cluster of one or many brokers: topics, groups, committed and log offsets, lag, and
 * offset resets. Each operation lives in its own module; this class holds the cluster and
 * gives every call its time limit: the call's `timeoutMs`, else default.api.timeout.ms
 * (60 s), after which it fails with TimeoutError.
 */
import { Cluster } from '../cluster.js';
import { withTimeLimit } from '../deadline.js';
import { callTimeoutMs, resolveCommonOptions, type ResolvedCommonOptions } from '../options.js';
import type { AdminContext } from './requests.js';
import * as topics from './topics.js';
import * as configs from './configs.js';
import * as groups from './groups.js';
import * as offsets from './offsets.js';
import { describeGroupOffsets } from './lag.js';
import { resetOffsets, resetShareGroupOffsets } from './reset.js';
import * as records from './records.js';
import * as reassignments from './reassignments.js';
import type { OngoingPartitionReassignment, PartitionReassignment, PartitionReassignmentResult } from './reassignments.js';
import { describeLogDirs } from './log-dirs.js';
import { describeTopics } from './topic-partitions.js';
import type {
  AlterConfigOp, AlterConfigsOptions, ConfigEntry, ConfigResource, CreatePartitionsOptions, DescribeConfigsOptions,
} from './types.js';
import { describeCluster } from './cluster-info.js';
import * as scram from './scram-credentials.js';
import type { UserScramCredentialAlteration, UserScramCredentialsDescription } from './scram-credentials.js';
import * as shareGroups from './share-groups.js';
import type { DeletedShareGroupOffsets, ShareGroupDescription, ShareGroupOffset } from './share-groups.js';
import * as streamsGroups from './streams-groups.js';
import type { StreamsGroupDescription } from './streams-groups.js';
import type {
  AdminCallOptions, AdminOptions, ClusterDescription, CommittedOffset, DeletedOffset, GroupDescription, GroupListing, GroupOffsets, ListGroupsOptions, NewTopic,
  PlannedOffset, ResetOffsetsOptions, TopicDescription, TopicPartition,
} from './types.js';
import type {
  DeletedRecords, DescribedTopic, DescribeLogDirsQuery, DescribeTopicsOptions, LogDirDescription, PartitionProducers, RecordsToDelete,
} from './types.js';

export class Admin {
  private constructor(readonly cluster: Cluster, private readonly options: ResolvedCommonOptions, private readonly signal: AbortSignal | undefined) {}

  /** Connects to a bootstrap broker and reads the cluster's brokers; fails when none answers within the time limit. */
  static async connect(options: AdminOptions, call: AdminCallOptions = {}): Promise<Admin> {
    const resolved = resolveCommonOptions(options, 'brook-admin');
    const cluster = new Cluster({ ...resolved, scheduler: options.scheduler, logger: options.logger, connectionFactory: options.connectionFactory });
    const admin = new Admin(cluster, resolved, options.signal);
    try {
      await admin.run('connect', call, (ctx) => cluster.refreshMetadata([], ctx.signal));
    } catch (err) {
      cluster.close();
      throw err;
    }
    return admin;
  }

  /** Runs one call with its time limit and signals. */
  private run<T>(what: string, call: AdminCallOptions, operation: (ctx: AdminContext) => Promise<T>): Promise<T> {
    const timeoutMs = callTimeoutMs(call.timeoutMs, this.options.defaultApiTimeoutMs);
    return withTimeLimit(this.cluster.scheduler, { what: `Admin.${what}`, timeoutMs, signals: [call.signal, this.signal] },
      (signal) => operation({ cluster: this.cluster, apiTimeoutMs: timeoutMs, signal }));
  }

  createTopic(topic: NewTopic, call: AdminCallOptions = {}): Promise<void> {
    return this.run('createTopic', call, (ctx) => topics.createTopic(ctx, topic));
  }

  deleteTopic(name: string, call: AdminCallOptions = {}): Promise<void> {
    return this.run('deleteTopic', call, (ctx) => topics.deleteTopic(ctx, name));
  }

  /** Raises a topic's partition count to `count`; Kafka's errors (e.g. INVALID_PARTITIONS) as KafkaProtocolError. */
  createPartitions(topic: string, count: number, options: CreatePartitionsOptions = {}): Promise<void> {
    return this.run('createPartitions', options, (ctx) => topics.createPartitions(ctx, topic, count, options));
  }

  /** Users' SCRAM mechanisms and iteration counts (every SCRAM user when `users` is empty): DescribeUserScramCredentials. */
  describeUserScramCredentials(users: readonly string[] = [], call: AdminCallOptions = {}): Promise<UserScramCredentialsDescription[]> {
    return this.run('describeUserScramCredentials', call, (ctx) => scram.describeUserScramCredentials(ctx, users));
  }

  /** Adds, replaces or deletes users' SCRAM credentials (AlterUserScramCredentials); the password never leaves the client. */
  alterUserScramCredentials(alterations: readonly UserScramCredentialAlteration[], call: AdminCallOptions = {}): Promise<void> {
    return this.run('alterUserScramCredentials', call, (ctx) => scram.alterUserScramCredentials(ctx, alterations));
  }

  /** A topic's or a broker's configs, sorted by name, with their sources (and synonyms and documentation when asked). */
  describeConfigs(resource: ConfigResource, options: DescribeConfigsOptions = {}): Promise<ConfigEntry[]> {
    return this.run('describeConfigs', options, (ctx) => configs.describeConfigs(ctx, resource, options));
  }

  /** Sets, deletes, appends to or subtracts from configs of one resource (IncrementalAlterConfigs): all or nothing. */
  incrementalAlterConfigs(resource: ConfigResource, ops: readonly AlterConfigOp[], options: AlterConfigsOptions = {}): Promise<void> {
    return this.run('incrementalAlterConfigs', options, (ctx) => configs.incrementalAlterConfigs(ctx, resource, ops, options.validateOnly ?? false));
  }

  /** Replaces a resource's configs as a whole (the legacy AlterConfigs): those not given return to their defaults. */
  alterConfigs(resource: ConfigResource, values: Readonly<Record<string, string>>, options: AlterConfigsOptions = {}): Promise<void> {
    return this.run('alterConfigs', options, (ctx) => configs.alterConfigs(ctx, resource, values, options.validateOnly ?? false));
  }

  /** Names of all topics, internal ones included, sorted. */
  listTopics(call: AdminCallOptions = {}): Promise<string[]> {
    return this.run('listTopics', call, (ctx) => topics.listTopics(ctx));
  }

  describeTopic(name: string, call: AdminCallOptions = {}): Promise<TopicDescription> {
    return this.run('describeTopic', call, (ctx) => topics.describeTopic(ctx, name));
  }

  /** The cluster's id, brokers, controller and every topic's partitions (one Metadata request). */
  describeCluster(call: AdminCallOptions = {}): Promise<ClusterDescription> {
    return this.run('describeCluster', call, (ctx) => describeCluster(ctx));
  }

  /**
   * Every group of the cluster with its state and type ('classic', 'consumer', 'share' or
   * 'streams'), sorted by id; `types` and `states` filter on the brokers (ListGroups v5 and v4).
   */
  listGroups(options: ListGroupsOptions = {}): Promise<GroupListing[]> {
    return this.run('listGroups', options, (ctx) => groups.listGroups(ctx, options));
  }

  /**
   * A consumer group (KIP-848) through ConsumerGroupDescribe: epochs, assignor, and per member
   * its epoch, current and target assignment and subscription; any other group through
   * DescribeGroups. An unknown group throws GroupNotFoundError (DescribeGroups v6, KIP-1043;
   * a broker before Kafka 4.0 describes it with state 'Dead' instead).
   */
  describeGroup(group: string, call: AdminCallOptions = {}): Promise<GroupDescription> {
    return this.run('describeGroup', call, (ctx) => groups.describeGroup(ctx, group));
  }

  /** A share group (KIP-932): ShareGroupDescribe; GroupNotFoundError for an unknown group or one of another type. */
  describeShareGroup(group: string, call: AdminCallOptions = {}): Promise<ShareGroupDescription> {
    return this.run('describeShareGroup', call, (ctx) => shareGroups.describeShareGroup(ctx, group));
  }

  /** A share group's start offsets, leader epochs and lag per initialized share-partition (DescribeShareGroupOffsets). */
  shareGroupOffsets(group: string, call: AdminCallOptions = {}): Promise<ShareGroupOffset[]> {
    return this.run('shareGroupOffsets', call, (ctx) => shareGroups.shareGroupOffsets(ctx, group));
  }

  /** New start offsets for an Empty share group (AlterShareGroupOffsets); Kafka's errors as KafkaProtocolError. */
  alterShareGroupOffsets(group: string, offsetsToSet: readonly PlannedOffset[], call: AdminCallOptions = {}): Promise<void> {
    return this.run('alterShareGroupOffsets', call, (ctx) => shareGroups.alterShareGroupOffsets(ctx, group, offsetsToSet));
  }

  /** Plans new start offsets for an Empty share group and, with `execute`, alters them (`kafka-share-groups --reset-offsets`). */
  resetShareGroupOffsets(group: string, options: ResetOffsetsOptions, call: AdminCallOptions = {}): Promise<PlannedOffset[]> {
    return this.run('resetShareGroupOffsets', call, (ctx) => resetShareGroupOffsets(ctx, group, options));
  }

  /** Deletes an Empty share group's share state for whole topics (DeleteShareGroupOffsets). */
  deleteShareGroupOffsets(group: string, topicNames: readonly string[], call: AdminCallOptions = {}): Promise<DeletedShareGroupOffsets[]> {
    return this.run('deleteShareGroupOffsets', call, (ctx) => shareGroups.deleteShareGroupOffsets(ctx, group, topicNames));
  }

  /**
   * A streams group (KIP-1071): StreamsGroupDescribe, as Kafka's Admin.describeStreamsGroups;
   * GroupNotFoundError for an unknown group or one of another type. Its committed offsets:
   * `committedOffsets` (a streams group commits as a consumer group does).
   */
  describeStreamsGroup(group: string, call: AdminCallOptions = {}): Promise<StreamsGroupDescription> {
    return this.run('describeStreamsGroup', call, (ctx) => streamsGroups.describeStreamsGroup(ctx, group));
  }

  deleteGroup(group: string, call: AdminCallOptions = {}): Promise<void> {
    return this.run('deleteGroup', call, (ctx) => groups.deleteGroup(ctx, group));
  }

  committedOffsets(group: string, call: AdminCallOptions = {}): Promise<CommittedOffset[]> {
    return this.run('committedOffsets', call, (ctx) => offsets.fetchCommittedOffsets(ctx, group));
  }

  /** Log start offsets (ListOffsets -2 at each leader), keyed `topic:partition`. */
  logStartOffsets(partitions: readonly TopicPartition[], call: AdminCallOptions = {}): Promise<Map<string, bigint>> {
    return this.run('logStartOffsets', call, (ctx) => logOffsets(ctx, partitions, offsets.EARLIEST_TIMESTAMP));
  }

  /** Log end offsets (ListOffsets -1 at each leader), keyed `topic:partition`. */
  logEndOffsets(partitions: readonly TopicPartition[], call: AdminCallOptions = {}): Promise<Map<string, bigint>> {
    return this.run('logEndOffsets', call, (ctx) => logOffsets(ctx, partitions, offsets.LATEST_TIMESTAMP));
  }

  /** First offset whose timestamp is >= `timestampMs` per partition (null: none), keyed `topic:partition`. */
  offsetsForTime(partitions: readonly TopicPartition[], timestampMs: bigint, call: AdminCallOptions = {}): Promise<Map<string, bigint | null>> {
    return this.run('offsetsForTime', call, async (ctx) => {
      const found = await offsets.listOffsets(ctx, partitions, timestampMs);
      return new Map(partitions.map((tp) => [`${tp.topic}:${tp.partition}`, found.get(`${tp.topic}\u0000${tp.partition}`) ?? null]));
    });
  }

  /** Committed offsets, log end offsets and lag of every assigned or committed partition. */
  describeGroupOffsets(group: string, call: AdminCallOptions = {}): Promise<GroupOffsets> {
    return this.run('describeGroupOffsets', call, (ctx) => describeGroupOffsets(ctx, group));
  }

  /** Commits offsets for an inactive group (OffsetCommit, generation -1). */
  commitOffsets(group: string, offsetsToCommit: readonly PlannedOffset[], call: AdminCallOptions = {}): Promise<void> {
    return this.run('commitOffsets', call, (ctx) => offsets.commitOffsets(ctx, group, offsetsToCommit));
  }

  deleteOffsets(group: string, partitions: readonly TopicPartition[], call: AdminCallOptions = {}): Promise<DeletedOffset[]> {
    return this.run('deleteOffsets', call, (ctx) => offsets.deleteOffsets(ctx, group, partitions));
  }

  /** Plans new offsets and, with `execute`, commits them; refused while the group has active members. */
  resetOffsets(group: string, options: ResetOffsetsOptions, call: AdminCallOptions = {}): Promise<PlannedOffset[]> {
    return this.run('resetOffsets', call, (ctx) => resetOffsets(ctx, group, options));
  }

  /**
   * Deletes every record before the given offset of each partition (DeleteRecords at its
   * leader; offset -1n: up to the high watermark); per partition the new low watermark or
   * the error (e.g. OFFSET_OUT_OF_RANGE beyond the high watermark, POLICY_VIOLATION on a
   * compacted topic), sorted by topic and partition.
   */
  deleteRecords(recordsToDelete: readonly RecordsToDelete[], call: AdminCallOptions = {}): Promise<DeletedRecords[]> {
    return this.run('deleteRecords', call, (ctx) => records.deleteRecords(ctx, recordsToDelete));
  }

  /**
   * Moves partitions to new replica lists, or (replicas null) cancels their reassignment in
   * progress (AlterPartitionReassignments); per partition null or Kafka's error. The request
   * fails as a whole on a top-level error (e.g. CLUSTER_AUTHORIZATION_FAILED).
   */
  alterPartitionReassignments(list: readonly PartitionReassignment[], options: AdminCallOptions & { allowReplicationFactorChange?: boolean } = {}): Promise<PartitionReassignmentResult[]> {
    return this.run('alterPartitionReassignments', options, (ctx) => reassignments.alterPartitionReassignments(ctx, list, options.allowReplicationFactorChange ?? true));
  }

  /** Reassignments in progress (ListPartitionReassignments), of `partitions` or of every partition. */
  listPartitionReassignments(partitions: readonly TopicPartition[] | null = null, call: AdminCallOptions = {}): Promise<OngoingPartitionReassignment[]> {
    return this.run('listPartitionReassignments', call, (ctx) => reassignments.listPartitionReassignments(ctx, partitions));
  }

  /** Each broker's log directories with their partitions' sizes (DescribeLogDirs); `query` narrows brokers and partitions. */
  describeLogDirs(query: DescribeLogDirsQuery = {}): Promise<LogDirDescription[]> {
    return this.run('describeLogDirs', query, (ctx) => describeLogDirs(ctx, query));
  }

  /** The producers with state in each partition (DescribeProducers at its leader), sorted by topic and partition. */
  describeProducers(partitions: readonly TopicPartition[], call: AdminCallOptions = {}): Promise<PartitionProducers[]> {
    return this.run('describeProducers', call, (ctx) => records.describeProducers(ctx, partitions));
  }

  /**
   * Topics (`names` null: all) with every partition, leader, replicas, ISR and eligible
   * leader replicas, paged through DescribeTopicPartitions (Metadata on brokers without
   * it), sorted by name. Throws the first topic's error (e.g. UNKNOWN_TOPIC_OR_PARTITION).
   */
  describeTopics(names: readonly string[] | null, options: DescribeTopicsOptions = {}): Promise<DescribedTopic[]> {
    return this.run('describeTopics', options, (ctx) => describeTopics(ctx, names, options.partitionsPerRequest));
  }

  close(): void {
    this.cluster.close();
  }
}

async function logOffsets(ctx: AdminContext, partitions: readonly TopicPartition[], timestamp: bigint): Promise<Map<string, bigint>> {
  const found = await offsets.listOffsets(ctx, partitions, timestamp);
  const out = new Map<string, bigint>();
  for (const tp of partitions) {
    const v = found.get(`${tp.topic}\u0000${tp.partition}`);
    if (v !== undefined && v !== null) out.set(`${tp.topic}:${tp.partition}`, v);
  }
  return out;
}
