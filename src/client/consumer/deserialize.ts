/**
 * Applies the consumer's deserializers to one decoded record. A deserializer that throws
 * becomes RecordDeserializationError naming the record (Java's
 * RecordDeserializationException): the caller leaves the position at that record, so
 * nothing past it is given out or committed until the application seeks past it.
 */
import type { Deserializers } from '../serdes.js';
import { RecordDeserializationError, type DeserializationOrigin } from './errors.js';
import type { ConsumerRecord, ConsumerRecordHeader } from './record-decoding.js';

export type AnyDeserializers = Deserializers<unknown, unknown, unknown>;

/** The record with its key, value and header values deserialized (null stays null). */
export function deserializeRecord(d: AnyDeserializers, raw: ConsumerRecord): ConsumerRecord<unknown, unknown, unknown> {
  const { topic, headers } = raw;
  let origin: DeserializationOrigin = 'key';
  try {
    const key = raw.key !== null && d.key ? d.key(raw.key, topic, headers) : raw.key;
    origin = 'value';
    const value = raw.value !== null && d.value ? d.value(raw.value, topic, headers) : raw.value;
    origin = 'headerValue';
    const headerValue = d.headerValue;
    let out: ConsumerRecordHeader<unknown>[] = headers;
    if (headerValue && headers.length > 0) {
      out = new Array<ConsumerRecordHeader<unknown>>(headers.length);
      for (let i = 0; i < headers.length; i++) {
        const h = headers[i]!;
        out[i] = { key: h.key, value: h.value === null ? null : headerValue(h.value, topic, headers) };
      }
    }
    return { ...raw, key, value, headers: out };
  } catch (cause) {
    throw new RecordDeserializationError(raw, origin, cause);
  }
}
