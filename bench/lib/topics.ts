/**
 * Topics for a run, over the wire so the same code works on both brokers: create them
 * (Brook's admin client: CreateTopics), and fill one fast with pre-built record batches sent
 * as pipelined Produce requests, so loading 1M records does not depend on any client under test.
 */
import { Admin } from '../../src/client/admin.js';
import { KafkaConnection, parseBootstrap } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { encodeRecordBatch } from '../../src/protocol/records/index.js';

let counter = 0;

/** A topic or group name unique within this process and across runs. */
export function uniqueName(prefix: string): string {
  counter++;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

export async function createTopic(bootstrap: string, name: string, partitions: number): Promise<void> {
  const admin = await Admin.connect({ bootstrapServers: bootstrap, clientId: 'brook-bench-admin', requestTimeoutMs: 60_000 });
  try {
    await admin.createTopic({ name, partitions, replicationFactor: 1 });
    // Wait until the partitions have a leader (Kafka elects them asynchronously).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const d = await admin.describeTopic(name).catch(() => null);
      if (d !== null && d.partitions.length === partitions && d.partitions.every((p) => p.leader >= 0)) return;
      if (Date.now() > deadline) throw new Error(`topic ${name} has no leaders after 30 s`);
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    admin.close();
  }
}

/** The value of record i: `bytes` long, printable, different per record. */
export function recordValue(i: number, bytes: number): Buffer {
  const head = `r${i}-`;
  return Buffer.from(head + 'x'.repeat(Math.max(0, bytes - head.length)));
}

export interface LoadOptions {
  records: number;
  valueBytes: number;
  partitions: number;
  /** Records per batch (default 500). */
  batchRecords?: number;
  /** Produce requests in flight (default 8). */
  inFlight?: number;
}

/**
 * Appends `records` records round-robin over the partitions, `batchRecords` per batch, with
 * acks=1. Every batch carries the same bytes except its records' values differ per batch
 * index, which is enough for throughput (brokers do not look into values).
 */
export async function loadTopic(bootstrap: string, topic: string, options: LoadOptions): Promise<void> {
  const batchRecords = options.batchRecords ?? 500;
  const { host, port } = parseBootstrap(bootstrap)[0]!;
  const conn = await KafkaConnection.connect({ host, port, clientId: 'brook-bench-loader', requestTimeoutMs: 120_000 });
  try {
    const batches = Math.ceil(options.records / batchRecords);
    const now = Date.now();
    const makeBatch = (b: number): Buffer => {
      const n = Math.min(batchRecords, options.records - b * batchRecords);
      return encodeRecordBatch({
        records: Array.from({ length: n }, (_, j) => ({ key: null, value: recordValue(b * batchRecords + j, options.valueBytes), timestamp: now })),
      });
    };
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batches) {
        // One request carries one batch for each partition.
        const partitionData = [];
        for (let p = 0; p < options.partitions && next < batches; p++) partitionData.push({ index: p, records: makeBatch(next++) });
        for (let attempt = 1; ; attempt++) {
          const response = await conn.request(Api.Produce, { transactionalId: null, acks: 1, timeoutMs: 60_000, topicData: [{ name: topic, partitionData }] });
          const failed = (response?.responses ?? []).flatMap((t) => t.partitionResponses.filter((p) => p.errorCode !== 0));
          if (failed.length === 0) break;
          // Right after CreateTopics, Kafka may not lead the partitions yet (3, 6): retry those.
          if (attempt >= 50 || !failed.every((p) => p.errorCode === 3 || p.errorCode === 6)) {
            throw new Error(`loading ${topic}-${failed[0]!.index}: error ${failed[0]!.errorCode}`);
          }
          const retry = new Set(failed.map((p) => p.index));
          partitionData.splice(0, partitionData.length, ...partitionData.filter((d) => retry.has(d.index)));
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    };
    await Promise.all(Array.from({ length: options.inFlight ?? 8 }, worker));
  } finally {
    conn.close();
  }
}
