/**
 * KafkaJS 2.x against a broker under test: a quiet client, and a group-less reader.
 *
 * KafkaJS has no consumer without a group (its consumer always runs FindCoordinator/JoinGroup/
 * SyncGroup), and Brook has no group coordinator yet. So the reader goes one level down: the
 * `Cluster` KafkaJS builds for its own consumer (reached through the client's private
 * `createCluster` symbol, the only way in) and that cluster's `Broker.fetch`, i.e. KafkaJS's own
 * Fetch request (v11), response decoder and record-batch decoder (every codec KafkaJS has: gzip
 * built in), exactly what its consumer uses under the group logic.
 *
 * KafkaJS ships gzip only and leaves snappy, lz4 and zstd to plugins (kafkajs-snappy, ...),
 * none of which is a dependency here; `installKafkaJsCodecs` plugs in codecs backed by Brook's
 * own (de)compression functions (themselves checked against Kafka's codecs in the interop
 * suite), so KafkaJS can decode batches of every codec: KafkaJS still parses the batches and
 * records, only the byte-level (de)compression is borrowed.
 */
import kafkajsModule, { CompressionTypes, Kafka, logLevel, type RecordMetadata } from 'kafkajs';
import { CompressionType, compress, decompress } from '../../../src/protocol/records/compression.js';
import type { ClientRecord } from './records.js';

/** Registers snappy, lz4 and zstd codecs with KafkaJS (process-wide; idempotent). */
export function installKafkaJsCodecs(): void {
  const codec = (type: CompressionType) => () => ({
    compress: async (encoder: { buffer: Buffer }): Promise<Buffer> => compress(type, encoder.buffer),
    decompress: async (buffer: Buffer): Promise<Buffer> => decompress(type, buffer),
  });
  // (a named import of CompressionCodecs fails: Node's CommonJS export detection misses it)
  const codecs = kafkajsModule.CompressionCodecs;
  codecs[CompressionTypes.Snappy] = codec(CompressionType.Snappy);
  codecs[CompressionTypes.LZ4] = codec(CompressionType.Lz4);
  codecs[CompressionTypes.ZSTD] = codec(CompressionType.Zstd);
}

export function kafkaJs(bootstrap: string, clientId = 'brook-test-kafkajs', retries = 2): Kafka {
  return new Kafka({
    clientId,
    brokers: [bootstrap],
    logLevel: process.env['BROOK_TEST_LOG'] ? logLevel.INFO : logLevel.NOTHING,
    connectionTimeout: 3_000,
    requestTimeout: 10_000,
    retry: { retries, initialRetryTime: 100, maxRetryTime: 1_000 },
  });
}

/** The per-partition base offsets of one `producer.send` result. */
export function baseOffsets(metadata: readonly RecordMetadata[]): Map<number, bigint> {
  const out = new Map<number, bigint>();
  for (const m of metadata) {
    if (m.errorCode !== 0) throw new Error(`partition ${m.partition}: error ${m.errorCode}`);
    out.set(m.partition, BigInt(m.baseOffset ?? m.offset ?? '-1'));
  }
  return out;
}

// The slice of KafkaJS's internal Cluster/Broker API the reader uses (kafkajs 2.2.x, untyped).
interface KjsMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | Buffer[] | null>;
  isControlRecord?: boolean;
  batchContext?: { producerId: string; producerEpoch: number; firstSequence: number; inTransaction: boolean };
}
interface KjsFetchResponse {
  responses: {
    topicName: string;
    partitions: { partition: number; errorCode: number; highWatermark: string; messages: KjsMessage[] }[];
  }[];
}
interface KjsBroker {
  fetch(request: {
    replicaId: number; isolationLevel: number; maxWaitTime: number; minBytes: number; maxBytes: number;
    topics: { topic: string; partitions: { partition: number; fetchOffset: string; maxBytes: number }[] }[];
  }): Promise<KjsFetchResponse>;
}
interface KjsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findTopicPartitionMetadata(topic: string): { partitionId: number; leader: number; partitionErrorCode: number }[];
  findBroker(node: { nodeId: number }): Promise<KjsBroker>;
}

export interface ReadRecord extends ClientRecord {
  /** The producer id of the record's batch (-1 when the producer was not idempotent). */
  readonly producerId: bigint;
}

export interface ReadOptions {
  /** Overall bound. */
  readonly timeoutMs?: number;
  /** Read each partition up to this offset (exclusive) instead of its high watermark at the time of reading. */
  readonly until?: ReadonlyMap<number, bigint>;
}

/** Reads whole partitions without a consumer group through KafkaJS's own fetch path. */
export class KafkaJsReader {
  private constructor(private readonly cluster: KjsCluster) {}

  static async connect(kafka: Kafka): Promise<KafkaJsReader> {
    installKafkaJsCodecs();
    const key = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
    if (key === undefined) throw new Error('KafkaJS internals changed: no private createCluster symbol on the client');
    const create = (kafka as unknown as Record<symbol, (options: object) => KjsCluster>)[key]!;
    const cluster = create({ allowAutoTopicCreation: false });
    await cluster.connect();
    return new KafkaJsReader(cluster);
  }

  async partitions(topic: string): Promise<number[]> {
    await this.cluster.addTargetTopic(topic);
    await this.cluster.refreshMetadata();
    return this.cluster.findTopicPartitionMetadata(topic).map((p) => p.partitionId).sort((a, b) => a - b);
  }

  /**
   * Every record of every partition of `topic`, in the order fetched (offsets increase per
   * partition); control records skipped.
   */
  async readAll(topic: string, options: ReadOptions = {}): Promise<ReadRecord[]> {
    const deadline = Date.now() + (options.timeoutMs ?? 20_000);
    await this.cluster.addTargetTopic(topic);
    await this.cluster.refreshMetadata();
    const metadata = this.cluster.findTopicPartitionMetadata(topic);
    if (metadata.length === 0) throw new Error(`no metadata for topic ${topic}`);
    const leader = await this.cluster.findBroker({ nodeId: metadata[0]!.leader });
    const next = new Map(metadata.map((p) => [p.partitionId, 0n]));
    const done = new Set<number>();
    const out: ReadRecord[] = [];
    while (done.size < next.size) {
      if (Date.now() > deadline) {
        throw new Error(`reading ${topic} did not finish in time; positions ${JSON.stringify(Object.fromEntries([...next].map(([p, o]) => [p, String(o)])))}`);
      }
      const wanted = [...next.keys()].filter((p) => !done.has(p));
      const response = await leader.fetch({
        replicaId: -1, isolationLevel: 0, maxWaitTime: 50, minBytes: 1, maxBytes: 8 << 20,
        topics: [{ topic, partitions: wanted.map((p) => ({ partition: p, fetchOffset: String(next.get(p)), maxBytes: 1 << 20 })) }],
      });
      for (const t of response.responses) {
        for (const p of t.partitions) {
          if (p.errorCode !== 0) throw new Error(`fetch ${topic}-${p.partition} at ${next.get(p.partition)}: error code ${p.errorCode}`);
          const from = next.get(p.partition)!;
          let position = from;
          for (const m of p.messages) {
            const offset = BigInt(m.offset);
            if (offset < position || m.isControlRecord) continue; // a batch can start before the fetch offset
            out.push({
              partition: p.partition, offset,
              key: m.key === null ? null : m.key.toString('utf8'),
              value: m.value === null ? null : m.value.toString('utf8'),
              headers: headersToStrings(m.headers),
              producerId: BigInt(m.batchContext?.producerId ?? '-1'),
            });
            position = offset + 1n;
          }
          next.set(p.partition, position);
          const end = options.until?.get(p.partition) ?? BigInt(p.highWatermark);
          if (position >= end) done.add(p.partition);
        }
      }
    }
    return out;
  }

  /**
   * One Fetch of one partition at `offset` with `maxWaitMs` (parks on the broker when there is
   * nothing to read); resolves with the number of records returned.
   */
  async fetchOnce(topic: string, partition: number, offset: bigint, maxWaitMs: number): Promise<number> {
    await this.cluster.addTargetTopic(topic);
    const metadata = this.cluster.findTopicPartitionMetadata(topic);
    const leader = await this.cluster.findBroker({ nodeId: metadata[0]!.leader });
    const response = await leader.fetch({
      replicaId: -1, isolationLevel: 0, maxWaitTime: maxWaitMs, minBytes: 1, maxBytes: 1 << 20,
      topics: [{ topic, partitions: [{ partition, fetchOffset: String(offset), maxBytes: 1 << 20 }] }],
    });
    return response.responses.flatMap((t) => t.partitions).reduce((n, p) => n + p.messages.length, 0);
  }

  async close(): Promise<void> {
    await this.cluster.disconnect();
  }
}

function headersToStrings(headers: KjsMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    const last = Array.isArray(v) ? v[v.length - 1] : v;
    out[k] = last == null ? '' : last.toString('utf8');
  }
  return out;
}

/** Creates `topic` with KafkaJS's admin client and checks the partitions its metadata then lists. */
export async function createTopicWithKafkaJs(bootstrap: string, topic: string, partitions: number): Promise<void> {
  const admin = kafkaJs(bootstrap, 'brook-test-admin').admin();
  await admin.connect();
  try {
    if (!(await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true }))) {
      throw new Error(`KafkaJS admin: topic ${topic} was not created`);
    }
    const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
    const listed = metadata.topics[0]!.partitions.map((p) => p.partitionId).sort((a, b) => a - b);
    if (listed.join() !== Array.from({ length: partitions }, (_, i) => i).join()) {
      throw new Error(`KafkaJS admin: topic ${topic} has partitions ${listed.join()}, expected 0..${partitions - 1}`);
    }
  } finally {
    await admin.disconnect();
  }
}

/** ListOffsets (earliest and latest) per partition through KafkaJS's admin client. */
export async function topicOffsets(bootstrap: string, topic: string): Promise<Record<number, { low: number; high: number }>> {
  const admin = kafkaJs(bootstrap, 'brook-test-offsets').admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return Object.fromEntries(offsets.map((o) => [o.partition, { low: Number(o.low), high: Number(o.high) }]));
  } finally {
    await admin.disconnect();
  }
}
