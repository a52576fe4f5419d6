/**
 * Kafka's topic-level configs (Apache Kafka 4.4, `TopicConfig` / `LogConfig`): names, types,
 * defaults, validation, and the broker-level synonyms that override the defaults
 * (`ServerTopicConfigSynonyms`, e.g. log.retention.hours → retention.ms).
 *
 * Every config Kafka accepts is accepted and stored, so clients that set them keep working
 * and DescribeConfigs reports them; only those marked `implemented` change what Brook does.
 * Values are kept as strings, as on the wire; `logConfig` parses the ones the log uses.
 */
import { ErrorCode } from '../protocol/errors.js';
import { TimestampType } from '../protocol/records/index.js';
import { StorageError } from './errors.js';
import type { TopicConfigs } from './types.js';

export type ConfigType = 'int' | 'long' | 'double' | 'boolean' | 'string' | 'list';

/** A broker config whose value becomes a topic default; `scale` converts hours/minutes to ms. */
export interface ConfigSynonym {
  readonly name: string;
  readonly scale?: number;
}

export interface TopicConfigDef {
  readonly name: string;
  readonly type: ConfigType;
  /** Kafka's default as text; null for internal configs without one. */
  readonly default: string | null;
  /** Broker configs that supply the default, highest priority first. */
  readonly synonyms: readonly ConfigSynonym[];
  /** Whether Brook's behaviour follows the value (others are stored and reported only). */
  readonly implemented: boolean;
  /** Kafka's internal configs (for tests) are accepted but not described. */
  readonly internal?: boolean;
  /** Returns why a parsed value is invalid (and which item, for a list), or null. */
  readonly check?: (value: Parsed) => Problem | null;
}

type Parsed = bigint | number | boolean | string | readonly string[];
/** Why a value is invalid; for a list, Kafka's ValidList names the offending item as the value. */
type Problem = string | { readonly item: string; readonly why: string };

const INT_MIN = -(2n ** 31n);
const INT_MAX = 2n ** 31n - 1n;
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const LONG_MAX_TEXT = LONG_MAX.toString();

const atLeast = (min: bigint) => (v: Parsed) => ((v as bigint) >= min ? null : `Value must be at least ${min}`);
const between = (min: bigint, max: bigint) => (v: Parsed) =>
  (v as bigint) >= min && (v as bigint) <= max ? null : `Value must be in [${min},...,${max}]`;
const oneOf = (...allowed: string[]) => (v: Parsed) => (allowed.includes(v as string) ? null : `String must be one of: ${allowed.join(', ')}`);
// Kafka 4.4 accepts an empty cleanup.policy: neither deleted nor compacted, the log is kept.
const listOf = (...allowed: string[]) => (v: Parsed) => {
  const items = v as readonly string[];
  const bad = items.find((item) => !allowed.includes(item));
  return bad === undefined ? null : { item: bad, why: `String must be one of: ${allowed.join(', ')}` };
};
// Kafka's ThrottledReplicaListValidator: "*" or partitionId:brokerId pairs.
const throttledReplicas = (v: Parsed) => {
  const items = v as readonly string[];
  if (items.length === 0 || (items.length === 1 && items[0] === '*')) return null;
  return items.every((item) => /^\d+:\d+$/.test(item)) ? null : 'Must be * or a list of partitionId:brokerId';
};
const gzipLevel = (v: Parsed) => ((v as bigint) === -1n || ((v as bigint) >= 1n && (v as bigint) <= 9n) ? null : 'Value must be in [1,...,9] or -1');
const noRemoteStorage = (v: Parsed) => (v === true ? 'Brook has no tiered storage; remote.storage.enable must be false' : null);
const ratio = (v: Parsed) => ((v as number) >= 0 && (v as number) <= 1 ? null : 'Value must be in [0,...,1]');

const log = (name: string): ConfigSynonym => ({ name: `log.${name}` });
const HOURS = 3_600_000;
const MINUTES = 60_000;

function def(
  name: string, type: ConfigType, dflt: string | null, synonyms: ConfigSynonym[], implemented: boolean,
  check?: (value: Parsed) => Problem | null, internal?: boolean,
): TopicConfigDef {
  return { name, type, default: dflt, synonyms, implemented, check, internal };
}

/** Every topic config Kafka 4.4 accepts, by name. */
export const TOPIC_CONFIG_DEFS: ReadonlyMap<string, TopicConfigDef> = new Map(
  [
    def('cleanup.policy', 'list', 'delete', [log('cleanup.policy')], true, listOf('compact', 'delete')),
    def('compression.gzip.level', 'int', '-1', [{ name: 'compression.gzip.level' }], false, gzipLevel),
    def('compression.lz4.level', 'int', '9', [{ name: 'compression.lz4.level' }], false, between(1n, 17n)),
    def('compression.type', 'string', 'producer', [{ name: 'compression.type' }], false,
      oneOf('uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer')),
    def('compression.zstd.level', 'int', '3', [{ name: 'compression.zstd.level' }], false, between(-131072n, 22n)),
    def('delete.retention.ms', 'long', '86400000', [log('cleaner.delete.retention.ms')], true, atLeast(0n)),
    // New in Kafka 4.4 (share groups' dead-letter queue); no broker synonym. Brook has no share groups.
    def('errors.deadletterqueue.group.enable', 'boolean', 'false', [], false),
    def('file.delete.delay.ms', 'long', '60000', [log('segment.delete.delay.ms')], false, atLeast(0n)),
    def('flush.messages', 'long', LONG_MAX_TEXT, [log('flush.interval.messages')], false, atLeast(1n)),
    def('flush.ms', 'long', LONG_MAX_TEXT, [log('flush.interval.ms'), log('flush.scheduler.interval.ms')], false, atLeast(0n)),
    def('follower.replication.throttled.replicas', 'list', '', [], false, throttledReplicas),
    def('index.interval.bytes', 'int', '4096', [log('index.interval.bytes')], true, atLeast(0n)),
    def('leader.replication.throttled.replicas', 'list', '', [], false, throttledReplicas),
    def('local.retention.bytes', 'long', '-2', [log('local.retention.bytes')], false, atLeast(-2n)),
    def('local.retention.ms', 'long', '-2', [log('local.retention.ms')], false, atLeast(-2n)),
    def('max.compaction.lag.ms', 'long', LONG_MAX_TEXT, [log('cleaner.max.compaction.lag.ms')], true, atLeast(1n)),
    // New in Kafka 4.4: a cap on each record's decompressed size, which Kafka checks where it
    // decompresses. Brook decompresses a produced batch only to read its records' timestamps
    // (append-validation.ts, capped at 64 MiB); it stores and reports this value but does not enforce it yet.
    def('max.decompressed.message.bytes', 'int', '2147483639', [{ name: 'max.decompressed.message.bytes' }], false, between(1n, 2147483639n)),
    def('max.message.bytes', 'int', '1048588', [{ name: 'message.max.bytes' }], true, atLeast(0n)),
    // Kafka 4.0 changed this default from Long.MAX_VALUE to one hour (KIP-1030).
    def('message.timestamp.after.max.ms', 'long', '3600000', [log('message.timestamp.after.max.ms')], true, atLeast(0n)),
    def('message.timestamp.before.max.ms', 'long', LONG_MAX_TEXT, [log('message.timestamp.before.max.ms')], true, atLeast(0n)),
    def('message.timestamp.type', 'string', 'CreateTime', [log('message.timestamp.type')], true, oneOf('CreateTime', 'LogAppendTime')),
    def('min.cleanable.dirty.ratio', 'double', '0.5', [log('cleaner.min.cleanable.ratio')], true, ratio),
    def('min.compaction.lag.ms', 'long', '0', [log('cleaner.min.compaction.lag.ms')], true, atLeast(0n)),
    def('min.insync.replicas', 'int', '1', [{ name: 'min.insync.replicas' }], false, atLeast(1n)),
    def('preallocate', 'boolean', 'false', [log('preallocate')], false),
    // New in Kafka 4.4 (tiered storage, which Brook does not have: remote.storage.enable stays false).
    def('remote.copy.lag.bytes', 'long', '-1', [log('remote.copy.lag.bytes')], false, atLeast(-1n)),
    def('remote.copy.lag.ms', 'long', '0', [log('remote.copy.lag.ms')], false, atLeast(-1n)),
    def('remote.log.copy.disable', 'boolean', 'false', [], false),
    def('remote.log.delete.on.disable', 'boolean', 'false', [], false),
    def('remote.storage.enable', 'boolean', 'false', [], false, noRemoteStorage),
    def('retention.bytes', 'long', '-1', [log('retention.bytes')], true),
    def('retention.ms', 'long', '604800000',
      [log('retention.ms'), { name: 'log.retention.minutes', scale: MINUTES }, { name: 'log.retention.hours', scale: HOURS }], true, atLeast(-1n)),
    // Kafka 4.0 raised the minimum to 1 MiB (KIP-1030); tests use internal.segment.bytes, as Kafka's do.
    def('segment.bytes', 'int', '1073741824', [log('segment.bytes')], true, atLeast(1048576n)),
    def('segment.index.bytes', 'int', '10485760', [log('index.size.max.bytes')], true, atLeast(4n)),
    def('segment.jitter.ms', 'long', '0', [log('roll.jitter.ms'), { name: 'log.roll.jitter.hours', scale: HOURS }], false, atLeast(0n)),
    def('segment.ms', 'long', '604800000', [log('roll.ms'), { name: 'log.roll.hours', scale: HOURS }], true, atLeast(1n)),
    def('unclean.leader.election.enable', 'boolean', 'false', [{ name: 'unclean.leader.election.enable' }], false),
    // Kafka's LogConfig.INTERNAL_SEGMENT_BYTES_CONFIG: overrides segment.bytes without its minimum.
    def('internal.segment.bytes', 'int', null, [], true, atLeast(14n), true),
  ].map((d) => [d.name, d]),
);

/** Kafka's default of every (non-internal) topic config. */
export const TOPIC_CONFIG_DEFAULTS: Readonly<Record<string, string>> = Object.freeze(
  Object.fromEntries([...TOPIC_CONFIG_DEFS.values()].filter((d) => !d.internal).map((d) => [d.name, d.default ?? ''])),
);

function invalid(name: string, value: string, why: string): StorageError {
  return new StorageError(ErrorCode.INVALID_CONFIG, `Invalid value ${value} for configuration ${name}: ${why}`);
}

/** Parses as Kafka's ConfigDef does (values trimmed); throws INVALID_CONFIG. */
function parse(d: TopicConfigDef, raw: string): Parsed {
  const text = raw.trim();
  switch (d.type) {
    case 'int':
    case 'long': {
      if (!/^[+-]?\d+$/.test(text)) throw invalid(d.name, raw, `Not a number of type ${d.type.toUpperCase()}`);
      const n = BigInt(text);
      const [min, max] = d.type === 'int' ? [INT_MIN, INT_MAX] : [LONG_MIN, LONG_MAX];
      if (n < min || n > max) throw invalid(d.name, raw, `Not a number of type ${d.type.toUpperCase()}`);
      return n;
    }
    case 'double': {
      const n = Number(text);
      if (text === '' || Number.isNaN(n)) throw invalid(d.name, raw, 'Not a number of type DOUBLE');
      return n;
    }
    case 'boolean': {
      const lower = text.toLowerCase();
      if (lower !== 'true' && lower !== 'false') throw invalid(d.name, raw, 'Expected value to be either true or false');
      return lower === 'true';
    }
    case 'string':
      return text;
    case 'list':
      return text === '' ? [] : text.split(',').map((s) => s.trim());
  }
}

function checkValue(d: TopicConfigDef, raw: string): Parsed {
  const parsed = parse(d, raw);
  const problem = d.check?.(parsed);
  if (typeof problem === 'string') throw invalid(d.name, raw, problem);
  if (problem) throw invalid(d.name, problem.item, problem.why);
  return parsed;
}

/**
 * Checks explicit topic configs as Kafka's LogConfig.validate does: unknown names and bad
 * values throw StorageError(INVALID_CONFIG). `defaults` (broker-level) take part in the
 * cross-config checks.
 */
export function validateTopicConfigs(configs: TopicConfigs, defaults: TopicConfigs = {}): void {
  for (const [name, value] of Object.entries(configs)) {
    const d = TOPIC_CONFIG_DEFS.get(name);
    if (!d) throw new StorageError(ErrorCode.INVALID_CONFIG, `Unknown topic config name: ${name}`);
    if (typeof value !== 'string') throw invalid(name, String(value), 'Value must be a string');
    checkValue(d, value);
  }
  const effective = effectiveTopicConfigs(configs, defaults);
  const minLag = BigInt(effective['min.compaction.lag.ms']!.trim());
  const maxLag = BigInt(effective['max.compaction.lag.ms']!.trim());
  if (minLag > maxLag) {
    throw new StorageError(ErrorCode.INVALID_CONFIG,
      `conflict topic config setting min.compaction.lag.ms (${minLag}) > max.compaction.lag.ms (${maxLag})`);
  }
}

/**
 * The broker configs that set a topic config's default, by name: each topic config's first
 * synonym (log.retention.ms, message.max.bytes, ...), the one Kafka lets be changed
 * dynamically (DynamicLogConfig).
 */
export const TOPIC_DEFS_BY_BROKER_NAME: ReadonlyMap<string, TopicConfigDef> = new Map(
  [...TOPIC_CONFIG_DEFS.values()].filter((d) => !d.internal && d.synonyms[0] !== undefined && d.synonyms[0].scale === undefined)
    .map((d) => [d.synonyms[0]!.name, d]),
);

/**
 * Checks a value for a broker config that sets a topic default (see TOPIC_DEFS_BY_BROKER_NAME),
 * with Kafka's message naming the broker config; throws StorageError(INVALID_CONFIG).
 */
export function validateBrokerTopicDefault(brokerName: string, value: string): void {
  const d = TOPIC_DEFS_BY_BROKER_NAME.get(brokerName);
  if (!d) throw new StorageError(ErrorCode.INVALID_CONFIG, `Unknown broker config name: ${brokerName}`);
  try {
    checkValue(d, value);
  } catch (err) {
    if (err instanceof StorageError) throw new StorageError(err.errorCode, err.detail.replace(`for configuration ${d.name}:`, `for configuration ${brokerName}:`));
    throw err;
  }
}

/**
 * Turns broker settings (Kafka's server.properties names: log.retention.hours, log.roll.ms,
 * message.max.bytes, ...) into topic defaults by topic config name, following Kafka's
 * synonym priority and unit conversions. Unknown broker settings are ignored.
 */
export function topicDefaultsFromBrokerConfig(props: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of TOPIC_CONFIG_DEFS.values()) {
    for (const s of d.synonyms) {
      const raw = props[s.name];
      if (raw === undefined) continue;
      if (s.scale === undefined) {
        out[d.name] = raw.trim();
      } else {
        const text = raw.trim();
        if (!/^[+-]?\d+$/.test(text)) throw invalid(s.name, raw, 'Not a number of type INT');
        out[d.name] = (BigInt(text) * BigInt(s.scale)).toString();
      }
      break;
    }
  }
  validateTopicConfigs(out);
  return out;
}

/** Every config with its value for a topic: explicit, else broker default, else Kafka's. */
export function effectiveTopicConfigs(explicit: TopicConfigs, defaults: TopicConfigs = {}): Record<string, string> {
  return { ...TOPIC_CONFIG_DEFAULTS, ...defaults, ...explicit };
}

export interface TopicConfigEntry {
  readonly name: string;
  readonly value: string;
  /** Where the value comes from, as DescribeConfigs reports it. */
  readonly source: 'topic' | 'broker' | 'default';
  /** The broker config that supplies the default (Kafka's "Server Default Property"). */
  readonly serverDefaultName: string | null;
  readonly implemented: boolean;
}

/** What DescribeConfigs shows for a topic: every non-internal config, sorted by name. */
export function describeTopicConfigs(explicit: TopicConfigs, defaults: TopicConfigs = {}): TopicConfigEntry[] {
  const entries: TopicConfigEntry[] = [];
  for (const d of TOPIC_CONFIG_DEFS.values()) {
    if (d.internal) continue;
    const fromTopic = explicit[d.name];
    const fromBroker = defaults[d.name];
    entries.push({
      name: d.name,
      value: fromTopic ?? fromBroker ?? d.default ?? '',
      source: fromTopic !== undefined ? 'topic' : fromBroker !== undefined ? 'broker' : 'default',
      serverDefaultName: d.synonyms[0]?.name ?? null,
      implemented: d.implemented,
    });
  }
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The parsed settings the partition log acts on. Longs become numbers (ms and byte counts). */
export interface LogConfig {
  readonly segmentBytes: number;
  readonly segmentMs: number;
  readonly segmentIndexBytes: number;
  readonly indexIntervalBytes: number;
  readonly maxMessageBytes: number;
  readonly retentionMs: number;
  readonly retentionBytes: number;
  /** cleanup.policy contains "delete": retention applies. */
  readonly deleteRetention: boolean;
  /** cleanup.policy contains "compact": the log cleaner keeps the newest record per key. */
  readonly compact: boolean;
  /** How long the cleaner keeps tombstones after it first saw them (delete.retention.ms). */
  readonly deleteRetentionMs: number;
  readonly minCleanableDirtyRatio: number;
  readonly minCompactionLagMs: number;
  readonly maxCompactionLagMs: number;
  readonly timestampType: TimestampType;
  /** Kept as bigint: compared exactly with int64 batch timestamps (defaults reach Long.MAX_VALUE). */
  readonly timestampBeforeMaxMs: bigint;
  readonly timestampAfterMaxMs: bigint;
}

function num(effective: Record<string, string>, name: string): number {
  return Number(BigInt(effective[name]!.trim()));
}

/** Parses the effective (already validated) configs of a topic. */
export function logConfig(effective: Record<string, string>): LogConfig {
  const internalSegmentBytes = effective['internal.segment.bytes'];
  return {
    segmentBytes: internalSegmentBytes !== undefined ? Number(internalSegmentBytes.trim()) : num(effective, 'segment.bytes'),
    segmentMs: num(effective, 'segment.ms'),
    segmentIndexBytes: num(effective, 'segment.index.bytes'),
    indexIntervalBytes: num(effective, 'index.interval.bytes'),
    maxMessageBytes: num(effective, 'max.message.bytes'),
    retentionMs: num(effective, 'retention.ms'),
    retentionBytes: num(effective, 'retention.bytes'),
    deleteRetention: effective['cleanup.policy']!.split(',').some((p) => p.trim() === 'delete'),
    compact: effective['cleanup.policy']!.split(',').some((p) => p.trim() === 'compact'),
    deleteRetentionMs: num(effective, 'delete.retention.ms'),
    minCleanableDirtyRatio: Number(effective['min.cleanable.dirty.ratio']!.trim()),
    minCompactionLagMs: num(effective, 'min.compaction.lag.ms'),
    maxCompactionLagMs: num(effective, 'max.compaction.lag.ms'),
    timestampType: effective['message.timestamp.type']!.trim() === 'LogAppendTime' ? TimestampType.LogAppendTime : TimestampType.CreateTime,
    timestampBeforeMaxMs: BigInt(effective['message.timestamp.before.max.ms']!.trim()),
    timestampAfterMaxMs: BigInt(effective['message.timestamp.after.max.ms']!.trim()),
  };
}
