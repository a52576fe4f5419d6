/**
 * Applies the producer's serializers to a record as send() takes it, into the scratch
 * MeasuredRecord the record writer measures and writes. A serializer that throws rejects
 * the send with SerializationError before anything is appended.
 */
import type { Serializer, Serializers } from '../serdes.js';
import { SerializationError } from './errors.js';
import type { Bytes, HeadersInput, MeasuredRecord } from './record-writer.js';

interface RecordParts<K, V, H> {
  readonly topic: string;
  readonly key?: K | null;
  readonly value?: V | null;
  readonly headers?: HeadersInput<H>;
}

export function serializeInto<K, V, H>(out: MeasuredRecord, record: RecordParts<K, V, H>, serializers: Serializers<K, V, H>): void {
  const topic = record.topic;
  out.key = part(serializers.key, record.key, topic, 'key');
  out.value = part(serializers.value, record.value, topic, 'value');
  const headers = record.headers;
  const headerValue = serializers.headerValue;
  if (headers === undefined || headerValue === undefined) {
    out.headers = headers as HeadersInput | undefined;
    return;
  }
  const list: { key: string; value: Bytes }[] = [];
  if (Array.isArray(headers)) {
    for (const h of headers as ReadonlyArray<{ key: string; value: H | null }>) list.push({ key: h.key, value: part(headerValue, h.value, topic, 'headerValue') });
  } else {
    const obj = headers as Readonly<Record<string, H | null | undefined>>;
    for (const key in obj) list.push({ key, value: part(headerValue, obj[key], topic, 'headerValue') });
  }
  out.headers = list;
}

/** Null and absent stay null; without a serializer the part is sent as given (Buffer or string). */
function part<T>(serializer: Serializer<T> | undefined, data: T | null | undefined, topic: string, origin: 'key' | 'value' | 'headerValue'): Bytes {
  if (data === null || data === undefined) return null;
  if (serializer === undefined) return data as Bytes;
  let bytes: unknown;
  try {
    bytes = serializer(data, topic);
  } catch (err) {
    throw new SerializationError(topic, origin, err);
  }
  if (bytes === null || typeof bytes === 'string' || Buffer.isBuffer(bytes)) return bytes;
  throw new SerializationError(topic, origin, new TypeError(`the ${origin} serializer returned ${typeof bytes}, not a Buffer, string or null`));
}
