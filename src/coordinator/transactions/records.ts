/**
 * `__transaction_state` records in Kafka's format (TransactionLog): the key is the int16
 * record type (0, the only one, record-types.ts) and TransactionLogKey (the transactional id); the value is the int16 value
 * version and TransactionLogValue, or null (a tombstone) once the id is expired (Dead).
 * Brook writes value version 1 (flexible), what Kafka writes once transaction.version is
 * at least 1; it reads 0 and 1.
 */
import { Reader } from '../../protocol/primitives/reader.js';
import { Writer } from '../../protocol/primitives/writer.js';
import { TransactionLogKey, TransactionLogValue, TransactionStateRecordType } from '../../protocol/coordinator-records/index.js';
import type { CoordinatorRecord } from '../types.js';
import { partitionKey, TransactionState, type TopicPartition, type TransitMetadata } from './state.js';

const RECORD_TYPE = TransactionStateRecordType.TransactionLog;
/** The key body's version: 0, the only one. */
const KEY_VERSION = 0;
export const TRANSACTION_LOG_VALUE_VERSION = 1;

export function encodeTransactionRecord(transactionalId: string, transit: TransitMetadata): CoordinatorRecord {
  const key = new Writer(32);
  key.writeInt16(RECORD_TYPE);
  TransactionLogKey.write(key, KEY_VERSION, { transactionalId });
  if (transit.state === TransactionState.Dead) return { key: key.toBuffer(), value: null };
  const byTopic = new Map<string, number[]>();
  for (const { topic, partition } of transit.partitions.values()) {
    const ids = byTopic.get(topic);
    if (ids === undefined) byTopic.set(topic, [partition]);
    else ids.push(partition);
  }
  const data: TransactionLogValue = {
    producerId: transit.producerId,
    previousProducerId: transit.prevProducerId,
    nextProducerId: transit.nextProducerId,
    producerEpoch: transit.producerEpoch,
    nextProducerEpoch: -1,
    transactionTimeoutMs: transit.txnTimeoutMs,
    transactionStatus: transit.state,
    // Kafka writes no partition list (null) for Empty.
    transactionPartitions: transit.state === TransactionState.Empty ? null : [...byTopic].map(([topic, partitionIds]) => ({ topic, partitionIds })),
    transactionLastUpdateTimestampMs: BigInt(transit.txnLastUpdateTimestamp),
    transactionStartTimestampMs: BigInt(transit.txnStartTimestamp),
    clientTransactionVersion: transit.clientTransactionVersion,
  };
  const value = new Writer(64);
  value.writeInt16(TRANSACTION_LOG_VALUE_VERSION);
  TransactionLogValue.write(value, TRANSACTION_LOG_VALUE_VERSION, data);
  return { key: key.toBuffer(), value: value.toBuffer() };
}

export interface DecodedTransactionRecord {
  readonly transactionalId: string;
  /** null: a tombstone. */
  readonly transit: TransitMetadata | null;
}

/** Kafka's TransactionLog.readTxnRecordKey/readTxnRecordValue; throws on an unknown version. */
export function decodeTransactionRecord(key: Buffer, value: Buffer | null): DecodedTransactionRecord {
  const kr = new Reader(key);
  const recordType = kr.readInt16();
  if (recordType !== RECORD_TYPE) throw new Error(`unknown __transaction_state record type ${recordType}`);
  const { transactionalId } = TransactionLogKey.read(kr, KEY_VERSION);
  if (value === null) return { transactionalId, transit: null };
  const vr = new Reader(value);
  const version = vr.readInt16();
  if (version < 0 || version > TRANSACTION_LOG_VALUE_VERSION) throw new Error(`unknown __transaction_state value version ${version}`);
  const v = TransactionLogValue.read(vr, version);
  const partitions = new Map<string, TopicPartition>();
  for (const { topic, partitionIds } of v.transactionPartitions ?? []) {
    for (const partition of partitionIds) partitions.set(partitionKey(topic, partition), { topic, partition });
  }
  const state = v.transactionStatus as TransactionState;
  if (!(state in TransactionState)) throw new Error(`unknown transaction status ${v.transactionStatus} for ${transactionalId}`);
  return {
    transactionalId,
    transit: {
      producerId: v.producerId,
      prevProducerId: v.previousProducerId ?? -1n,
      nextProducerId: v.nextProducerId ?? -1n,
      producerEpoch: v.producerEpoch,
      // Not in the log: Kafka's loader sets NO_PRODUCER_EPOCH too.
      lastProducerEpoch: -1,
      txnTimeoutMs: v.transactionTimeoutMs,
      state,
      partitions,
      txnStartTimestamp: Number(v.transactionStartTimestampMs),
      txnLastUpdateTimestamp: Number(v.transactionLastUpdateTimestampMs),
      clientTransactionVersion: v.clientTransactionVersion ?? 0,
    },
  };
}
