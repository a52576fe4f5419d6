/** The admin client's value types, in Kafka's terms (org.apache.kafka.clients.admin). */
import type { CommonClientOptions } from '../options.js';

/**
 * The options every client takes (bootstrapServers, clientId, requestTimeoutMs,
 * defaultApiTimeoutMs — every admin call's time limit unless the call sets its own —,
 * retryBackoffMs, connectTimeoutMs, ...).
 */
export interface AdminOptions extends CommonClientOptions {
  /** Aborting it ends every call in progress and every later one. */
  readonly signal?: AbortSignal;
}

/** Per call: `timeoutMs` overrides defaultApiTimeoutMs; `signal` aborts the call. */
export interface AdminCallOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

export interface NewTopic {
  readonly name: string;
  /** -1 for the broker's default. */
  readonly partitions?: number;
  /** -1 for the broker's default. */
  readonly replicationFactor?: number;
  readonly configs?: Readonly<Record<string, string>>;
}

export interface TopicPartitionInfo {
  readonly partition: number;
  readonly leader: number;
  readonly replicas: number[];
  readonly isr: number[];
}

export interface TopicDescription {
  readonly name: string;
  readonly topicId: string;
  readonly internal: boolean;
  readonly partitions: TopicPartitionInfo[];
}

/** Options of `createPartitions`. */
export interface CreatePartitionsOptions extends AdminCallOptions {
  /** Check only; change nothing. */
  readonly validateOnly?: boolean;
  /** The broker ids of each new partition's replicas, one entry per new partition; default: the brokers choose. */
  readonly assignments?: readonly (readonly number[])[];
}

/** What a config belongs to: a topic, a broker (name: its node id, or '' for the cluster-wide default), a broker's loggers, or a group. */
export interface ConfigResource {
  readonly type: 'topic' | 'broker' | 'broker-logger' | 'group';
  readonly name: string;
}

/** Kafka's ConfigEntry.ConfigSource. */
export type ConfigSourceName =
  | 'UNKNOWN' | 'DYNAMIC_TOPIC_CONFIG' | 'DYNAMIC_BROKER_CONFIG' | 'DYNAMIC_DEFAULT_BROKER_CONFIG' | 'STATIC_BROKER_CONFIG'
  | 'DEFAULT_CONFIG' | 'DYNAMIC_BROKER_LOGGER_CONFIG' | 'CLIENT_METRICS_CONFIG' | 'GROUP_CONFIG';

/** Kafka's ConfigEntry.ConfigType ('UNKNOWN' from brokers before DescribeConfigs v3). */
export type ConfigTypeName = 'UNKNOWN' | 'BOOLEAN' | 'STRING' | 'INT' | 'SHORT' | 'LONG' | 'DOUBLE' | 'LIST' | 'CLASS' | 'PASSWORD';

/** One config as DescribeConfigs reports it. */
export interface ConfigEntry {
  readonly name: string;
  /** null for sensitive values and for configs without a value. */
  readonly value: string | null;
  readonly source: ConfigSourceName;
  /** True when the broker does not take changes to it. */
  readonly readOnly: boolean;
  readonly sensitive: boolean;
  readonly type: ConfigTypeName;
  /** Where the value could come from, most specific first; empty unless asked for. */
  readonly synonyms: { readonly name: string; readonly value: string | null; readonly source: ConfigSourceName }[];
  /** null unless asked for (and the broker has it). */
  readonly documentation: string | null;
}

export interface DescribeConfigsOptions extends AdminCallOptions {
  /** Only these configs; default all. */
  readonly keys?: readonly string[];
  readonly synonyms?: boolean;
  readonly documentation?: boolean;
}

/** One IncrementalAlterConfigs operation; append and subtract apply to list configs only. */
export interface AlterConfigOp {
  readonly name: string;
  readonly op: 'set' | 'delete' | 'append' | 'subtract';
  /** Needed except for 'delete'. */
  readonly value?: string;
}

export interface AlterConfigsOptions extends AdminCallOptions {
  /** Check only; change nothing. */
  readonly validateOnly?: boolean;
}

/** Per call, for `listGroups`: ListGroups' filters (Kafka's ListGroupsOptions inStates / withTypes). */
export interface ListGroupsOptions extends AdminCallOptions {
  /**
   * Only groups of these types ('classic', 'consumer', 'share', 'streams'; case-insensitive, as the broker
   * compares them). Needs ListGroups v5 (Kafka 3.8+); an older broker fails the call with
   * UnsupportedApiVersionError, as Kafka's admin client does.
   */
  readonly types?: readonly string[];
  /** Only groups in these states (case-insensitive). Needs ListGroups v4 (Kafka 2.6+). */
  readonly states?: readonly string[];
}

/** One group as ListGroups reports it. */
export interface GroupListing {
  readonly group: string;
  /** '' when the broker's ListGroups version has no state (v0-3). */
  readonly state: string;
  /** 'classic', 'consumer', 'share' or 'streams'; '' when the broker's ListGroups version has no type (v0-4). */
  readonly type: string;
  /** JoinGroup's protocol type ('consumer' for consumer groups; '' for a group with offsets only). */
  readonly protocolType: string;
}

export interface MemberDescription {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly host: string;
  /**
   * What the member holds now. Classic groups: decoded from the consumer protocol; empty when
   * the member has none yet or the group is not a consumer group. Consumer groups: its current
   * assignment (with partitions it has yet to revoke), by topic and partition.
   */
  readonly assignment: TopicPartition[];
  /** Consumer groups (KIP-848): the member's epoch; null for classic groups. */
  readonly memberEpoch: number | null;
  /** Consumer groups: what the group's target assignment gives the member; null for classic groups. */
  readonly targetAssignment: TopicPartition[] | null;
  /** Consumer groups: the topics the member subscribed to by name, sorted; null for classic groups. */
  readonly subscribedTopics: string[] | null;
  /** Consumer groups: the member's subscription regex (RE2/J), or null. */
  readonly subscribedTopicRegex: string | null;
  /** Consumer groups: the member's rack, or null. */
  readonly rackId: string | null;
}

/** 'classic': the JoinGroup/SyncGroup protocol; 'consumer': KIP-848's ConsumerGroupHeartbeat. */
export type GroupType = 'classic' | 'consumer';

export interface GroupDescription {
  readonly group: string;
  /**
   * Which protocol the group speaks: 'consumer' when ConsumerGroupDescribe described it,
   * else 'classic' (an unknown group too, described as Dead).
   */
  readonly type: GroupType;
  /**
   * Kafka's group state. Classic groups: Empty, PreparingRebalance, CompletingRebalance,
   * Stable, Dead; consumer groups: Empty, Assigning, Reconciling, Stable, Dead.
   */
  readonly state: string;
  /** JoinGroup's protocol type; 'consumer' for consumer groups. */
  readonly protocolType: string;
  /**
   * Classic groups: the chosen protocol (the client-side assignor's name for consumer
   * groups), '' unless Stable. Consumer groups: the server-side assignor (e.g. 'uniform').
   */
  readonly protocol: string;
  /**
   * The group's generation when the broker reports one: the group epoch of a consumer group.
   * DescribeGroups (the classic protocol's describe) carries no generation, so this is null
   * for classic groups.
   */
  readonly generation: number | null;
  /** Consumer groups: the group epoch (bumped by every change of members or subscriptions); null for classic groups. */
  readonly groupEpoch: number | null;
  /** Consumer groups: the epoch of the group's target assignment; null for classic groups. */
  readonly assignmentEpoch: number | null;
  readonly members: MemberDescription[];
  /** The coordinator that answered. */
  readonly coordinator: { readonly nodeId: number; readonly host: string; readonly port: number };
}

/** A committed offset (OffsetFetch). */
export interface CommittedOffset extends TopicPartition {
  readonly offset: bigint;
  readonly leaderEpoch: number;
  readonly metadata: string | null;
}

/** One row of a group's offsets: Kafka's `kafka-consumer-groups --describe`. */
export interface GroupOffsetRow extends TopicPartition {
  /** null: the group has no committed offset for the partition. */
  readonly committed: bigint | null;
  /** null: the partition's end offset could not be read (no leader). */
  readonly logEndOffset: bigint | null;
  /** logEndOffset - committed; null when either is unknown. */
  readonly lag: bigint | null;
  /** The member the partition is assigned to, or null. */
  readonly memberId: string | null;
  readonly host: string | null;
  readonly clientId: string | null;
}

export interface GroupOffsets {
  readonly description: GroupDescription;
  /**
   * Assigned partitions ∪ committed partitions. Order as Kafka's tool: members with more
   * partitions first, each member's partitions by topic and partition, then committed
   * partitions nobody is assigned, by topic and partition.
   */
  readonly rows: GroupOffsetRow[];
  /** Sum of the known lags. */
  readonly totalLag: bigint;
}

/** What `reset-offsets` resets to (kafka-consumer-groups' scenarios). */
export type ResetSpec =
  | { readonly kind: 'earliest' }
  | { readonly kind: 'latest' }
  /** Clamped into [log start, log end]. */
  | { readonly kind: 'offset'; readonly offset: bigint }
  /** committed + by, clamped into [log start, log end]; needs a committed offset. */
  | { readonly kind: 'shift'; readonly by: bigint }
  /** First offset with timestamp >= this; log end when there is none. */
  | { readonly kind: 'datetime'; readonly timestampMs: bigint }
  /** The committed offset where there is one, else the log end (Kafka's --to-current). */
  | { readonly kind: 'current' }
  /** Given offsets per partition (Kafka's --from-file), each clamped into [log start, log end]. */
  | { readonly kind: 'offsets'; readonly offsets: readonly PlannedOffset[] };

/** Which partitions a reset covers. */
export type ResetScope =
  /** Every partition of each topic, or only the listed ones. */
  | { readonly kind: 'topics'; readonly topics: readonly { readonly topic: string; readonly partitions?: readonly number[] }[] }
  /** Every partition the group has a committed offset for (`--all-topics`). */
  | { readonly kind: 'all-topics' };

export interface ResetOffsetsOptions {
  readonly scope: ResetScope;
  readonly spec: ResetSpec;
  /** false: compute the plan only (Kafka's dry run, the default). */
  readonly execute: boolean;
}

export interface PlannedOffset extends TopicPartition {
  readonly offset: bigint;
}

/** Result of OffsetDelete per partition: null when deleted, else the Kafka error name. */
export interface DeletedOffset extends TopicPartition {
  readonly error: string | null;
}

/** Admin.deleteRecords: every record of the partition before `offset` goes; -1n: up to the high watermark. */
export interface RecordsToDelete extends TopicPartition {
  readonly offset: bigint;
}

/** What DeleteRecords did to a partition: its new log start offset, or the Kafka error name. */
export interface DeletedRecords extends TopicPartition {
  /** The partition's low watermark (log start offset) now; null on error. */
  readonly lowWatermark: bigint | null;
  readonly error: string | null;
}

/** One partition in a log directory (DescribeLogDirs). */
export interface LogDirPartition extends TopicPartition {
  /** Bytes of the partition's log segments. */
  readonly sizeBytes: bigint;
  /** How far the replica is behind the log end (0 for a leader). */
  readonly offsetLag: bigint;
  /** A replica being moved into this directory (Kafka's "future" log). */
  readonly isFuture: boolean;
}

/** A broker's log directory (kafka-log-dirs --describe). */
export interface LogDirDescription {
  readonly broker: number;
  readonly path: string;
  /** Kafka's error name (e.g. KAFKA_STORAGE_ERROR for an offline directory), or null. */
  readonly error: string | null;
  /** Size of the directory's volume; null when the broker does not say (DescribeLogDirs before v4, or unknown). */
  readonly totalBytes: bigint | null;
  readonly usableBytes: bigint | null;
  readonly partitions: LogDirPartition[];
}

/** Per call, for `describeLogDirs`. */
export interface DescribeLogDirsQuery extends AdminCallOptions {
  /** Broker ids; default every broker of the cluster. */
  readonly brokers?: readonly number[];
  /** Only these partitions; default all. */
  readonly partitions?: readonly TopicPartition[];
}

/** An idempotent or transactional producer with state in a partition (DescribeProducers). */
export interface ProducerStateDescription {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  /** -1 when the broker keeps no batch of it. */
  readonly lastSequence: number;
  readonly lastTimestamp: bigint;
  /** null when unknown (-1). */
  readonly coordinatorEpoch: number | null;
  /** The first offset of its open transaction; null when none. */
  readonly currentTransactionStartOffset: bigint | null;
}

/** The active producers of a partition, or the Kafka error name. */
export interface PartitionProducers extends TopicPartition {
  readonly error: string | null;
  readonly activeProducers: ProducerStateDescription[];
}

/** A partition as DescribeTopicPartitions reports it (Kafka's TopicPartitionInfo). */
export interface DescribedPartition extends TopicPartitionInfo {
  readonly leaderEpoch: number;
  /** KIP-966 eligible leader replicas; null when the broker does not report them (no DescribeTopicPartitions). */
  readonly elr: number[] | null;
  readonly lastKnownElr: number[] | null;
  readonly offline: number[];
}

/** A topic as Admin.describeTopics reports it. */
export interface DescribedTopic {
  readonly name: string;
  readonly topicId: string;
  readonly internal: boolean;
  readonly partitions: DescribedPartition[];
}

/** Per call, for `describeTopics`. */
export interface DescribeTopicsOptions extends AdminCallOptions {
  /** Partitions per DescribeTopicPartitions response (response_partition_limit); default 2000, the broker's maximum. */
  readonly partitionsPerRequest?: number;
}

export interface BrokerDescription {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

/** A cluster as Metadata describes it: `kcat -L`. */
export interface ClusterDescription {
  /** null from brokers too old to have one. */
  readonly clusterId: string | null;
  /** -1 when unknown. */
  readonly controllerId: number;
  readonly brokers: BrokerDescription[];
  readonly topics: ClusterTopic[];
}

export interface ClusterPartition extends TopicPartitionInfo {
  /** The partition's Metadata error code (0: none; e.g. LEADER_NOT_AVAILABLE). */
  readonly errorCode: number;
}

export interface ClusterTopic {
  readonly name: string;
  readonly topicId: string;
  readonly internal: boolean;
  /** The topic's Metadata error code (0: none). */
  readonly errorCode: number;
  readonly partitions: ClusterPartition[];
}
