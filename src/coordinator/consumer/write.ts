/**
 * Writes consumer-group records: each is applied to the state through the replay path
 * (replay.ts) and handed to the runtime for `__consumer_offsets`, in order, as Kafka's
 * runtime replays the records of a result as it appends them.
 */
import { encodeConsumerGroupRecord, type ConsumerGroupRecord } from '../../protocol/coordinator-records/consumer-group-framing.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { Operation } from '../operation.js';
import { applyConsumerGroupRecord } from './replay.js';

export function writeConsumerGroupRecords(s: CoordinatorState, op: Operation, records: readonly ConsumerGroupRecord[]): void {
  for (const record of records) {
    applyConsumerGroupRecord(s, record, op.nowMs);
    op.record(encodeConsumerGroupRecord(record));
  }
}
