/**
 * Serializers and deserializers: how a producer turns typed keys, values and header
 * values into record bytes, and a consumer turns them back (Java's Serializer and
 * Deserializer; @platformatic/kafka's `serializers` / `deserializers` options, whose
 * shape the options follow). A client without them sends and gives out raw bytes.
 *
 * - null stays null: a null (or absent) key, value or header value is written as null
 *   without calling the serializer, and a null read from a record is given out as null
 *   without calling the deserializer (Java passes null to both; its built-ins return it).
 * - Header keys are strings, as in Kafka's record format and Java's `Header.key()`: only
 *   header values have a serde.
 * - A serializer may return a string, written as UTF-8 straight into the batch (no
 *   temporary Buffer).
 * - A deserializer gets a view of the fetched bytes: copy it (Buffer.from) to keep it
 *   beyond the record's processing without pinning the whole fetch response.
 */
import type { ConsumerRecordHeader } from './consumer/record-decoding.js';
import { ConfigError } from './errors.js';

/** Turns a value into record bytes; `topic` is the record's topic. Throwing fails the send with SerializationError. */
export type Serializer<T> = (data: T, topic: string) => Buffer | string | null;

/**
 * Turns record bytes into a value; `headers` are the record's raw headers. Throwing makes
 * poll() throw RecordDeserializationError (the consumer stays at that record).
 */
export type Deserializer<T> = (data: Buffer, topic: string, headers: readonly ConsumerRecordHeader<Buffer>[]) => T;

/** Producer option `serializers`; each one left out sends that part as raw bytes (Buffer or string). */
export interface Serializers<K, V, H> {
  readonly key?: Serializer<K>;
  readonly value?: Serializer<V>;
  readonly headerValue?: Serializer<H>;
}

/** Consumer option `deserializers`; each one left out gives that part out as a Buffer. */
export interface Deserializers<K, V, H> {
  readonly key?: Deserializer<K>;
  readonly value?: Deserializer<V>;
  readonly headerValue?: Deserializer<H>;
}

/** Raw bytes: a Buffer as it is (what a client without serializers does). */
export const bufferSerializer: Serializer<Buffer> = (data) => {
  if (!Buffer.isBuffer(data)) throw new TypeError(`expected a Buffer, got ${typeof data}`);
  return data;
};

/** Raw bytes: the fetched Buffer as it is. */
export const bufferDeserializer: Deserializer<Buffer> = (data) => data;

/** UTF-8 text (Java's StringSerializer). */
export const stringSerializer: Serializer<string> = (data) => {
  if (typeof data !== 'string') throw new TypeError(`expected a string, got ${typeof data}`);
  return data;
};

/** UTF-8 text (Java's StringDeserializer); malformed sequences become U+FFFD, as Java's decoder does. */
export const stringDeserializer: Deserializer<string> = (data) => data.toString('utf8');

/** JSON text in UTF-8. Values JSON cannot represent (undefined, functions, bigint) fail the send. */
export function jsonSerializer<T = unknown>(): Serializer<T> {
  return (data) => {
    const text = JSON.stringify(data) as string | undefined;
    if (text === undefined) throw new TypeError(`${typeof data} has no JSON representation`);
    return text;
  };
}

/** JSON text in UTF-8; the type parameter is a promise the caller makes, not a check. */
export function jsonDeserializer<T = unknown>(): Deserializer<T> {
  return (data) => JSON.parse(data.toString('utf8')) as T;
}

/** Strings for key, value and header values. */
export const stringSerializers: Serializers<string, string, string> = Object.freeze({
  key: stringSerializer, value: stringSerializer, headerValue: stringSerializer,
});

export const stringDeserializers: Deserializers<string, string, string> = Object.freeze({
  key: stringDeserializer, value: stringDeserializer, headerValue: stringDeserializer,
});

/** The `serializers` or `deserializers` option checked; null when it sets none (the client then skips the step). */
export function resolveSerdes<T extends Serializers<never, never, never> | Deserializers<unknown, unknown, unknown>>(
  option: 'serializers' | 'deserializers', serdes: T | undefined,
): T | null {
  if (serdes === undefined || serdes === null) return null;
  if (typeof serdes !== 'object') throw new ConfigError(`${option} must be an object { key?, value?, headerValue? }`);
  for (const part of ['key', 'value', 'headerValue'] as const) {
    if (serdes[part] !== undefined && typeof serdes[part] !== 'function') throw new ConfigError(`${option}.${part} must be a function`);
  }
  return serdes.key || serdes.value || serdes.headerValue ? serdes : null;
}
