/**
 * KafkaJS's logging: `logLevel` numbers, `logCreator(level)` returning the function every
 * entry goes to ({ namespace, level, label, log }), and the default creator that writes
 * JSON lines to the console. Brook's client logs through the same creator, each client
 * under its namespace (Producer, Consumer, Admin).
 */
import type { Logger } from '../util/log.js';

export const logLevel = Object.freeze({ NOTHING: 0, ERROR: 1, WARN: 2, INFO: 4, DEBUG: 5 } as const);
export type LogLevelNumber = (typeof logLevel)[keyof typeof logLevel];

export interface LogEntry {
  namespace: string;
  level: number;
  label: string;
  log: { timestamp: string; logger: 'kafkajs'; message: string; [key: string]: unknown };
}

export type logCreator = (logLevel: number) => (entry: LogEntry) => void;

const LABEL: Record<number, string> = { 1: 'ERROR', 2: 'WARN', 4: 'INFO', 5: 'DEBUG' };

/** KafkaJS's console logger: one JSON line per entry, on the console method of its level. */
export const consoleLogCreator: logCreator = () => ({ namespace, level, label, log }) => {
  const prefix = namespace ? `[${namespace}] ` : '';
  const line = JSON.stringify({ level: label, ...log, message: `${prefix}${log.message}` });
  if (level === logLevel.ERROR) console.error(line);
  else if (level === logLevel.WARN) console.warn(line);
  else console.log(line);
};

/** The level KAFKAJS_LOG_LEVEL names (NOTHING, ERROR, WARN, INFO, DEBUG), else `configured`. */
function effectiveLevel(configured: number): number {
  const env = (process.env['KAFKAJS_LOG_LEVEL'] ?? '').toUpperCase();
  return Object.hasOwn(logLevel, env) ? logLevel[env as keyof typeof logLevel] : configured;
}

export interface KafkaJSLogger {
  info(message: string, extra?: object): void;
  error(message: string, extra?: object): void;
  warn(message: string, extra?: object): void;
  debug(message: string, extra?: object): void;
  namespace(namespace: string, level?: number): KafkaJSLogger;
  setLogLevel(level: number): void;
}

/** A KafkaJS logger over `creator`; also a Brook Logger (`brook()`) for the client underneath. */
export class KafkaJSLogging {
  private level: number;
  private readonly sink: (entry: LogEntry) => void;

  constructor(level: number = logLevel.INFO, creator: logCreator = consoleLogCreator) {
    this.level = effectiveLevel(level);
    this.sink = creator(this.level);
  }

  private write(namespace: string, level: number, message: string, extra: object | undefined): void {
    if (level > this.level || level === logLevel.NOTHING) return;
    this.sink({ namespace, level, label: LABEL[level] ?? 'INFO', log: { timestamp: new Date().toISOString(), logger: 'kafkajs', message, ...extra } });
  }

  logger(namespace = ''): KafkaJSLogger {
    return {
      info: (m, e) => this.write(namespace, logLevel.INFO, m, e),
      error: (m, e) => this.write(namespace, logLevel.ERROR, m, e),
      warn: (m, e) => this.write(namespace, logLevel.WARN, m, e),
      debug: (m, e) => this.write(namespace, logLevel.DEBUG, m, e),
      namespace: (ns) => this.logger(ns),
      setLogLevel: (level) => (this.level = level),
    };
  }

  /** Brook's Logger interface, writing here under `namespace`. */
  brook(namespace: string): Logger {
    const fields = (f?: Record<string, unknown>): object | undefined => {
      if (!f) return undefined;
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(f)) out[k] = v instanceof Error ? v.message : v;
      return out;
    };
    return {
      debug: (m, f) => this.write(namespace, logLevel.DEBUG, m, fields(f)),
      info: (m, f) => this.write(namespace, logLevel.INFO, m, fields(f)),
      warn: (m, f) => this.write(namespace, logLevel.WARN, m, fields(f)),
      error: (m, f) => this.write(namespace, logLevel.ERROR, m, fields(f)),
      child: (name) => this.brook(`${namespace}.${name}`),
    };
  }
}
