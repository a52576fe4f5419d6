/**
 * How `brook consume` prints a record: `value` (the value alone), `json` (one object per
 * record) or a template in kcat's `-f` syntax (`%k %s %p %o %T %h`, escapes \n \t \r \\).
 * Keys, values and header values are printed as UTF-8, hex or base64, so binary records
 * survive the trip through a text pipe. A template is compiled once into a list of parts;
 * printing a record only concatenates them. Records come as RawRecords (spans of the fetched
 * bytes): a UTF-8 key or value is copied from the fetch response to the output buffer
 * without a Buffer, string or record object in between.
 */
import { recordHeaders, type RawRecord } from '../client/consumer/record-decoding.js';
import { UsageError } from './options.js';

export type Encoding = 'utf8' | 'hex' | 'base64';
const ENCODINGS: readonly Encoding[] = ['utf8', 'hex', 'base64'];

export function parseEncoding(option: string, raw: string | undefined): Encoding {
  if (raw === undefined) return 'utf8';
  const name = raw === 'utf-8' ? 'utf8' : raw;
  if (!(ENCODINGS as readonly string[]).includes(name)) throw new UsageError(`--${option} must be one of ${ENCODINGS.join(', ')}, got '${raw}'`);
  return name as Encoding;
}

export interface Encodings {
  readonly key: Encoding;
  /** Also used for header values. */
  readonly value: Encoding;
}

/**
 * Where a formatter writes: UTF-8 text, text known to be ASCII (numbers, hex, base64: no
 * encoding pass), or raw bytes (a UTF-8 key or value is copied as it is, never decoded).
 */
export interface RecordSink {
  text(s: string): void;
  ascii(s: string): void;
  /** buf[start, start + length) */
  bytes(buf: Buffer, start: number, length: number): void;
}

export type RecordFormatter = (r: RawRecord, sink: RecordSink) => void;

/** A key, value or header value: `length` -1 is null, which prints nothing. */
function field(buf: Buffer, start: number, length: number, encoding: Encoding, sink: RecordSink): void {
  if (length < 0) return;
  if (encoding === 'utf8') sink.bytes(buf, start, length);
  else sink.ascii(buf.toString(encoding, start, start + length));
}

function fieldString(buf: Buffer, start: number, length: number, encoding: Encoding): string | null {
  return length < 0 ? null : buf.toString(encoding, start, start + length);
}

/** Each record's value on its own line (an empty line for a null value). */
export function valueFormatter(enc: Encodings): RecordFormatter {
  const encoding = enc.value;
  return (r, sink) => {
    field(r.buffer, r.valueStart, r.valueLength, encoding, sink);
    sink.ascii('\n');
  };
}

/**
 * One JSON object per line: {"topic","partition","offset","key","value","timestamp"}, and
 * "headers":[{"key","value"}] after them when the record has headers (records without
 * headers keep exactly the documented keys).
 */
export function jsonFormatter(enc: Encodings): RecordFormatter {
  return (r, sink) => {
    const out: Record<string, unknown> = {
      topic: r.topic, partition: r.partition, offset: r.offset,
      key: fieldString(r.buffer, r.keyStart, r.keyLength, enc.key),
      value: fieldString(r.buffer, r.valueStart, r.valueLength, enc.value),
      timestamp: r.timestamp,
    };
    if (r.headerCount > 0) out.headers = recordHeaders(r).map((h) => ({ key: h.key, value: h.value === null ? null : h.value.toString(enc.value) }));
    sink.text(`${JSON.stringify(out)}\n`);
  };
}

type Part = string | RecordFormatter;

/** kcat's `%h`: key=value pairs joined by ','; a null header value prints as the key alone. */
function headers(r: RawRecord, encoding: Encoding, sink: RecordSink): void {
  if (r.headerCount === 0) return;
  const all = recordHeaders(r);
  for (let i = 0; i < all.length; i++) {
    const h = all[i]!;
    if (i > 0) sink.ascii(',');
    sink.text(h.key);
    if (h.value === null) continue;
    sink.ascii('=');
    field(h.value, 0, h.value.length, encoding, sink);
  }
}

function tokenPart(token: string, enc: Encodings): RecordFormatter {
  switch (token) {
    case 't': return (r, sink) => sink.text(r.topic);
    case 'p': return (r, sink) => sink.ascii(String(r.partition));
    case 'o': return (r, sink) => sink.ascii(String(r.offset));
    case 'k': return (r, sink) => field(r.buffer, r.keyStart, r.keyLength, enc.key, sink);
    case 'K': return (r, sink) => sink.ascii(String(r.keyLength));
    case 's': return (r, sink) => field(r.buffer, r.valueStart, r.valueLength, enc.value, sink);
    case 'S': return (r, sink) => sink.ascii(String(r.valueLength));
    case 'T': return (r, sink) => sink.ascii(String(r.timestamp));
    case 'h': return (r, sink) => headers(r, enc.value, sink);
    default: throw new UsageError(`unknown token '%${token}' in --format (known: %t %p %o %k %K %s %S %T %h %%)`);
  }
}

const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '0': '\0' };

/**
 * A kcat-style template: %t topic, %p partition, %o offset, %k key, %K key length, %s value,
 * %S value length, %T timestamp (ms), %h headers (k=v,k2=v2), %% a percent sign; \n \t \r
 * \0 \\ escapes. Null keys and values print as empty strings and their lengths as -1, as
 * kcat's. No newline is added: end the template with \n.
 */
export function templateFormatter(template: string, enc: Encodings): RecordFormatter {
  const parts: Part[] = [];
  let literal = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '%' || c === '\\') {
      const next = template[i + 1];
      if (next === undefined) throw new UsageError(`--format ends with a lone '${c}'`);
      i++;
      if (c === '%' && next === '%') literal += '%';
      else if (c === '%') {
        if (literal !== '') parts.push(literal);
        literal = '';
        parts.push(tokenPart(next, enc));
      } else {
        const escaped = ESCAPES[next];
        if (escaped === undefined) throw new UsageError(`unknown escape '\\${next}' in --format (known: \\n \\t \\r \\0 \\\\)`);
        literal += escaped;
      }
    } else {
      literal += c;
    }
  }
  if (literal !== '') parts.push(literal);
  if (parts.length === 0) return () => undefined;
  return (r, sink) => {
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (typeof p === 'string') sink.text(p);
      else p(r, sink);
    }
  };
}

/** `--format`: json, value, or else a template. */
export function recordFormatter(format: string | undefined, enc: Encodings): RecordFormatter {
  if (format === undefined || format === 'value') return valueFormatter(enc);
  if (format === 'json') return jsonFormatter(enc);
  // A bare word is a mistyped format name rather than a template that prints it verbatim.
  if (/^[A-Za-z]+$/.test(format)) throw new UsageError(`--format must be json, value or a template with %-tokens such as '%k %s\\n', got '${format}'`);
  return templateFormatter(format, enc);
}
