/**
 * @platformatic/kafka (2.x, or 1.x on Node before 22.22: platformatic-kafka.ts) against a broker
 * under test.
 *
 * Its `Consumer.consume()` always joins a consumer group first (JoinGroup/SyncGroup, even in
 * the MANUAL offsets mode), which Brook does not serve yet. `Consumer.fetch()` is the
 * group-less path: one Fetch request (v17 against a 4.x broker: topics named by topic id) to
 * a given node, decoded by the library. The reader below loops over it from offset 0 to each
 * partition's high watermark.
 */
import { platformaticKafka } from './platformatic-kafka.js';
import type { ClientRecord } from './records.js';

export interface PlatformaticReadOptions {
  readonly timeoutMs?: number;
}

/** Every record of every partition of `topic`, read with `Consumer.fetch` (no group). */
export async function platformaticReadAll(bootstrap: string, topic: string, options: PlatformaticReadOptions = {}): Promise<ClientRecord[]> {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  // groupId is mandatory in the options but fetch() never uses it.
  const consumer = new platformaticKafka.Consumer({
    clientId: 'brook-test-platformatic-reader', groupId: 'unused-no-group', bootstrapBrokers: [bootstrap],
    retries: 1, retryDelay: 100, timeout: 10_000,
  });
  try {
    const metadata = await consumer.metadata({ topics: [topic] });
    const t = metadata.topics.get(topic);
    if (!t) throw new Error(`no metadata for topic ${topic}`);
    const node = t.partitions[0]!.leader;
    const next = new Map(t.partitions.map((_, i) => [i, 0n]));
    const done = new Set<number>();
    const out: ClientRecord[] = [];
    while (done.size < next.size) {
      if (Date.now() > deadline) throw new Error(`reading ${topic} did not finish in time`);
      const wanted = [...next.keys()].filter((p) => !done.has(p));
      const response = await withCauses(consumer.fetch({
        node, maxWaitTime: 50, minBytes: 1, maxBytes: 8 << 20,
        topics: [{
          topicId: t.id,
          partitions: wanted.map((p) => ({ partition: p, currentLeaderEpoch: -1, fetchOffset: next.get(p)!, lastFetchedEpoch: -1, partitionMaxBytes: 1 << 20 })),
        }],
      }), `Fetch of ${topic} (topic id ${t.id})`);
      for (const rt of response.responses) {
        for (const p of rt.partitions) {
          if (p.errorCode !== 0) throw new Error(`fetch ${topic}-${p.partitionIndex}: error code ${p.errorCode}`);
          let position = next.get(p.partitionIndex)!;
          for (const batch of p.records ?? []) {
            if ((batch.attributes & 0x20) !== 0) continue; // control batch
            for (const r of batch.records) {
              const offset = batch.firstOffset + BigInt(r.offsetDelta);
              if (offset < position) continue;
              out.push({
                partition: p.partitionIndex, offset,
                key: r.key === null ? null : r.key.toString('utf8'),
                value: r.value === null ? null : r.value.toString('utf8'),
                headers: Object.fromEntries(r.headers.map(([k, v]) => [k?.toString('utf8') ?? '', v?.toString('utf8') ?? ''])),
              });
              position = offset + 1n;
            }
          }
          next.set(p.partitionIndex, position);
          if (position >= p.highWatermark) done.add(p.partitionIndex);
        }
      }
    }
    return out;
  } finally {
    await consumer.close(true);
  }
}

/** @platformatic/kafka nests the broker's errors in AggregateErrors ("fetch failed 2 times."): surface them. */
async function withCauses<T>(promise: Promise<T>, what: string): Promise<T> {
  try {
    return await promise;
  } catch (err) {
    const messages = new Set<string>();
    const walk = (e: unknown, depth: number): void => {
      if (depth > 5 || e === null || typeof e !== 'object') return;
      const { message, errors } = e as { message?: string; errors?: unknown[] };
      if (typeof message === 'string' && !Array.isArray(errors)) messages.add(message);
      if (Array.isArray(errors)) for (const inner of errors) walk(inner, depth + 1);
    };
    walk(err, 0);
    throw new Error(`${what}: ${(err as Error).message} [${[...messages].join('; ')}]`, { cause: err });
  }
}
