/**
 * A small leveled logger writing one line per event to stderr (stdout is reserved for
 * what commands print, such as the broker's "listening on" line). Level from the
 * BROOK_LOG_LEVEL environment variable or the constructor; format from BROOK_LOG_FORMAT or
 * the constructor:
 *
 * - `text`: logfmt, `time=... level=info logger=broker msg="member joined" group=g ...`.
 *   A value is quoted (with `\"`, `\\`, `\n`, `\r`, `\t` escaped) when it is empty or holds
 *   a space, a quote, `=` or a control character, as go-logfmt does, so any logfmt parser
 *   (Loki, Vector, lnav, `hl`) splits it back into its fields.
 * - `json`: one object per line, `{"time","level","logger","msg", ...fields}`.
 *
 * Errors render as their message, their code (a Node errno, a Kafka error code) and the
 * messages of their cause chain: `err="..." err_code=... cause="..."` in text,
 * `{"message","code","cause":{...}}` in JSON.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export type LogFormat = 'text' | 'json';

export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(name: string): Logger;
}

/** One event, as a formatter sees it. */
export interface LogRecord {
  readonly time: Date;
  readonly level: Exclude<LogLevel, 'silent'>;
  readonly logger: string;
  readonly msg: string;
  readonly fields?: Record<string, unknown>;
}

/** How deep a cause chain is followed (a cycle ends it too). */
const MAX_CAUSES = 8;

/** Whether a logfmt value must be quoted (go-logfmt: empty, space, `=`, `"`, a control character). */
function needsQuotes(s: string): boolean {
  if (s === '') return true;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c === 0x22 || c === 0x3d || c === 0x7f) return true;
  }
  return false;
}

/** A logfmt value: as it is, or quoted with `\`, `"` and control characters escaped. */
export function logfmtValue(s: string): string {
  if (!needsQuotes(s)) return s;
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    const c = ch.charCodeAt(0);
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (c < 0x20 || c === 0x7f) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** The code an error carries: a Kafka error code (StorageError), or a Node errno (`ENOSPC`). */
function errorCode(err: Error): string | number | undefined {
  const e = err as Error & { code?: unknown; errorCode?: unknown };
  if (typeof e.errorCode === 'number') return e.errorCode;
  if (typeof e.code === 'string' || typeof e.code === 'number') return e.code;
  return undefined;
}

/** The messages of an error's causes, outermost first. */
function causeMessages(err: Error): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>([err]);
  let cause: unknown = err.cause;
  while (cause !== undefined && cause !== null && !seen.has(cause) && out.length < MAX_CAUSES) {
    seen.add(cause);
    out.push(cause instanceof Error ? cause.message : String(cause));
    cause = cause instanceof Error ? cause.cause : undefined;
  }
  return out;
}

function plainText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  if (v === null) return 'null';
  if (v instanceof Date) return v.toISOString();
  try {
    return JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x)) ?? String(v);
  } catch {
    return String(v);
  }
}

/** `time=... level=... logger=... msg=... key=value ...` (no line end). */
export function formatText(r: LogRecord): string {
  let out = `time=${r.time.toISOString()} level=${r.level} logger=${logfmtValue(r.logger)} msg=${logfmtValue(r.msg)}`;
  if (r.fields === undefined) return out;
  for (const k in r.fields) {
    const v = r.fields[k];
    if (v === undefined) continue;
    if (v instanceof Error) {
      out += ` ${k}=${logfmtValue(v.message)}`;
      const code = errorCode(v);
      if (code !== undefined) out += ` ${k}_code=${logfmtValue(String(code))}`;
      const causes = causeMessages(v);
      if (causes.length > 0) out += ` ${k === 'err' ? 'cause' : `${k}_cause`}=${logfmtValue(causes.join(': '))}`;
      continue;
    }
    out += ` ${k}=${logfmtValue(plainText(v))}`;
  }
  return out;
}

interface ErrorJson {
  message: string;
  code?: string | number;
  cause?: ErrorJson;
}

function errorJson(err: unknown, depth = 0): ErrorJson {
  if (!(err instanceof Error)) return { message: String(err) };
  const out: ErrorJson = { message: err.message };
  const code = errorCode(err);
  if (code !== undefined) out.code = code;
  if (err.cause !== undefined && err.cause !== null && err.cause !== err && depth < MAX_CAUSES) out.cause = errorJson(err.cause, depth + 1);
  return out;
}

const RESERVED = new Set(['time', 'level', 'logger', 'msg']);

/** One JSON object (no line end); fields named like the fixed keys get a `field.` prefix. */
export function formatJson(r: LogRecord): string {
  const obj: Record<string, unknown> = { time: r.time.toISOString(), level: r.level, logger: r.logger, msg: r.msg };
  if (r.fields !== undefined) {
    for (const k in r.fields) {
      const v = r.fields[k];
      if (v === undefined) continue;
      obj[RESERVED.has(k) ? `field.${k}` : k] = v instanceof Error ? errorJson(v) : v;
    }
  }
  try {
    return JSON.stringify(obj, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  } catch {
    // A cycle in some field: its text form instead.
    const safe: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(obj)) safe[k] = typeof v === 'object' && v !== null ? plainText(v) : v;
    return JSON.stringify(safe, (_k, x: unknown) => (typeof x === 'bigint' ? x.toString() : x));
  }
}

/** A level name as given on a command line or in BROOK_LOG_LEVEL; throws on anything else. */
export function parseLogLevel(value: string): LogLevel {
  const level = value.trim().toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level)) throw new Error(`unknown log level '${value}' (one of ${LOG_LEVELS.join(', ')})`);
  return level;
}

export function parseLogFormat(value: string): LogFormat {
  const format = value.trim().toLowerCase() as LogFormat;
  if (!LOG_FORMATS.includes(format)) throw new Error(`unknown log format '${value}' (one of ${LOG_FORMATS.join(', ')})`);
  return format;
}

function fromEnv<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
  const v = process.env[name]?.trim().toLowerCase() as T | undefined;
  return v !== undefined && allowed.includes(v) ? v : fallback;
}

export function createLogger(
  name = 'brook',
  level: LogLevel = fromEnv('BROOK_LOG_LEVEL', LOG_LEVELS, 'info'),
  write: (line: string) => void = (line) => process.stderr.write(line),
  format: LogFormat = fromEnv('BROOK_LOG_FORMAT', LOG_FORMATS, 'text'),
): Logger {
  const min = RANK[level] ?? RANK.info;
  const render = format === 'json' ? formatJson : formatText;
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: Record<string, unknown>): void => {
    if (RANK[lvl] < min) return;
    write(`${render({ time: new Date(), level: lvl, logger: name, msg, fields })}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (child) => createLogger(`${name}:${child}`, level, write, format),
  };
}

/** For tests and embedders that want quiet. */
export const silentLogger: Logger = createLogger('silent', 'silent');

/**
 * One log line per burst of the same event, for events a misbehaving peer can repeat at will
 * (thousands of refused or idle connections must not become thousands of lines): the first
 * event is logged at `level` at once, later ones within `intervalMs` at debug only, and the
 * next line at `level` says how many were held back (`suppressed`). Counters, not this log,
 * carry the totals.
 */
export class RateLimitedLog {
  private nextAtMs = -Infinity;
  private suppressed = 0;

  constructor(
    private readonly log: Logger,
    private readonly level: 'info' | 'warn' | 'error',
    private readonly message: string,
    private readonly intervalMs = 10_000,
    private readonly nowMs: () => number = () => performance.now(),
  ) {}

  event(fields: Record<string, unknown> = {}): void {
    const now = this.nowMs();
    if (now < this.nextAtMs) {
      this.suppressed++;
      this.log.debug(this.message, fields);
      return;
    }
    this.log[this.level](this.message, this.suppressed > 0 ? { ...fields, suppressed: this.suppressed } : fields);
    this.suppressed = 0;
    this.nextAtMs = now + this.intervalMs;
  }
}
