/**
 * A streams group's topology configured against the cluster's topics (Kafka's
 * ConfiguredTopology): the number of tasks of each subtopology, the partition counts of its
 * internal topics, and what is missing or wrong. The coordinator recomputes it when the
 * topology or the topics it needs change.
 */
import { ErrorCode } from '../../../protocol/errors.js';
import { ConsumerGroupError } from '../../consumer/errors.js';
import type { StreamsGroupTopologyValue } from '../../../protocol/coordinator-records/streams-group-topology-value.js';

/** A repartition or changelog topic with the partition count the topology gives it. */
export interface ConfiguredInternalTopic {
  readonly name: string;
  readonly numberOfPartitions: number;
  /** Null: the broker's default. */
  readonly replicationFactor: number | null;
  readonly topicConfigs: ReadonlyMap<string, string>;
}

export interface ConfiguredSubtopology {
  readonly numberOfTasks: number;
  readonly sourceTopics: ReadonlySet<string>;
  readonly repartitionSourceTopics: ReadonlyMap<string, ConfiguredInternalTopic>;
  readonly repartitionSinkTopics: ReadonlySet<string>;
  readonly stateChangelogTopics: ReadonlyMap<string, ConfiguredInternalTopic>;
}

/** StreamsGroupHeartbeat's Status codes (Kafka's StreamsGroupHeartbeatResponse.Status). */
export const StreamsGroupStatus = {
  STALE_TOPOLOGY: 0,
  MISSING_SOURCE_TOPICS: 1,
  INCORRECTLY_PARTITIONED_TOPICS: 2,
  MISSING_INTERNAL_TOPICS: 3,
  SHUTDOWN_APPLICATION: 4,
  ASSIGNMENT_DELAYED: 5,
  MISSING_CLIENT_TAGS: 6,
} as const;

export interface TopicConfigurationError {
  /** One of StreamsGroupStatus' codes. */
  readonly status: number;
  readonly message: string;
}

export interface ConfiguredTopology {
  readonly topologyEpoch: number;
  /** Null when the topology cannot be configured (see `error`): no tasks are assigned. */
  readonly subtopologies: ReadonlyMap<string, ConfiguredSubtopology> | null;
  /** Internal topics that do not exist yet: the broker creates them (Kafka's CreatableTopic shape). */
  readonly internalTopicsToBeCreated: readonly ConfiguredInternalTopic[];
  readonly error: TopicConfigurationError | null;
}

/** The topology as the members sent it and the coordinator stores it. */
export type StreamsTopology = StreamsGroupTopologyValue;

/** A topic's partition count, or undefined when the topic does not exist. */
export type PartitionCountLookup = (topic: string) => number | undefined;

/**
 * The topology cannot be configured at all (Kafka's StreamsInvalidTopologyException, which
 * escapes InternalTopicManager.configureTopics): a repartition topic whose partition count
 * nothing determines, a subtopology without source topics. The heartbeat answers it with
 * STREAMS_INVALID_TOPOLOGY and this message.
 */
export class StreamsInvalidTopologyError extends ConsumerGroupError {
  override readonly name = 'StreamsInvalidTopologyError';
  constructor(message: string) {
    super(ErrorCode.STREAMS_INVALID_TOPOLOGY, message);
  }
}
