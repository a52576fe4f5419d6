/**
 * The batch a transaction coordinator appends to each partition of a transaction to end it,
 * as Kafka's MemoryRecords.withEndTransactionMarker: one control record (key: version 0 and
 * COMMIT or ABORT; value: the EndTransactionMarker with the coordinator epoch) in a batch
 * flagged control and transactional, carrying the producer's id and epoch and no sequence.
 */
import { encodeRecordBatch } from './batch-codec.js';
import { encodeControlRecordKey, encodeEndTxnMarker, type ControlRecordType } from './control-record.js';
import { NO_SEQUENCE } from './record-batch.js';

export interface EndTxnMarkerBatchInput {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly type: ControlRecordType;
  readonly coordinatorEpoch: number;
  readonly timestampMs: number;
}

export function encodeEndTxnMarkerBatch(input: EndTxnMarkerBatchInput): Buffer {
  return encodeRecordBatch({
    records: [{ key: encodeControlRecordKey(input.type), value: encodeEndTxnMarker(input.coordinatorEpoch), timestamp: input.timestampMs }],
    isTransactional: true,
    isControl: true,
    producerId: input.producerId,
    producerEpoch: input.producerEpoch,
    baseSequence: NO_SEQUENCE,
  });
}
