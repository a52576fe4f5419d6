import { CorruptRecordError } from './errors.js';

/*
 * Control batches (attribute bit 5) carry one record whose key is
 *   version int16 (0) | type int16
 * and, for transaction markers, whose value is
 *   version int16 (0) | coordinatorEpoch int32.
 * Consumers in read_committed mode use them to drop aborted data; they are never
 * returned to applications.
 */
export enum ControlRecordType {
  Abort = 0,
  Commit = 1,
}

export interface ControlRecordKey {
  version: number;
  /** A ControlRecordType, or a newer type (KRaft uses 2 and up) this code does not know. */
  type: number;
}

export interface EndTxnMarker {
  version: number;
  coordinatorEpoch: number;
}

const CONTROL_KEY_SIZE = 4;
const END_TXN_MARKER_SIZE = 6;

export function encodeControlRecordKey(type: number, version = 0): Buffer {
  const key = Buffer.allocUnsafe(CONTROL_KEY_SIZE);
  key.writeInt16BE(version, 0);
  key.writeInt16BE(type, 2);
  return key;
}

/** Like Java's ControlRecordType.parse: later versions may append fields, which are ignored. */
export function decodeControlRecordKey(key: Buffer | null): ControlRecordKey {
  if (key === null || key.length < CONTROL_KEY_SIZE) {
    throw new CorruptRecordError('invalid-control-record', `control record key needs ${CONTROL_KEY_SIZE} bytes, has ${key?.length ?? 'null'}`);
  }
  const version = key.readInt16BE(0);
  if (version < 0) throw new CorruptRecordError('invalid-control-record', `invalid control record version ${version}`);
  return { version, type: key.readInt16BE(2) };
}

export function encodeEndTxnMarker(coordinatorEpoch: number, version = 0): Buffer {
  const value = Buffer.allocUnsafe(END_TXN_MARKER_SIZE);
  value.writeInt16BE(version, 0);
  value.writeInt32BE(coordinatorEpoch, 2);
  return value;
}

export function decodeEndTxnMarker(value: Buffer | null): EndTxnMarker {
  if (value === null || value.length < END_TXN_MARKER_SIZE) {
    throw new CorruptRecordError('invalid-control-record', `transaction marker needs ${END_TXN_MARKER_SIZE} bytes, has ${value?.length ?? 'null'}`);
  }
  const version = value.readInt16BE(0);
  if (version < 0) throw new CorruptRecordError('invalid-control-record', `invalid transaction marker version ${version}`);
  return { version, coordinatorEpoch: value.readInt32BE(2) };
}
