/**
 * Read-only views of a broker for tests: the records of a topic, a group's committed offsets,
 * and a wait for a group's state. They read the storage and the group coordinator as they
 * are, and change nothing.
 */
import { decodeRecordBatch, iterateBatches, MAGIC_V2 } from '../../protocol/records/index.js';
import type { BrokerContext } from '../broker-context.js';

/** One record of a topic, decoded. */
export interface BrokerRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly timestamp: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly { readonly key: string; readonly value: Buffer | null }[];
}

/** A group's committed offsets: topic name, then partition, to the committed offset. */
export type CommittedOffsets = Record<string, Record<number, bigint>>;

/** Rejects `waitForGroupState` when the group did not reach the state in time. */
export class GroupStateTimeoutError extends Error {
  override readonly name = 'GroupStateTimeoutError';
  constructor(
    readonly groupId: string,
    readonly expectedState: string,
    /** The state when the wait gave up; null when there was no such group. */
    readonly lastState: string | null,
    readonly timeoutMs: number,
  ) {
    super(`group ${JSON.stringify(groupId)} did not reach state ${expectedState} within ${timeoutMs} ms (state: ${lastState ?? 'no such group'})`);
  }
}

const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * Every record of the topic's partitions, partition by partition in offset order (control
 * records, the transaction markers, are left out; records of open or aborted transactions
 * are included, as a read_uncommitted consumer sees them). Unknown topic: an empty list.
 */
export function topicRecords(ctx: BrokerContext, topic: string): BrokerRecord[] {
  const meta = ctx.storage.topic(topic);
  if (meta === undefined) return [];
  const out: BrokerRecord[] = [];
  for (let partition = 0; partition < meta.partitions; partition++) {
    const log = ctx.storage.partition(topic, partition);
    if (log === undefined) continue;
    let offset = log.logStartOffset;
    while (offset < log.highWatermark) {
      const read = log.read(offset, READ_CHUNK_BYTES, { minOneBatch: true });
      if (read.records.length === 0) break;
      let next = offset;
      for (const chunk of read.records) {
        for (const view of iterateBatches(chunk)) {
          if (view.magic !== MAGIC_V2) continue;
          const batch = decodeRecordBatch(view.buffer);
          next = batch.header.baseOffset + BigInt(batch.header.lastOffsetDelta) + 1n;
          if (batch.header.isControl) continue;
          for (const r of batch.records) {
            if (r.offset < offset) continue;
            // Copies: the read may be a view of a buffer the storage reuses.
            out.push({
              topic, partition, offset: r.offset, timestamp: r.timestamp,
              key: r.key === null ? null : Buffer.from(r.key), value: r.value === null ? null : Buffer.from(r.value),
              headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) })),
            });
          }
        }
      }
      if (next <= offset) break;
      offset = next;
    }
  }
  return out;
}

/** The group's committed offsets (an empty object for a group with none). */
export function committedOffsets(ctx: BrokerContext, groupId: string): CommittedOffsets {
  const out: CommittedOffsets = {};
  ctx.groups.coordinator.forEachCommittedOffset((g, topic, partition, offset) => {
    if (g !== groupId) return;
    (out[topic] ??= {})[partition] = offset;
  });
  return out;
}

/** The group's state by Kafka's name (classic, consumer, share or streams group); null when there is none. */
export function groupState(ctx: BrokerContext, groupId: string): string | null {
  return ctx.groups.coordinator.groupSummaries().find((g) => g.groupId === groupId)?.state ?? null;
}

const POLL_MS = 5;

/**
 * Resolves once the group is in `state`, checked now and then every few milliseconds of real
 * time (group states change on requests and on the broker's timers, whichever clock it runs
 * on); rejects with GroupStateTimeoutError after `timeoutMs` of real time.
 */
export function waitForGroupState(ctx: BrokerContext, groupId: string, state: string, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = performance.now() + timeoutMs;
    const check = (): void => {
      const now = groupState(ctx, groupId);
      if (now === state) {
        resolve();
        return;
      }
      if (performance.now() >= deadline) {
        reject(new GroupStateTimeoutError(groupId, state, now, timeoutMs));
        return;
      }
      setTimeout(check, POLL_MS);
    };
    check();
  });
}
