/**
 * Random message values driven by the generated schema descriptors: every field the
 * version carries gets a random value (by default never the field's default, so a codec
 * that drops a field is caught); fields the version lacks keep their defaults, so a
 * decoded value compares equal to the one that was encoded.
 */
import type { FieldSchema, FieldType, StructSchema } from '../../src/protocol/messages/runtime.js';

export type Random = () => number;

/** Small deterministic PRNG (mulberry32) so failures reproduce from the seed. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface RandomOptions {
  /** Probability of choosing null for a field that may be null. */
  nullChance?: number;
  /** Longest array. */
  maxItems?: number;
  /** Give fields outside the version a random value too (to test encode errors). */
}

const inRange = (r: readonly [number, number] | null, v: number): boolean => r !== null && v >= r[0] && v <= r[1];

export function defaultFor(field: FieldSchema): unknown {
  if (field.default === null) return null;
  const t = field.type;
  if (t.kind === 'array') return [];
  if (t.kind === 'struct') return defaultStruct(t.struct);
  const d = field.default;
  switch (t.type) {
    case 'bool': return d === true;
    case 'int64': return d === undefined ? 0n : BigInt(d as bigint | number | string);
    case 'string': return d === undefined ? '' : String(d);
    case 'uuid': return 'AAAAAAAAAAAAAAAAAAAAAA';
    case 'bytes': return Buffer.alloc(0);
    case 'records': return null;
    default: return d === undefined ? 0 : Number(d);
  }
}

export function defaultStruct(schema: StructSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) out[f.name] = defaultFor(f);
  return out;
}

function int(rand: Random, low: number, high: number): number {
  return low + Math.floor(rand() * (high - low + 1));
}

function randomString(rand: Random): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._é漢';
  let s = '';
  const n = int(rand, 1, 12);
  for (let i = 0; i < n; i++) s += alphabet[int(rand, 0, alphabet.length - 1)];
  return s;
}

function randomPrimitive(type: string, rand: Random): unknown {
  switch (type) {
    case 'bool': return true; // the only value that differs from the usual default (false)
    case 'int8': return int(rand, -128, 127);
    case 'int16': return int(rand, -32768, 32767);
    case 'uint16': return int(rand, 0, 65535);
    case 'int32': return int(rand, -2147483648, 2147483647);
    case 'uint32': return int(rand, 0, 4294967295);
    case 'int64': return (BigInt(int(rand, -2147483648, 2147483647)) << 32n) | BigInt(int(rand, 0, 4294967295));
    case 'float64': return (rand() - 0.5) * 1e6;
    case 'string': return randomString(rand);
    case 'uuid': {
      const b = Buffer.alloc(16);
      for (let i = 0; i < 16; i++) b[i] = int(rand, 0, 255);
      return b.toString('base64url');
    }
    case 'bytes':
    case 'records': {
      const b = Buffer.alloc(int(rand, 1, 24));
      for (let i = 0; i < b.length; i++) b[i] = int(rand, 0, 255);
      return b;
    }
    default: throw new Error(`unknown type ${type}`);
  }
}

function differsFromDefault(field: FieldSchema, value: unknown): boolean {
  const d = defaultFor(field);
  if (typeof value === 'bigint' || typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') {
    return value !== d;
  }
  return true;
}

function randomOf(field: FieldSchema, type: FieldType, version: number, rand: Random, opts: RandomOptions): unknown {
  if (type.kind === 'array') {
    const n = int(rand, 1, opts.maxItems ?? 3);
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) out.push(randomOf(field, type.element, version, rand, opts));
    return out;
  }
  if (type.kind === 'struct') return randomStruct(type.struct, version, rand, opts);
  if (type.type === 'bool' && field.default === true) return false;
  return randomPrimitive(type.type, rand);
}

export function randomField(field: FieldSchema, version: number, rand: Random, opts: RandomOptions = {}): unknown {
  if (inRange(field.nullableVersions, version) && rand() < (opts.nullChance ?? 0.1)) return null;
  for (;;) {
    const value = randomOf(field, field.type, version, rand, opts);
    if (differsFromDefault(field, value)) return value;
  }
}

export function randomStruct(schema: StructSchema, version: number, rand: Random, opts: RandomOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) {
    out[f.name] = inRange(f.versions, version) ? randomField(f, version, rand, opts) : defaultFor(f);
  }
  return out;
}
