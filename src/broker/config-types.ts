/**
 * The value types of the broker's settings, as Kafka's ConfigDef has them: how a value is
 * read from text (a `--config` property, after Kafka's trim, or a command-line flag), which
 * values an embedding program may pass to `Broker.start`, and how DescribeConfigs and the
 * docs show a value. Errors are Kafka's ConfigException messages
 * (`Invalid value X for configuration Y: ...`).
 */
import type { ConsumerGroupMigrationPolicy } from '../coordinator/types.js';
import { javaTrim } from '../util/java-properties.js';
import type { ListenerList } from './listener-config.js';

/** When appended data is fsynced: 'always' makes acks=all wait for the disk. */
export type FlushPolicy = 'always' | 'never' | { readonly intervalMs: number };

/** Kafka's ConfigDef.Type names (DescribeConfigs' configType). */
export type KafkaConfigType = 'int' | 'long' | 'short' | 'boolean' | 'string' | 'list' | 'class' | 'password';

export interface ValueType<T> {
  readonly kafkaType: KafkaConfigType;
  /** Parses `text` as ConfigDef does; throws Kafka's message naming `name`. */
  readonly parse: (text: string, name: string) => T;
  /** Whether a `Broker.start` option value is of this type. */
  readonly accepts: (value: unknown) => boolean;
  /** Why a value of another type is refused (Kafka's words where it has them). */
  readonly expected: string;
  /** The value as DescribeConfigs reports it; null for none. */
  readonly format: (value: T) => string | null;
}

/**
 * Why a value is invalid: Kafka's reason (after "Invalid value X for configuration Y: "),
 * the same for one item of a list (Kafka's ValidList names the item as the value), or a
 * whole message of its own.
 */
export type Problem = string | { readonly item: string; readonly why: string } | { readonly message: string };

/** Kafka's ConfigException text. */
export function invalidValue(name: string, value: string, why: string): Error {
  return new Error(`Invalid value ${value} for configuration ${name}: ${why}`);
}

/** The error for `problem` with `value` (shown as text) of setting `name`. */
export function problemError(name: string, value: string, problem: Problem): Error {
  if (typeof problem === 'string') return invalidValue(name, value, problem);
  if ('item' in problem) return invalidValue(name, problem.item, problem.why);
  return new Error(problem.message);
}

export const isString = (v: unknown): boolean => typeof v === 'string';
const isStringList = (v: unknown): boolean => Array.isArray(v) && v.every(isString);
export const isStringOrList = (v: unknown): boolean => typeof v === 'string' || isStringList(v);

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;
const DECIMAL = /^[+-]?\d+$/;

/** An INT as ConfigDef parses it: trimmed, then Integer.parseInt (decimal, optional sign, 32 bits). */
export function parseInt32(name: string, value: string): number {
  const text = javaTrim(value);
  const n = DECIMAL.test(text) ? Number(text) : NaN;
  if (!(n >= INT_MIN && n <= INT_MAX)) throw invalidValue(name, value, 'Not a number of type INT');
  return n;
}

/** A LONG: trimmed, then Long.parseLong (here within the integers a double holds exactly). */
export function parseInt64(name: string, value: string): number {
  const text = javaTrim(value);
  const n = DECIMAL.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n)) throw invalidValue(name, value, 'Not a number of type LONG');
  return n;
}

/** A BOOLEAN: trimmed, "true" or "false" in any case. */
export function parseBoolean(name: string, value: string): boolean {
  const text = javaTrim(value).toLowerCase();
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw invalidValue(name, value, 'Expected value to be either true or false');
}

export const INT: ValueType<number> = {
  kafkaType: 'int', parse: (text, name) => parseInt32(name, text),
  accepts: (v) => Number.isInteger(v) && (v as number) >= INT_MIN && (v as number) <= INT_MAX,
  expected: 'Not a number of type INT', format: String,
};

export const LONG: ValueType<number> = {
  kafkaType: 'long', parse: (text, name) => parseInt64(name, text),
  accepts: (v) => Number.isSafeInteger(v), expected: 'Not a number of type LONG', format: String,
};

export const BOOLEAN: ValueType<boolean> = {
  kafkaType: 'boolean', parse: (text, name) => parseBoolean(name, text),
  accepts: (v) => typeof v === 'boolean', expected: 'Expected value to be either true or false', format: String,
};

/**
 * Java's Boolean.parseBoolean, which some of Kafka's plugins read their settings with
 * (StandardAuthorizer's allow.everyone.if.no.acl.found): "true" in any case, anything else false.
 */
export const LENIENT_BOOLEAN: ValueType<boolean> = { ...BOOLEAN, parse: (text) => text.toLowerCase() === 'true' };

export const STRING: ValueType<string> = {
  kafkaType: 'string', parse: (text) => text, accepts: (v) => typeof v === 'string', expected: 'Expected value to be a string', format: (v) => v,
};

/** A STRING that may be absent (null): an option only; a property's text is a string. */
export function nullable<T>(type: ValueType<T>): ValueType<T | null> {
  return { ...type, accepts: (v) => v === null || type.accepts(v), format: (v) => (v === null ? null : type.format(v)) };
}

/** Kafka's LIST: comma-separated, items trimmed, empty ones dropped, each kept once (in order). */
export const LIST: ValueType<readonly string[]> = {
  kafkaType: 'list', parse: (text) => [...new Set(text.split(',').map((v) => v.trim()).filter((v) => v !== ''))],
  accepts: isStringList, expected: 'Expected a comma separated list', format: (v) => v.join(','),
};

/**
 * A setting an embedding program may give as Kafka's text or as a list (listeners,
 * sasl.enabled.mechanisms, super.users): a property keeps its text, parsed where it is used.
 */
export function textOrList(kafkaType: KafkaConfigType): ValueType<string | readonly string[]> {
  const items = (v: string | readonly string[]): readonly string[] => (typeof v !== 'string' ? v : kafkaType === 'list' ? LIST.parse(v, '') : [v]);
  return {
    kafkaType, parse: (text) => text, accepts: (v) => typeof v === 'string' || isStringList(v),
    expected: 'Expected a string or a list of strings', format: (v) => items(v).join(','),
  };
}

/** ConfigDef's Range.atLeast. */
export const atLeast = (min: number) => (n: number): Problem | null => (n >= min ? null : `Value must be at least ${min}`);

/** ConfigDef's Range.between, with its messages. */
export const between = (min: number, max: number) => (n: number): Problem | null =>
  n < min ? `Value must be at least ${min}` : n > max ? `Value must be no more than ${max}` : null;

/** ConfigDef's ValidList.in (not empty, every item one of `allowed`), with the name of the setting for its message. */
export const validList = (name: string, ...allowed: string[]) => (items: readonly string[]): Problem | null => {
  if (items.length === 0) return { message: `Configuration '${name}' must not be empty. Valid values include: [${allowed.join(', ')}]` };
  const bad = items.find((item) => !allowed.includes(item));
  return bad === undefined ? null : { item: bad, why: `String must be one of: ${allowed.join(', ')}` };
};

/** An option that is a record (by listener name, ...) of values `accepts` takes; a key may be there with no value (undefined). */
export function record<T>(accepts: (v: unknown) => boolean, what: string): ValueType<T> {
  return {
    kafkaType: 'string',
    accepts: (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.values(v).every((x) => x === undefined || accepts(x)),
    expected: `Expected ${what}`, format: () => null,
    parse: () => {
      throw new Error(`${what} comes from its own properties`);
    },
  };
}

/** Kafka's listener lists (listeners, advertised.listeners), parsed by listener-config.ts. */
export const LISTENER_LIST: ValueType<ListenerList> = textOrList('list');

/** listener.security.protocol.map: Kafka's `NAME:PROTOCOL,...`, or a record of them (parsed by listener-config.ts). */
export const PROTOCOL_MAP: ValueType<string | Readonly<Record<string, string>>> = {
  ...STRING, accepts: (v) => typeof v === 'string' || record(isString, '').accepts(v), expected: 'Expected NAME:PROTOCOL,... or a record of them',
  format: (v) => (typeof v === 'string' ? v : Object.entries(v).map(([k, p]) => `${k}:${p}`).join(',')),
};

/** log.dirs: Kafka's LIST of directories, of which Brook uses the first; as an option, one directory or null (memory). */
export const DATA_DIR: ValueType<string | null> = { ...nullable(STRING), kafkaType: 'list', parse: (text) => text.split(',')[0]!.trim() };

const MIGRATION_POLICIES: readonly ConsumerGroupMigrationPolicy[] = ['bidirectional', 'upgrade', 'downgrade', 'disabled'];

/** Kafka's CaseInsensitiveValidString for group.consumer.migration.policy. */
export const MIGRATION_POLICY: ValueType<ConsumerGroupMigrationPolicy> = {
  kafkaType: 'string', format: (v) => v, accepts: (v) => MIGRATION_POLICIES.includes(v as ConsumerGroupMigrationPolicy),
  // Kafka names them as its enum does (ConsumerGroupMigrationPolicy's order, upper case).
  expected: 'String must be one of (case insensitive): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL',
  parse(text, name) {
    const policy = text.toLowerCase() as ConsumerGroupMigrationPolicy;
    if (MIGRATION_POLICIES.includes(policy)) return policy;
    throw new Error(`Invalid value ${text} for configuration ${name}: ${MIGRATION_POLICY.expected}`);
  },
};

/** Brook's log.flush.policy: always, never, or a number of milliseconds between fsyncs. */
export const FLUSH: ValueType<FlushPolicy> = {
  kafkaType: 'string', expected: 'Expected always, never or { intervalMs }',
  parse: (text, name) => (text === 'always' || text === 'never' ? text : { intervalMs: parseInt64(name, text) }),
  accepts: (v) => v === 'always' || v === 'never' || (typeof v === 'object' && v !== null && Number.isSafeInteger((v as { intervalMs?: unknown }).intervalMs)),
  format: (v) => (typeof v === 'string' ? v : String(v.intervalMs)),
};

