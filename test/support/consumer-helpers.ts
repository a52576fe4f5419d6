/**
 * Helpers for consumer tests: create topics and produce records with Brook's own low-level
 * client pieces (Admin, Cluster, encodeRecordBatch + Produce), against any Kafka broker.
 */
import { Admin } from '../../src/client/admin.js';
import { Cluster } from '../../src/client/cluster.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/batch-codec.js';
import { CompressionType } from '../../src/protocol/records/compression.js';
import type { ConsumerRecord } from '../../src/client/consumer/record-decoding.js';

/** NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION. */
const LEADERSHIP_ERRORS = new Set([6, 5, 3]);

export async function createTopic(bootstrap: string, name: string, partitions: number): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap });
  try {
    await admin.createTopic({ name, partitions, replicationFactor: 1, configs: {} });
  } finally {
    admin.close();
  }
}

/**
 * Produces `values` to one partition in batches of `batchSize` (acks=all); throws on any error
 * code but a leadership one (a topic Kafka just created may not have its leader known to the
 * broker yet: NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, UNKNOWN_TOPIC_OR_PARTITION), which
 * is retried for up to 10 s, as a producer does.
 */
export async function produce(bootstrap: string, topic: string, partition: number, values: readonly string[], options: { batchSize?: number; compression?: CompressionType; keys?: boolean } = {}): Promise<void> {
  const cluster = new Cluster({ bootstrapServers: bootstrap });
  try {
    const leader = await cluster.leaderFor(topic, partition);
    const connection = await cluster.connectionToNode(leader);
    const size = options.batchSize ?? 100;
    for (let i = 0; i < values.length; i += size) {
      const slice = values.slice(i, i + size);
      const batch = encodeRecordBatch({
        compression: options.compression ?? CompressionType.None,
        records: slice.map((v) => ({ key: options.keys === false ? null : Buffer.from(`k-${v}`), value: Buffer.from(v), timestamp: Date.now() })),
      });
      for (let attempt = 0; ; attempt++) {
        const response = await connection.request(Api.Produce, {
          transactionalId: null, acks: -1, timeoutMs: 10_000,
          topicData: [{ name: topic, partitionData: [{ index: partition, records: batch }] }],
        });
        const code = response.responses[0]?.partitionResponses[0]?.errorCode ?? -1;
        if (code === 0) break;
        if (!LEADERSHIP_ERRORS.has(code) || attempt >= 100) throw new Error(`produce to ${topic}-${partition} failed with error ${code}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    cluster.close();
  }
}

/** Spreads `count` values "p<partition>-<i>" over `partitions` partitions; returns them all. */
export async function produceSpread(bootstrap: string, topic: string, partitions: number, perPartition: number, tag = ''): Promise<string[]> {
  const all: string[] = [];
  await Promise.all(Array.from({ length: partitions }, (_, p) => {
    const values = Array.from({ length: perPartition }, (_, i) => `${tag}p${p}-${i}`);
    all.push(...values);
    return produce(bootstrap, topic, p, values);
  }));
  return all;
}

export function valueOf(r: ConsumerRecord): string {
  return r.value?.toString('utf8') ?? '';
}
