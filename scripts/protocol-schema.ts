/**
 * Reading Kafka's JSON message schemas into a model the code generator walks.
 * The schemas are not part of the repository (generate-protocol.ts says where it reads
 * them); only the facts the generator extracts (names, types, versions, defaults, tags)
 * end up in src/.
 */
import { readFileSync } from 'node:fs';

export type Range = [number, number] | null;
export const MAX_VERSION = 0x7fff;

export interface RawField {
  name: string;
  type: string;
  /** Left out by some tagged fields (then their taggedVersions). */
  versions?: string;
  nullableVersions?: string;
  taggedVersions?: string;
  flexibleVersions?: string;
  tag?: number;
  ignorable?: boolean;
  default?: string | number | boolean;
  fields?: RawField[];
}

export interface RawMessage {
  apiKey?: number;
  type: 'request' | 'response' | 'header' | 'data' | 'coordinator-key' | 'coordinator-value';
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: RawField[];
  commonStructs?: { name: string; versions: string; fields: RawField[] }[];
}

/** A schema file as a message model: Kafka's schema files carry `//` comment lines, which JSON does not allow. */
export function loadSchema(path: string): RawMessage {
  const text = readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('//'))
    .join('\n');
  return JSON.parse(text) as RawMessage;
}

export function parseRange(spec: string | undefined): Range {
  if (spec === undefined || spec === 'none') return null;
  if (spec.endsWith('+')) return [Number(spec.slice(0, -1)), MAX_VERSION];
  const dash = spec.indexOf('-');
  if (dash > 0) return [Number(spec.slice(0, dash)), Number(spec.slice(dash + 1))];
  return [Number(spec), Number(spec)];
}

export function intersect(a: Range, b: Range): Range {
  if (a === null || b === null) return null;
  const low = Math.max(a[0], b[0]);
  const high = Math.min(a[1], b[1]);
  return low <= high ? [low, high] : null;
}

export const PRIMITIVES = new Set([
  'bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64',
  'string', 'bytes', 'records', 'uuid',
]);

export function lowerFirst(name: string): string {
  return name.charAt(0).toLowerCase() + name.slice(1);
}

export function kebab(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
}
