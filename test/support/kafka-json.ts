/**
 * Brook's message values <-> the JSON form of Kafka's generated JsonConverters, driven by
 * the schema descriptors. Kafka's rules (see test/support/java/README.md): field names as in
 * our objects, int64 as exact integer literals, bytes/records as standard base64, uuid
 * as base64url text, every non-tagged field of the version present, tagged fields only
 * when not default.
 */
import type { FieldSchema, FieldType, StructSchema } from '../../src/protocol/messages/runtime.js';
import { defaultFor } from './random-message.js';

/** A JSON number kept as its source text, so int64 values survive parsing exactly. */
export class JsonNumber {
  constructor(readonly raw: string) {}
}

export type Json = null | boolean | string | JsonNumber | Json[] | { [key: string]: Json };

/** Raw JSON text, embedded as is by `stringify`. */
export class RawJson {
  constructor(readonly text: string) {}
}

const inRange = (r: readonly [number, number] | null, v: number): boolean => r !== null && v >= r[0] && v <= r[1];

export function stringify(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof RawJson) return value.text;
  if (value instanceof JsonNumber) return value.raw;
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'string') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(stringify).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stringify(v)}`).join(',')}}`;
}

function valueToKafka(type: FieldType, v: unknown): Json | RawJson {
  if (v === null) return null;
  if (type.kind === 'array') return (v as unknown[]).map((x) => valueToKafka(type.element, x) as Json);
  if (type.kind === 'struct') return structToKafkaObject(type.struct, -1, v as Record<string, unknown>);
  switch (type.type) {
    case 'bytes': case 'records': return (v as Buffer).toString('base64');
    case 'int64': return new JsonNumber((v as bigint).toString());
    case 'float64': {
      const n = v as number;
      return new RawJson(Number.isInteger(n) ? n.toFixed(1) : String(n));
    }
    case 'int8': case 'int16': case 'uint16': case 'int32': case 'uint32': return new JsonNumber(String(v));
    default: return v as Json;
  }
}

let currentVersion = 0;

function structToKafkaObject(schema: StructSchema, version: number, value: Record<string, unknown>): Json {
  const v = version < 0 ? currentVersion : version;
  const out: Record<string, Json> = {};
  for (const f of schema.fields) {
    if (!inRange(f.versions, v)) continue;
    out[f.name] = valueToKafka(f.type, value[f.name] === undefined ? defaultFor(f) : value[f.name]) as Json;
  }
  return out;
}

/** JSON text of `value` as Kafka's JsonConverter for `schema` reads it at `version`. */
export function toKafkaJson(schema: StructSchema, version: number, value: unknown): string {
  currentVersion = version;
  return stringify(structToKafkaObject(schema, version, value as Record<string, unknown>));
}

function kafkaToValue(field: FieldSchema, type: FieldType, j: Json): unknown {
  if (j === null) return null;
  if (type.kind === 'array') return (j as Json[]).map((x) => kafkaToValue(field, type.element, x));
  if (type.kind === 'struct') return fromKafkaObject(type.struct, currentVersion, j as Record<string, Json>);
  switch (type.type) {
    case 'bytes': case 'records': return Buffer.from(j as string, 'base64');
    case 'int64': return BigInt((j as JsonNumber).raw);
    case 'bool': case 'string': case 'uuid': return j;
    default: return Number((j as JsonNumber).raw);
  }
}

function fromKafkaObject(schema: StructSchema, version: number, j: Record<string, Json>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) {
    out[f.name] = inRange(f.versions, version) && f.name in j ? kafkaToValue(f, f.type, j[f.name]!) : defaultFor(f);
  }
  return out;
}

/** Brook's value of Kafka's JSON (as parsed by `parseJson`) for `schema` at `version`. */
export function fromKafkaJson(schema: StructSchema, version: number, j: Json): Record<string, unknown> {
  currentVersion = version;
  return fromKafkaObject(schema, version, j as Record<string, Json>);
}

/** JSON.parse that keeps numbers as their text (`JsonNumber`). */
export function parseJson(text: string): Json {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const value = (): Json => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: Record<string, Json> = {};
      ws();
      if (text[i] === '}') { i++; return obj; }
      for (;;) {
        ws();
        const key = str();
        ws();
        i++; // ':'
        obj[key] = value();
        ws();
        if (text[i++] === '}') return obj;
      }
    }
    if (c === '[') {
      i++;
      const arr: Json[] = [];
      ws();
      if (text[i] === ']') { i++; return arr; }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i++] === ']') return arr;
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) { i += 4; return true; }
    if (text.startsWith('false', i)) { i += 5; return false; }
    if (text.startsWith('null', i)) { i += 4; return null; }
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (!m) throw new SyntaxError(`bad JSON at ${i}: ${text.slice(i, i + 20)}`);
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const result = value();
  return result;
}
