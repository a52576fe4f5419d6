/**
 * Helpers for ShareConsumer tests. A share group starts at the log end
 * (share.auto.offset.reset=latest) and a share-partition is initialized when a member
 * first fetches it, so tests warm up first: a record per partition until each consumer of
 * the group got one from every partition it is assigned and the group covers them all.
 */
import type { ShareConsumer } from '../../src/client/share/share-consumer.js';
import type { ShareConsumerRecord } from '../../src/client/share/share-completed-fetch.js';
import { produce } from './consumer-helpers.js';

/** A record's value as text (Buffer or already a string). */
export const valueOfShare = (r: ShareConsumerRecord<unknown, unknown, unknown>): string => (Buffer.isBuffer(r.value) ? r.value.toString('utf8') : String(r.value ?? ''));

/**
 * Polls `consumers` while producing warm-up records to partitions none of them delivered
 * yet, until every partition delivered one; warm-up records are accepted (explicit mode:
 * acknowledged) and anything else is returned, by consumer.
 */
export async function warmUp(bootstrap: string, topic: string, partitions: number, consumers: readonly ShareConsumer<unknown, unknown, unknown>[], timeoutMs = 60_000): Promise<void> {
  const seen = new Set<number>();
  const deadline = Date.now() + timeoutMs;
  let round = 0;
  while (seen.size < partitions) {
    if (Date.now() > deadline) throw new Error(`warm-up: only partitions ${[...seen].join(',')} of ${topic} delivered`);
    if (round++ % 4 === 0) {
      for (let p = 0; p < partitions; p++) if (!seen.has(p)) await produce(bootstrap, topic, p, [`warm-${p}-${round}`]);
    }
    for (const c of consumers) {
      const records = await c.poll({ timeoutMs: 200 });
      for (const r of records) {
        if (!valueOfShare(r).startsWith('warm-')) throw new Error(`warm-up got a record that is not a warm-up one: ${valueOfShare(r)}`);
        seen.add(r.partition);
        if (c.options.acknowledgementMode === 'explicit') c.acknowledge(r);
      }
    }
  }
  for (const c of consumers) await c.commitSync({ timeoutMs: 10_000 });
}
