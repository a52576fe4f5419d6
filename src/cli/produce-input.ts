/**
 * What one stdin line of `brook produce` becomes: in the default line mode the line is the
 * value (or "KEY SEP VALUE"); with `--input-format json` the line is a JSON object
 * {"key","value","headers","partition","timestamp"}, every field optional: key and value
 * strings or null (a null value is a tombstone), headers an object {"k":"v"}, a list of
 * pairs [["k","v"]] or a list of {"key","value"} (what `brook consume --format json`
 * prints), partition and timestamp integers ("topic" and "offset" are ignored). Keys and values are read as UTF-8, hex or
 * base64 (--key-encoding / --value-encoding; header values follow --value-encoding).
 */
import type { Encoding } from './record-format.js';
import { UsageError } from './options.js';

export interface InputHeader {
  readonly key: string;
  readonly value: Buffer | null;
}

export interface InputRecord {
  readonly key: Buffer | string | null;
  readonly value: Buffer | string | null;
  readonly headers: InputHeader[];
  readonly partition?: number;
  readonly timestamp?: number;
}

/** A line that cannot become a record; the command stops there (records before it are delivered). */
export class InputLineError extends Error {
  readonly code = 'ERR_INPUT_LINE' as const;
}

/** A string as `encoding` says; UTF-8 stays a string (the producer encodes it). */
export function decodeField(text: string, encoding: Encoding): Buffer | string {
  if (encoding === 'utf8') return text;
  if (encoding === 'hex' && !/^(?:[0-9a-fA-F]{2})*$/.test(text)) throw new InputLineError(`'${text}' is not hex`);
  if (encoding === 'base64' && !/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) throw new InputLineError(`'${text}' is not base64`);
  return Buffer.from(text, encoding);
}

/** `--header K=V` (repeatable): split at the first '='. */
export function parseHeaderOption(raw: string): InputHeader {
  const eq = raw.indexOf('=');
  if (eq <= 0) throw new UsageError(`--header expects KEY=VALUE, got '${raw}'`);
  return { key: raw.slice(0, eq), value: Buffer.from(raw.slice(eq + 1)) };
}

function nullableField(obj: Record<string, unknown>, name: string, encoding: Encoding): Buffer | string | null {
  const v = obj[name];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new InputLineError(`"${name}" must be a string or null`);
  return decodeField(v, encoding);
}

function headerValue(v: unknown, encoding: Encoding): Buffer | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') throw new InputLineError('header values must be strings or null');
  const decoded = decodeField(v, encoding);
  return typeof decoded === 'string' ? Buffer.from(decoded) : decoded;
}

function headersOf(raw: unknown, encoding: Encoding): InputHeader[] {
  if (raw === undefined || raw === null) return [];
  if (Array.isArray(raw)) {
    return raw.map((h: unknown) => {
      if (Array.isArray(h) && h.length === 2 && typeof h[0] === 'string') return { key: h[0], value: headerValue(h[1], encoding) };
      if (h !== null && typeof h === 'object' && typeof (h as { key?: unknown }).key === 'string') {
        return { key: (h as { key: string }).key, value: headerValue((h as { value?: unknown }).value, encoding) };
      }
      throw new InputLineError('"headers" entries must be ["key","value"] or {"key","value"}');
    });
  }
  if (typeof raw === 'object') return Object.entries(raw as Record<string, unknown>).map(([key, v]) => ({ key, value: headerValue(v, encoding) }));
  throw new InputLineError('"headers" must be an object or a list');
}

function integerField(obj: Record<string, unknown>, name: string): number | undefined {
  const v = obj[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new InputLineError(`"${name}" must be a non-negative integer`);
  return v;
}

/** "topic" and "offset" are accepted and ignored, so `brook consume --format json` output can be sent again. */
const JSON_FIELDS = new Set(['key', 'value', 'headers', 'partition', 'timestamp', 'topic', 'offset']);

/** One JSON line; throws InputLineError (the caller adds the line number). */
export function parseJsonRecord(line: string, keyEncoding: Encoding, valueEncoding: Encoding): InputRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    throw new InputLineError(`invalid JSON (${(err as Error).message})`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InputLineError('expected a JSON object');
  const obj = parsed as Record<string, unknown>;
  const unknown = Object.keys(obj).filter((k) => !JSON_FIELDS.has(k));
  if (unknown.length > 0) throw new InputLineError(`unknown field ${unknown.map((k) => `"${k}"`).join(', ')} (known: key, value, headers, partition, timestamp)`);
  return {
    key: nullableField(obj, 'key', keyEncoding),
    value: nullableField(obj, 'value', valueEncoding),
    headers: headersOf(obj['headers'], valueEncoding),
    partition: integerField(obj, 'partition'),
    timestamp: integerField(obj, 'timestamp'),
  };
}
