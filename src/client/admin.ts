/**
 * The admin client: topic operations over CreateTopics, DeleteTopics and Metadata, against
 * any Kafka-compatible broker. (Groups and offsets arrive with the admin issue.)
 */
import { Api } from '../protocol/messages/index.js';
import { KafkaProtocolError, ErrorCode } from '../protocol/errors.js';
import { BrookError } from '../protocol/errors.js';
import { KafkaConnection, parseBootstrap } from './connection.js';

export interface AdminOptions {
  /** Kafka's `bootstrap.servers`: "host:port[,host:port...]". */
  readonly bootstrapServers: string;
  readonly clientId?: string;
  readonly requestTimeoutMs?: number;
  readonly signal?: AbortSignal;
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

export class NoBrokerReachableError extends BrookError {
  readonly code = 'ERR_NO_BROKER' as const;
}

export class Admin {
  private constructor(private readonly connection: KafkaConnection) {}

  static async connect(options: AdminOptions): Promise<Admin> {
    const errors: string[] = [];
    for (const { host, port } of parseBootstrap(options.bootstrapServers)) {
      try {
        const connection = await KafkaConnection.connect({
          host, port, clientId: options.clientId ?? 'brook-admin', requestTimeoutMs: options.requestTimeoutMs, signal: options.signal,
        });
        return new Admin(connection);
      } catch (err) {
        errors.push((err as Error).message);
      }
    }
    throw new NoBrokerReachableError(`no broker reachable at ${options.bootstrapServers}: ${errors.join('; ')}`);
  }

  async createTopic(topic: NewTopic): Promise<void> {
    const response = await this.connection.request(Api.CreateTopics, {
      topics: [{
        name: topic.name,
        numPartitions: topic.partitions ?? -1,
        replicationFactor: topic.replicationFactor ?? -1,
        assignments: [],
        configs: Object.entries(topic.configs ?? {}).map(([name, value]) => ({ name, value })),
      }],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    const result = response.topics[0];
    if (!result) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, 'empty CreateTopics response');
    if (result.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(result.errorCode, result.errorMessage ?? undefined);
  }

  async deleteTopic(name: string): Promise<void> {
    const response = await this.connection.request(Api.DeleteTopics, {
      topicNames: [name], topics: [{ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }], timeoutMs: 30_000,
    });
    const result = response.responses[0];
    if (result && result.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(result.errorCode, result.errorMessage ?? undefined);
  }

  /** Names of all topics, internal ones included, sorted. */
  async listTopics(): Promise<string[]> {
    const response = await this.metadata(null);
    return response.topics.map((t) => t.name ?? '').filter((n) => n !== '').sort();
  }

  async describeTopic(name: string): Promise<TopicDescription> {
    const response = await this.metadata([name]);
    const topic = response.topics.find((t) => t.name === name);
    if (!topic) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name);
    if (topic.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(topic.errorCode, name);
    return {
      name,
      topicId: topic.topicId ?? 'AAAAAAAAAAAAAAAAAAAAAA',
      internal: topic.isInternal ?? false,
      partitions: topic.partitions
        .map((p) => ({ partition: p.partitionIndex, leader: p.leaderId, replicas: p.replicaNodes, isr: p.isrNodes }))
        .sort((a, b) => a.partition - b.partition),
    };
  }

  private metadata(topics: string[] | null) {
    return this.connection.request(Api.Metadata, {
      topics: topics === null ? null : topics.map((name) => ({ name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' })),
      allowAutoTopicCreation: false,
      includeClusterAuthorizedOperations: false,
      includeTopicAuthorizedOperations: false,
    });
  }

  close(): void {
    this.connection.close();
  }
}
