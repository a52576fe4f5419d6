/**
 * Who learns a record's fate, stored as two slots per record beside the batch's bytes (so
 * no object is allocated per record for it):
 * - `send()`: (resolve, reject) of its promise;
 * - `send(record, callback)`: (callback, null), Java's `send(record, Callback)`;
 * - `sendBatch()`: (SendBatchDelivery, index): one promise for the whole array, as KafkaJS
 *   and @platformatic/kafka give one per batch, instead of a promise per record plus a
 *   Promise.all over them.
 */
import type { RecordMetadata } from './producer-batch.js';

/** Called once per record: (null, metadata) when acknowledged, (error, null) when it failed for good. */
export type RecordCallback = (err: Error | null, metadata: RecordMetadata | null) => void;

export interface MultiDelivery {
  delivered(index: number, metadata: RecordMetadata): void;
  failed(index: number, err: Error): void;
}

export type DeliveryTarget = ((metadata: RecordMetadata) => void) | RecordCallback | MultiDelivery;
/** A reject function (promise), null (callback) or the record's index (MultiDelivery). */
export type DeliveryTag = ((err: Error) => void) | null | number;

export function deliver(target: DeliveryTarget, tag: DeliveryTag, metadata: RecordMetadata): void {
  if (typeof tag === 'number') (target as MultiDelivery).delivered(tag, metadata);
  else if (tag === null) (target as RecordCallback)(null, metadata);
  else (target as (m: RecordMetadata) => void)(metadata);
}

export function deliverError(target: DeliveryTarget, tag: DeliveryTag, err: Error): void {
  if (typeof tag === 'number') (target as MultiDelivery).failed(tag, err);
  else if (tag === null) (target as RecordCallback)(err, null);
  else tag(err);
}

/** `sendBatch`: resolves with every record's metadata in order, or rejects with the first failure (as Promise.all). */
export class SendBatchDelivery implements MultiDelivery {
  readonly promise: Promise<RecordMetadata[]>;
  private readonly results: RecordMetadata[];
  private remaining: number;
  private settled = false;
  private resolve!: (results: RecordMetadata[]) => void;
  private reject!: (err: Error) => void;

  constructor(count: number) {
    this.results = new Array<RecordMetadata>(count);
    this.remaining = count;
    this.promise = new Promise<RecordMetadata[]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    if (count === 0) this.resolve(this.results);
  }

  delivered(index: number, metadata: RecordMetadata): void {
    if (this.settled) return;
    this.results[index] = metadata;
    if (--this.remaining === 0) {
      this.settled = true;
      this.resolve(this.results);
    }
  }

  failed(_index: number, err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(err);
  }
}
