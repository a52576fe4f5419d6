/**
 * Shared pieces the generated message codecs call: the codec interface, the schema
 * descriptors they export, and the few helpers that would otherwise be repeated in every
 * generated file (arrays, tagged-field sections).
 */
import { Reader } from '../primitives/reader.js';
import { Writer } from '../primitives/writer.js';
import { ProtocolDecodeError, ProtocolEncodeError } from '../primitives/decode-error.js';

/** A tagged field this version does not know, kept so a re-encode reproduces it. */
export interface RawTaggedField {
  readonly tag: number;
  readonly data: Buffer;
}

/** Inclusive version range; `null` when a property applies to no version. */
export type VersionRange = readonly [low: number, high: number];

export type PrimitiveType =
  | 'bool' | 'int8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'float64'
  | 'string' | 'bytes' | 'records' | 'uuid';

export type FieldType =
  | { readonly kind: 'primitive'; readonly type: PrimitiveType }
  | { readonly kind: 'struct'; readonly struct: StructSchema }
  | { readonly kind: 'array'; readonly element: FieldType };

/** The facts of one field, as the schema states them. */
export interface FieldSchema {
  /** Property name in Brook's objects (camelCase of the schema name). */
  readonly name: string;
  readonly type: FieldType;
  readonly versions: VersionRange | null;
  readonly nullableVersions: VersionRange | null;
  readonly taggedVersions: VersionRange | null;
  readonly tag: number | null;
  readonly ignorable: boolean;
  /** Field-level override of the message's flexible versions (only the request header has one). */
  readonly flexibleVersions?: VersionRange | null;
  /** Default as the schema states it: number/bigint/boolean/string, `null`, or undefined for the type's zero. */
  readonly default?: number | bigint | boolean | string | null;
}

export interface StructSchema {
  readonly name: string;
  readonly fields: readonly FieldSchema[];
}

/** A generated codec for one message (request, response, header or data payload). */
export interface MessageCodec<T> {
  readonly name: string;
  /** -1 for payloads that are not API messages (headers, consumer protocol, records). */
  readonly apiKey: number;
  readonly lowestVersion: number;
  readonly highestVersion: number;
  /** First flexible version, or null when no version is flexible. */
  readonly flexibleFrom: number | null;
  readonly schema: StructSchema;
  write(w: Writer, version: number, data: T): void;
  read(r: Reader, version: number): T;
  encode(data: T, version: number): Buffer;
  decode(buf: Buffer, version: number): T;
}

export function defineCodec<T>(
  spec: Omit<MessageCodec<T>, 'encode' | 'decode' | 'write' | 'read'> & {
    write(w: Writer, version: number, data: T): void;
    read(r: Reader, version: number): T;
  },
): MessageCodec<T> {
  const { lowestVersion, highestVersion, name } = spec;
  const write = (w: Writer, version: number, data: T): void => {
    if (version < lowestVersion || version > highestVersion) {
      throw new ProtocolEncodeError(`${name} has no version ${version} (${lowestVersion}-${highestVersion})`);
    }
    spec.write(w, version, data);
  };
  const read = (r: Reader, version: number): T => {
    if (version < lowestVersion || version > highestVersion) {
      throw new ProtocolDecodeError(`${name} has no version ${version} (${lowestVersion}-${highestVersion})`, r.offset);
    }
    return spec.read(r, version);
  };
  return {
    name,
    apiKey: spec.apiKey,
    lowestVersion,
    highestVersion,
    flexibleFrom: spec.flexibleFrom,
    schema: spec.schema,
    write,
    read,
    encode(data: T, version: number): Buffer {
      const w = new Writer();
      write(w, version, data);
      return w.toBuffer();
    },
    decode(buf: Buffer, version: number): T {
      return read(new Reader(buf), version);
    },
  };
}

export const EMPTY_BUFFER: Buffer = Buffer.alloc(0);
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';

export function unsupported(message: string, field: string, version: number): never {
  throw new ProtocolEncodeError(`${message}.${field} cannot be sent at version ${version}`);
}

export function nullNotAllowed(message: string, field: string, version: number): never {
  throw new ProtocolEncodeError(`${message}.${field} cannot be null at version ${version}`);
}

export function readArray<T>(
  r: Reader,
  count: number,
  version: number,
  readElement: (r: Reader, version: number) => T,
): T[] {
  const out = new Array<T>(count);
  for (let i = 0; i < count; i++) out[i] = readElement(r, version);
  return out;
}

export function writeArray<T>(
  w: Writer,
  items: readonly T[],
  version: number,
  flexible: boolean,
  writeElement: (w: Writer, version: number, item: T) => void,
): void {
  if (flexible) w.writeCompactArrayLength(items.length);
  else w.writeArrayLength(items.length);
  for (let i = 0; i < items.length; i++) writeElement(w, version, items[i]!);
}

/** Number of tagged fields that follow; each takes at least two bytes (tag and size). */
export function readTaggedFieldCount(r: Reader): number {
  const count = r.readUnsignedVarint();
  if (count * 2 > r.remaining) r.fail(`${count} tagged fields, ${r.remaining} bytes remain`);
  return count;
}

export function readTaggedFieldSize(r: Reader): number {
  const size = r.readUnsignedVarint();
  if (size > r.remaining) r.fail(`tagged field of ${size} bytes, ${r.remaining} remain`);
  return size;
}

export function expectTaggedFieldEnd(r: Reader, end: number, tag: number): void {
  if (r.offset !== end) r.fail(`tagged field ${tag} did not fill its declared size`);
}

/** Writes a tag section with no known tags set: the common, allocation-free case. */
export function writeUnknownTaggedFields(w: Writer, unknown: readonly RawTaggedField[] | undefined): void {
  if (unknown === undefined || unknown.length === 0) {
    w.writeUnsignedVarint(0);
    return;
  }
  writeTaggedSection(w, [], unknown);
}

/**
 * Known fields (already serialized) merged with unknown ones in ascending tag order,
 * which is how Kafka writes them.
 */
export function writeTaggedSection(
  w: Writer,
  known: RawTaggedField[],
  unknown: readonly RawTaggedField[] | undefined,
): void {
  const all = unknown && unknown.length > 0 ? known.concat(unknown).sort((a, b) => a.tag - b.tag) : known;
  w.writeUnsignedVarint(all.length);
  for (const field of all) {
    w.writeUnsignedVarint(field.tag);
    w.writeUnsignedVarint(field.data.length);
    w.writeRaw(field.data);
  }
}

/** Serializes one tagged value so its size can precede it. */
export function taggedValue(tag: number, write: (w: Writer) => void): RawTaggedField {
  const w = new Writer(64);
  write(w);
  return { tag, data: w.toBuffer() };
}
