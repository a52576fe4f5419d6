/**
 * Kafka's per-group configs (GroupConfig, KIP-848 / KIP-932): their names, types and lower
 * bounds, the broker setting each defaults to, and the validation Kafka's controller applies
 * to a group's configs as a whole (GroupConfig.validate): names first, then each value's
 * type and lower bound (ConfigDef), then the broker's min/max bounds, then session timeouts
 * against heartbeat intervals. Messages are Kafka 4.4's, word for word.
 *
 * Brook stores every one of them; what it acts on is listed in docs/ARCHITECTURE.md.
 */
import type { BrokerConfig } from '../config.js';
import { isoDurationMs } from './iso-duration.js';

export type GroupConfigType = 'int' | 'long' | 'boolean' | 'string' | 'list';

export interface GroupConfigDef {
  readonly name: string;
  readonly type: GroupConfigType;
  /** ConfigDef's Range.atLeast, checked as the value is parsed. */
  readonly atLeast?: number;
  /** ConfigDef's ValidString.in. */
  readonly oneOf?: readonly string[];
  /** Kafka's own validator (share.auto.offset.reset): the message when the value is refused, or null. */
  readonly check?: (value: string) => string | null;
  /** Kafka's internal configs: they may be set, DescribeConfigs does not list them. */
  readonly internal?: boolean;
  /** The broker config it defaults to (DescribeConfigs' DEFAULT_CONFIG synonym); null: its own default. */
  readonly broker: string | null;
  readonly value: (c: BrokerConfig) => string;
  readonly doc: string;
}

/** Defaults of Kafka's group.streams.* broker settings Brook does not have as settings of its own. */
const STREAMS = {
  sessionTimeoutMs: 45_000, minSessionTimeoutMs: 45_000, maxSessionTimeoutMs: 60_000,
  heartbeatIntervalMs: 5000, minHeartbeatIntervalMs: 5000, maxHeartbeatIntervalMs: 15_000,
  maxStandbyReplicas: 2, minAssignmentIntervalMs: 0, maxAssignmentIntervalMs: 15_000,
  minTaskOffsetIntervalMs: 15_000, maxWarmupReplicas: 20, assignors: ['sticky'],
} as const;

const AUTO_OFFSET_RESET = 'share.auto.offset.reset';

/** ShareGroupAutoOffsetResetStrategy: earliest, latest or by_duration:<ISO-8601 duration, not negative>. */
function autoOffsetResetProblem(value: string): string | null {
  if (value === 'earliest' || value === 'latest') return null;
  if (value.startsWith('by_duration:')) {
    const ms = isoDurationMs(value.slice('by_duration:'.length));
    if (ms !== null && ms >= 0) return null;
  }
  return `Invalid value \`${value}\` for configuration ${AUTO_OFFSET_RESET}. The value must be either 'earliest', 'latest' or of the format 'by_duration:<PnDTnHnMn.nS>'.`;
}

const int = (name: string, broker: string | null, atLeast: number, value: (c: BrokerConfig) => number, doc: string, internal = false): GroupConfigDef =>
  ({ name, type: 'int', atLeast, broker, value: (c) => String(value(c)), doc, internal });
const bool = (name: string, broker: string | null, value: boolean, doc: string, internal = false): GroupConfigDef =>
  ({ name, type: 'boolean', broker, value: () => String(value), doc, internal });

/** In Kafka's order of definition (ConfigDef parses, and so refuses, in this order). */
export const GROUP_CONFIG_DEFS: readonly GroupConfigDef[] = [
  int('consumer.session.timeout.ms', 'group.consumer.session.timeout.ms', 1, (c) => c.groupConsumerSessionTimeoutMs,
    'The timeout to detect client failures when using the consumer group protocol.'),
  int('consumer.heartbeat.interval.ms', 'group.consumer.heartbeat.interval.ms', 1, (c) => c.groupConsumerHeartbeatIntervalMs,
    'The heartbeat interval given to the members of a consumer group.'),
  int('consumer.assignment.interval.ms', 'group.consumer.assignment.interval.ms', 0, (c) => c.groupConsumerAssignmentIntervalMs,
    'The interval between assignment updates for a consumer group.'),
  bool('consumer.assignor.offload.enable', 'group.consumer.assignor.offload.enable', true,
    'Whether to offload consumer group assignment to a group coordinator background thread.', true),
  int('share.session.timeout.ms', 'group.share.session.timeout.ms', 1, (c) => c.groupShareSessionTimeoutMs,
    'The timeout to detect client failures when using the share group protocol.'),
  int('share.heartbeat.interval.ms', 'group.share.heartbeat.interval.ms', 1, (c) => c.groupShareHeartbeatIntervalMs,
    'The heartbeat interval given to the members of a share group.'),
  int('share.record.lock.duration.ms', 'group.share.record.lock.duration.ms', 1000, (c) => c.groupShareRecordLockDurationMs,
    'The record acquisition lock duration in milliseconds for share groups.'),
  int('share.delivery.count.limit', 'group.share.delivery.count.limit', 2, (c) => c.groupShareDeliveryCountLimit,
    'The maximum number of delivery attempts for a record delivered to a share group.'),
  int('share.partition.max.record.locks', 'group.share.partition.max.record.locks', 100, (c) => c.groupSharePartitionMaxRecordLocks,
    'Share-group record lock limit per share-partition.'),
  {
    name: AUTO_OFFSET_RESET, type: 'string', check: autoOffsetResetProblem, broker: null, value: () => 'latest',
    doc: 'The strategy to initialize the share-partition start offset. <ul><li>earliest: automatically reset the offset to the earliest offset</li><li>latest: automatically reset the offset to the latest offset</li><li>by_duration:&lt;duration&gt;: automatically reset the offset to a configured duration from the current timestamp. &lt;duration&gt; must be specified in ISO8601 format (PnDTnHnMn.nS). Negative duration is not allowed.</li><li>anything else: throw exception to the share consumer.</li></ul>',
  },
  {
    name: 'share.isolation.level', type: 'string', oneOf: ['read_committed', 'read_uncommitted'], broker: null, value: () => 'read_uncommitted',
    doc: 'Controls how to read records written transactionally. If set to "read_committed", the share group will only deliver transactional records which have been committed. If set to "read_uncommitted", the share group will return all messages, even transactional messages which have been aborted. Non-transactional records will be returned unconditionally in either mode.',
  },
  bool('share.renew.acknowledge.enable', null, true, 'Whether the renew acknowledge type is enabled for the share group.'),
  int('share.assignment.interval.ms', 'group.share.assignment.interval.ms', 0, (c) => c.groupShareAssignmentIntervalMs,
    'The interval between assignment updates for a share group.'),
  bool('share.assignor.offload.enable', 'group.share.assignor.offload.enable', true,
    'Whether to offload share group assignment to a group coordinator background thread.', true),
  int('streams.session.timeout.ms', 'group.streams.session.timeout.ms', 1, (c) => c.groupStreamsSessionTimeoutMs,
    'The timeout to detect client failures when using the streams group protocol.'),
  int('streams.heartbeat.interval.ms', 'group.streams.heartbeat.interval.ms', 1, (c) => c.groupStreamsHeartbeatIntervalMs, 'The heartbeat interval given to the members.'),
  int('streams.num.standby.replicas', 'group.streams.num.standby.replicas', 0, (c) => c.groupStreamsNumStandbyReplicas, 'The number of standby replicas for each task.'),
  int('streams.initial.rebalance.delay.ms', 'group.streams.initial.rebalance.delay.ms', 0, (c) => c.groupStreamsInitialRebalanceDelayMs,
    'The amount of time the group coordinator will wait for more streams clients to join a new group before performing the first rebalance. A longer delay means potentially fewer rebalances.'),
  int('streams.assignment.interval.ms', 'group.streams.assignment.interval.ms', 0, (c) => c.groupStreamsAssignmentIntervalMs, 'The interval between assignment updates for a streams group.'),
  bool('streams.assignor.offload.enable', 'group.streams.assignor.offload.enable', true,
    'Whether to offload streams group assignment to a group coordinator background thread.', true),
  int('streams.task.offset.interval.ms', 'group.streams.task.offset.interval.ms', 1, () => 60_000,
    'The interval in which the warmup task changelog offsets on a client are updated on the broker.', true),
  int('streams.num.warmup.replicas', 'group.streams.num.warmup.replicas', 0, () => 2, 'The maximum number of warmup task replicas.', true),
  {
    name: 'streams.rack.aware.assignment.tags', type: 'list', broker: 'group.streams.rack.aware.assignment.tags', value: () => '',
    doc: 'List of client tag keys used to distribute standby replicas across Kafka Streams instances. When configured, and the used broker-side assignor supports it, it will make a best-effort to distribute standby tasks over each client tag dimension.',
  },
  {
    name: 'streams.acceptable.recovery.lag', type: 'long', atLeast: 0, broker: 'group.streams.acceptable.recovery.lag', value: () => '10000', internal: true,
    doc: 'The maximum acceptable lag (number of offsets to catch up) for a client to be considered caught-up enough to receive an active task assignment.',
  },
  {
    name: 'streams.assignor.name', type: 'string', broker: 'group.streams.assignors', value: () => STREAMS.assignors[0],
    doc: "The task assignor to use for this streams group, selected by short name from the assignors registered via the broker configuration group.streams.assignors. When unset, the group defaults to the first assignor configured in the broker's group.streams.assignors setting. Changing the assignor does not trigger a rebalance for the group; the new assignor takes effect on the next rebalance.",
  },
  {
    name: 'errors.deadletterqueue.topic.name', type: 'string', broker: null, value: () => '',
    doc: 'The name of the topic to be used as the dead-letter queue (DLQ) topic for this share group. If blank (the default), the group does not have a DLQ topic.',
  },
  bool('errors.deadletterqueue.copy.record.enable', null, false,
    'When writing onto the dead-letter queue topic, whether to copy the original record onto the DLQ topic, or just write a record containing the context information headers.'),
];

export const GROUP_CONFIG_BY_NAME: ReadonlyMap<string, GroupConfigDef> = new Map(GROUP_CONFIG_DEFS.map((d) => [d.name, d]));

const INT_RE = /^[+-]?\d+$/;

/** ConfigDef.parseType's value for INT and LONG, or null when it is not one. */
function parseInteger(text: string, type: 'int' | 'long'): number | null {
  if (!INT_RE.test(text)) return null;
  const n = BigInt(text);
  const limit = type === 'int' ? 2n ** 31n : 2n ** 63n;
  return n >= -limit && n < limit ? Number(n) : null;
}

/** ConfigDef.parse for one value: its problem (Kafka's ConfigException message), or null. */
function parseProblem(def: GroupConfigDef, raw: string): string | null {
  const invalid = (why: string): string => `Invalid value ${raw} for configuration ${def.name}: ${why}`;
  const value = raw.trim();
  switch (def.type) {
    case 'int': case 'long': {
      const n = parseInteger(value, def.type);
      if (n === null) return invalid(`Not a number of type ${def.type.toUpperCase()}`);
      if (def.atLeast !== undefined && n < def.atLeast) return invalid(`Value must be at least ${def.atLeast}`);
      return null;
    }
    case 'boolean':
      return /^(true|false)$/i.test(value) ? null : invalid('Expected value to be either true or false');
    case 'string': {
      if (def.oneOf !== undefined && !def.oneOf.includes(value)) return invalid(`String must be one of: ${def.oneOf.join(', ')}`);
      const problem = def.check?.(value) ?? null;
      return problem === null ? null : invalid(problem);
    }
    case 'list':
      return null;
  }
}

/**
 * Kafka's GroupConfig.validate of a group's configs after a change, against the broker's
 * bounds: the message of the first problem (Kafka answers INVALID_CONFIG), or null.
 */
export function groupConfigsProblem(configs: Readonly<Record<string, string>>, c: BrokerConfig): string | null {
  for (const name of Object.keys(configs)) if (!GROUP_CONFIG_BY_NAME.has(name)) return `Unknown group config name: ${name}`;
  const tags = configs['streams.rack.aware.assignment.tags'];
  if (tags !== undefined) {
    const keys = tags.split(',').map((t) => t.trim()).filter((t) => t !== '');
    if (new Set(keys).size !== keys.length) return 'streams.rack.aware.assignment.tags must not contain duplicate tag keys.';
  }
  for (const def of GROUP_CONFIG_DEFS) {
    const raw = configs[def.name];
    if (raw === undefined) continue;
    const problem = parseProblem(def, raw);
    if (problem !== null) return problem;
  }
  const num = (name: string): number | undefined => (configs[name] === undefined ? undefined : Number(configs[name]!.trim()));
  const range = (name: string, min: number, max: number): string | null => {
    const v = num(name);
    return v !== undefined && (v < min || v > max) ? `${name} must be in the range ${min} to ${max} inclusive.` : null;
  };
  const atMost = (name: string, max: number): string | null => {
    const v = num(name);
    return v !== undefined && v > max ? `${name} must be less than or equal to ${max}` : null;
  };
  const atLeast = (name: string, min: number): string | null => {
    const v = num(name);
    return v !== undefined && v < min ? `${name} must be greater than or equal to ${min}` : null;
  };
  const assignor = configs['streams.assignor.name']?.trim();
  const assignorProblem = assignor !== undefined && !(STREAMS.assignors as readonly string[]).includes(assignor)
    ? `streams.assignor.name '${assignor}' is not a registered task assignor. Registered assignors are: [${STREAMS.assignors.join(', ')}].` : null;
  // A session must outlast the heartbeat interval, the broker's value standing in for the one not set.
  const sessionExceedsHeartbeat = (session: string, sessionDefault: number, heartbeat: string, heartbeatDefault: number): string | null => {
    if (configs[session] === undefined && configs[heartbeat] === undefined) return null;
    return (num(session) ?? sessionDefault) > (num(heartbeat) ?? heartbeatDefault) ? null : `${session} must be greater than ${heartbeat}`;
  };
  const dlq = configs['errors.deadletterqueue.topic.name']?.trim();
  return range('consumer.heartbeat.interval.ms', c.groupConsumerMinHeartbeatIntervalMs, c.groupConsumerMaxHeartbeatIntervalMs)
    ?? range('consumer.session.timeout.ms', c.groupConsumerMinSessionTimeoutMs, c.groupConsumerMaxSessionTimeoutMs)
    ?? range('consumer.assignment.interval.ms', c.groupConsumerMinAssignmentIntervalMs, c.groupConsumerMaxAssignmentIntervalMs)
    ?? range('share.heartbeat.interval.ms', c.groupShareMinHeartbeatIntervalMs, c.groupShareMaxHeartbeatIntervalMs)
    ?? range('share.session.timeout.ms', c.groupShareMinSessionTimeoutMs, c.groupShareMaxSessionTimeoutMs)
    ?? range('share.record.lock.duration.ms', c.groupShareMinRecordLockDurationMs, c.groupShareMaxRecordLockDurationMs)
    ?? range('share.delivery.count.limit', c.groupShareMinDeliveryCountLimit, c.groupShareMaxDeliveryCountLimit)
    ?? range('share.partition.max.record.locks', c.groupShareMinPartitionMaxRecordLocks, c.groupShareMaxPartitionMaxRecordLocks)
    ?? range('share.assignment.interval.ms', c.groupShareMinAssignmentIntervalMs, c.groupShareMaxAssignmentIntervalMs)
    ?? range('streams.heartbeat.interval.ms', c.groupStreamsMinHeartbeatIntervalMs, c.groupStreamsMaxHeartbeatIntervalMs)
    ?? range('streams.session.timeout.ms', c.groupStreamsMinSessionTimeoutMs, c.groupStreamsMaxSessionTimeoutMs)
    ?? atMost('streams.num.standby.replicas', c.groupStreamsMaxStandbyReplicas)
    ?? range('streams.assignment.interval.ms', STREAMS.minAssignmentIntervalMs, STREAMS.maxAssignmentIntervalMs)
    ?? atLeast('streams.task.offset.interval.ms', STREAMS.minTaskOffsetIntervalMs)
    ?? atMost('streams.num.warmup.replicas', STREAMS.maxWarmupReplicas)
    ?? assignorProblem
    ?? sessionExceedsHeartbeat('consumer.session.timeout.ms', c.groupConsumerSessionTimeoutMs, 'consumer.heartbeat.interval.ms', c.groupConsumerHeartbeatIntervalMs)
    ?? sessionExceedsHeartbeat('share.session.timeout.ms', c.groupShareSessionTimeoutMs, 'share.heartbeat.interval.ms', c.groupShareHeartbeatIntervalMs)
    ?? sessionExceedsHeartbeat('streams.session.timeout.ms', c.groupStreamsSessionTimeoutMs, 'streams.heartbeat.interval.ms', c.groupStreamsHeartbeatIntervalMs)
    ?? (dlq !== undefined && dlq.startsWith('__') ? "errors.deadletterqueue.topic.name: DLQ topic name must not start with '__'" : null);
}
