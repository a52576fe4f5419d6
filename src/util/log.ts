/**
 * A small leveled logger writing one line per event to stderr (stdout is reserved for
 * what commands print, such as the broker's "listening on" line). Level from the
 * BROOK_LOG_LEVEL environment variable or the constructor.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  child(name: string): Logger;
}

function render(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  let out = '';
  for (const [k, v] of Object.entries(fields)) {
    const text = v instanceof Error ? v.message : typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v : JSON.stringify(v);
    out += ` ${k}=${text}`;
  }
  return out;
}

export function createLogger(
  name = 'brook',
  level: LogLevel = (process.env['BROOK_LOG_LEVEL'] as LogLevel | undefined) ?? 'info',
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const min = RANK[level] ?? RANK.info;
  const emit = (lvl: LogLevel, message: string, fields?: Record<string, unknown>): void => {
    if (RANK[lvl] < min) return;
    write(`${new Date().toISOString()} ${lvl.toUpperCase().padEnd(5)} [${name}] ${message}${render(fields)}\n`);
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
    child: (child) => createLogger(`${name}:${child}`, level, write),
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
