/**
 * Reads a whole topic back over Fetch (v11, topic names) with Brook's client connection
 * and record decoder: what the producer tests compare their sends against.
 */
import { Api } from '../../../src/protocol/messages/index.js';
import { KafkaConnection, parseBootstrap } from '../../../src/client/connection.js';
import { decodeRecordBatch, iterateBatches, type DecodedRecordBatch } from '../../../src/protocol/records/index.js';

export interface ReadBackRecord {
  partition: number;
  offset: bigint;
  timestamp: bigint;
  key: string | null;
  value: string | null;
  headers: Record<string, string | null>;
}

export interface ReadBackBatch {
  partition: number;
  batch: DecodedRecordBatch;
}

/** Every batch of every partition of `topic` (partitions 0..count-1), fetched until the high watermark. */
export async function readBatches(bootstrap: string, topic: string, partitionCount: number): Promise<ReadBackBatch[]> {
  const [address] = parseBootstrap(bootstrap);
  const connection = await KafkaConnection.connect({ host: address!.host, port: address!.port, clientId: 'read-back' });
  try {
    const out: ReadBackBatch[] = [];
    for (let partition = 0; partition < partitionCount; partition++) {
      let offset = 0n;
      for (;;) {
        const response = await connection.request(Api.Fetch, {
          replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 64 << 20, isolationLevel: 0, sessionId: 0, sessionEpoch: -1,
          topics: [{ topic, partitions: [{ partition, fetchOffset: offset, partitionMaxBytes: 16 << 20, currentLeaderEpoch: -1, logStartOffset: -1n }] }],
          forgottenTopicsData: [], rackId: '',
        }, { version: 11 });
        const p = response.responses[0]?.partitions[0];
        if (!p) throw new Error(`no fetch answer for ${topic}-${partition}`);
        if (p.errorCode !== 0) throw new Error(`fetch ${topic}-${partition} failed with error ${p.errorCode}`);
        let advanced = false;
        for (const view of iterateBatches(p.records ?? Buffer.alloc(0))) {
          const batch = decodeRecordBatch(view.buffer);
          const next = batch.header.baseOffset + BigInt(batch.header.lastOffsetDelta) + 1n;
          if (next <= offset) continue;
          out.push({ partition, batch });
          offset = next;
          advanced = true;
        }
        if (!advanced || offset >= p.highWatermark) break;
      }
    }
    return out;
  } finally {
    connection.close();
  }
}

export async function readBack(bootstrap: string, topic: string, partitionCount: number): Promise<ReadBackRecord[]> {
  const out: ReadBackRecord[] = [];
  for (const { partition, batch } of await readBatches(bootstrap, topic, partitionCount)) {
    for (const r of batch.records) {
      const headers: Record<string, string | null> = {};
      for (const h of r.headers) headers[h.key] = h.value === null ? null : h.value.toString('utf8');
      out.push({
        partition, offset: r.offset, timestamp: r.timestamp,
        key: r.key === null ? null : r.key.toString('utf8'), value: r.value === null ? null : r.value.toString('utf8'), headers,
      });
    }
  }
  return out;
}
