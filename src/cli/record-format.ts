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
  /** An integer in decimal, as String(n) writes it. */
  integer(n: number): void;
}

export type RecordFormatter = (r: RawRecord, sink: RecordSink) => void;

/** A key, value or header value: `length` -1 is null, which prints nothing. */
function field(buf: Buffer, start: number, length: number, encoding: Encoding, sink: RecordSink): void {
  if (length < 0) return;
  if (encoding === 'utf8') sink.bytes(buf, start, length);
  else sink.ascii(buf.toString(encoding, start, start + length));
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
  // Written piece by piece (JSON.stringify's output, without its per-record object and string).
  let topic: string | null = null;
  let opening = Buffer.alloc(0);
  return (r, sink) => {
    if (r.topic !== topic) {
      topic = r.topic;
      opening = Buffer.from(`{"topic":${JSON.stringify(topic)},"partition":`);
    }
    sink.bytes(opening, 0, opening.length);
    sink.integer(r.partition);
    sink.ascii(',"offset":');
    sink.integer(r.offset);
    sink.ascii(',"key":');
    jsonField(r.buffer, r.keyStart, r.keyLength, enc.key, sink);
    sink.ascii(',"value":');
    jsonField(r.buffer, r.valueStart, r.valueLength, enc.value, sink);
    sink.ascii(',"timestamp":');
    sink.integer(r.timestamp);
    if (r.headerCount > 0) {
      const headers = recordHeaders(r).map((h) => ({ key: h.key, value: h.value === null ? null : h.value.toString(enc.value) }));
      sink.text(`,"headers":${JSON.stringify(headers)}`);
    }
    sink.ascii('}\n');
  };
}

/** A key or value as a JSON string (or null), as JSON.stringify writes it. */
function jsonField(buf: Buffer, start: number, length: number, encoding: Encoding, sink: RecordSink): void {
  if (length < 0) {
    sink.ascii('null');
  } else if (encoding !== 'utf8') {
    // hex and base64 need no escaping.
    sink.ascii(`"${buf.toString(encoding, start, start + length)}"`);
  } else if (plainAscii(buf, start, length)) {
    sink.ascii('"');
    sink.bytes(buf, start, length);
    sink.ascii('"');
  } else {
    sink.text(JSON.stringify(buf.toString('utf8', start, start + length)));
  }
}

/** Printable ASCII without '"' and '\\': bytes JSON.stringify leaves as they are. */
function plainAscii(buf: Buffer, start: number, length: number): boolean {
  for (let i = start, end = start + length; i < end; i++) {
    const b = buf[i]!;
    if (b < 0x20 || b > 0x7e || b === 0x22 || b === 0x5c) return false;
  }
  return true;
}

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
    case 't': {
      let topic: string | null = null;
      let bytes = Buffer.alloc(0);
      return (r, sink) => {
        if (r.topic !== topic) bytes = Buffer.from(topic = r.topic);
        sink.bytes(bytes, 0, bytes.length);
      };
    }
    case 'p': return (r, sink) => sink.integer(r.partition);
    case 'o': return (r, sink) => sink.integer(r.offset);
    case 'k': return (r, sink) => field(r.buffer, r.keyStart, r.keyLength, enc.key, sink);
    case 'K': return (r, sink) => sink.integer(r.keyLength);
    case 's': return (r, sink) => field(r.buffer, r.valueStart, r.valueLength, enc.value, sink);
    case 'S': return (r, sink) => sink.integer(r.valueLength);
    case 'T': return (r, sink) => sink.integer(r.timestamp);
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
  const parts: RecordFormatter[] = [];
  let literal = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i]!;
    if (c === '%' || c === '\\') {
      const next = template[i + 1];
      if (next === undefined) throw new UsageError(`--format ends with a lone '${c}'`);
      i++;
      if (c === '%' && next === '%') literal += '%';
      else if (c === '%') {
        if (literal !== '') parts.push(literalPart(literal));
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
  if (literal !== '') parts.push(literalPart(literal));
  if (parts.length === 0) return () => undefined;
  return (r, sink) => {
    for (let i = 0; i < parts.length; i++) parts[i]!(r, sink);
  };
}

/** Template text, encoded once. */
function literalPart(text: string): RecordFormatter {
  const bytes = Buffer.from(text);
  return (_r, sink) => sink.bytes(bytes, 0, bytes.length);
}

/** `--format`: json, value, or else a template. */
export function recordFormatter(format: string | undefined, enc: Encodings): RecordFormatter {
  if (format === undefined || format === 'value') return valueFormatter(enc);
  if (format === 'json') return jsonFormatter(enc);
  // A bare word is a mistyped format name rather than a template that prints it verbatim.
  if (/^[A-Za-z]+$/.test(format)) throw new UsageError(`--format must be json, value or a template with %-tokens such as '%k %s\\n', got '${format}'`);
  return templateFormatter(format, enc);
}
