/**
 * The broker's settings as the broker runs with them: the table's (broker-configs.ts)
 * options with their defaults, checked as Kafka checks them at start-up, and the parts of
 * them the group and transaction coordinators take.
 */
import type { GroupCoordinatorConfig } from '../coordinator/types.js';
import type { TransactionCoordinatorConfig } from '../coordinator/transactions/types.js';
import { BROKER_CONFIG_ENTRIES, OPTION_DEFS, type AnySettingDef, type BrokerSettings } from './broker-configs.js';
import { LONG, problemError } from './config-types.js';

export type { FlushPolicy } from './broker-configs.js';

/** Every setting, by option name (Kafka's names in camelCase; the list: docs/CLI.md, `--config FILE`). */
export type BrokerConfig = BrokerSettings;

export const DEFAULT_BROKER_CONFIG: BrokerConfig = Object.freeze(Object.fromEntries(
  [...OPTION_DEFS.values()].filter((d) => d.default !== undefined).map((d) => [d.option, d.default]),
)) as BrokerConfig;

/** How a value shows in a message: as text, or JSON for what is not a number, boolean or string. */
function shown(value: unknown): string {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/**
 * Checks one option value as Kafka checks the setting (type, then bounds), naming the
 * setting by Kafka's name (by the option's where its unit is not the property's).
 */
function checkOption(option: string, value: unknown): void {
  const def = OPTION_DEFS.get(option);
  if (def === undefined) throw new Error(`Unknown broker option: ${option}`);
  const scaled = def.kind === 'setting' && def.scale !== undefined;
  const name = def.kind === 'family' || scaled ? option : (def as AnySettingDef).name;
  // A scaled option (offsetsRetentionMs, of offsets.retention.minutes) is a long.
  const accepted = scaled ? LONG.accepts(value) : def.type.accepts(value);
  if (!accepted) throw new Error(`Invalid value ${shown(value)} for configuration ${name}: ${scaled ? LONG.expected : def.type.expected}`);
  const problem = def.kind === 'setting' ? def.check?.(value) : null;
  if (problem) throw problemError(name, def.type.format(value) ?? shown(value), problem);
}

/**
 * The settings in force: Kafka's defaults (Brook's where noted) under the given options. Every
 * option is checked, then the settings against each other; the first that fails throws
 * Kafka's message. An option given as undefined keeps its default.
 */
export function brokerConfig(options: Partial<BrokerConfig> = {}): BrokerConfig {
  const config: Record<string, unknown> = { ...DEFAULT_BROKER_CONFIG };
  for (const [option, value] of Object.entries(options)) {
    if (value === undefined) continue;
    checkOption(option, value);
    config[option] = value;
  }
  const checked = config as BrokerConfig;
  checkTogether(checked);
  return checked;
}

/** Kafka's start-up checks between settings (GroupCoordinatorConfig), with its messages. */
function checkTogether(c: BrokerConfig): void {
  const require = (ok: boolean, message: string): void => {
    if (!ok) throw new Error(message);
  };
  const [hb, minHb, maxHb] = [c.groupConsumerHeartbeatIntervalMs, c.groupConsumerMinHeartbeatIntervalMs, c.groupConsumerMaxHeartbeatIntervalMs];
  const [st, minSt, maxSt] = [c.groupConsumerSessionTimeoutMs, c.groupConsumerMinSessionTimeoutMs, c.groupConsumerMaxSessionTimeoutMs];
  require(maxHb >= minHb, 'group.consumer.max.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms');
  require(hb >= minHb, 'group.consumer.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms');
  require(hb <= maxHb, 'group.consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms');
  require(maxSt >= minSt, 'group.consumer.max.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms');
  require(st >= minSt, 'group.consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms');
  require(st <= maxSt, 'group.consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms');
  require(hb < st, 'group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms');
  const [ai, minAi, maxAi] = [c.groupConsumerAssignmentIntervalMs, c.groupConsumerMinAssignmentIntervalMs, c.groupConsumerMaxAssignmentIntervalMs];
  require(maxAi >= minAi, 'group.consumer.max.assignment.interval.ms must be greater than or equal to group.consumer.min.assignment.interval.ms');
  require(ai >= minAi, 'group.consumer.assignment.interval.ms must be greater than or equal to group.consumer.min.assignment.interval.ms');
  require(ai <= maxAi, 'group.consumer.assignment.interval.ms must be less than or equal to group.consumer.max.assignment.interval.ms');
  const [shb, sminHb, smaxHb] = [c.groupShareHeartbeatIntervalMs, c.groupShareMinHeartbeatIntervalMs, c.groupShareMaxHeartbeatIntervalMs];
  const [sst, sminSt, smaxSt] = [c.groupShareSessionTimeoutMs, c.groupShareMinSessionTimeoutMs, c.groupShareMaxSessionTimeoutMs];
  require(smaxHb >= sminHb, 'group.share.max.heartbeat.interval.ms must be greater than or equal to group.share.min.heartbeat.interval.ms');
  require(shb >= sminHb, 'group.share.heartbeat.interval.ms must be greater than or equal to group.share.min.heartbeat.interval.ms');
  require(shb <= smaxHb, 'group.share.heartbeat.interval.ms must be less than or equal to group.share.max.heartbeat.interval.ms');
  require(smaxSt >= sminSt, 'group.share.max.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms');
  require(sst >= sminSt, 'group.share.session.timeout.ms must be greater than or equal to group.share.min.session.timeout.ms');
  require(sst <= smaxSt, 'group.share.session.timeout.ms must be less than or equal to group.share.max.session.timeout.ms');
  require(shb < sst, 'group.share.heartbeat.interval.ms must be less than group.share.session.timeout.ms');
  const [sai, sminAi, smaxAi] = [c.groupShareAssignmentIntervalMs, c.groupShareMinAssignmentIntervalMs, c.groupShareMaxAssignmentIntervalMs];
  require(smaxAi >= sminAi, 'group.share.max.assignment.interval.ms must be greater than or equal to group.share.min.assignment.interval.ms');
  require(sai >= sminAi, 'group.share.assignment.interval.ms must be greater than or equal to group.share.min.assignment.interval.ms');
  require(sai <= smaxAi, 'group.share.assignment.interval.ms must be less than or equal to group.share.max.assignment.interval.ms');
  const [thb, tminHb, tmaxHb] = [c.groupStreamsHeartbeatIntervalMs, c.groupStreamsMinHeartbeatIntervalMs, c.groupStreamsMaxHeartbeatIntervalMs];
  const [tst, tminSt, tmaxSt] = [c.groupStreamsSessionTimeoutMs, c.groupStreamsMinSessionTimeoutMs, c.groupStreamsMaxSessionTimeoutMs];
  require(tmaxHb >= tminHb, 'group.streams.max.heartbeat.interval.ms must be greater than or equal to group.streams.min.heartbeat.interval.ms');
  require(thb >= tminHb, 'group.streams.heartbeat.interval.ms must be greater than or equal to group.streams.min.heartbeat.interval.ms');
  require(thb <= tmaxHb, 'group.streams.heartbeat.interval.ms must be less than or equal to group.streams.max.heartbeat.interval.ms');
  require(tmaxSt >= tminSt, 'group.streams.max.session.timeout.ms must be greater than or equal to group.streams.min.session.timeout.ms');
  require(tst >= tminSt, 'group.streams.session.timeout.ms must be greater than or equal to group.streams.min.session.timeout.ms');
  require(tst <= tmaxSt, 'group.streams.session.timeout.ms must be less than or equal to group.streams.max.session.timeout.ms');
  require(thb < tst, 'group.streams.heartbeat.interval.ms must be less than group.streams.session.timeout.ms');
  require(c.groupStreamsNumStandbyReplicas <= c.groupStreamsMaxStandbyReplicas, 'group.streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas');
  // group.streams.max.assignment.interval.ms is not a Brook setting: Kafka's default (15 s).
  require(c.groupStreamsAssignmentIntervalMs <= 15_000, 'group.streams.assignment.interval.ms must be less than or equal to group.streams.max.assignment.interval.ms');
  // Kafka's ShareGroupConfig.validate, in its order.
  const atLeast = (a: number, aName: string, b: number, bName: string): void => require(a >= b, `${aName} must be greater than or equal to ${bName}`);
  atLeast(c.groupShareMaxDeliveryCountLimit, 'group.share.max.delivery.count.limit', c.groupShareDeliveryCountLimit, 'group.share.delivery.count.limit');
  atLeast(c.groupShareDeliveryCountLimit, 'group.share.delivery.count.limit', c.groupShareMinDeliveryCountLimit, 'group.share.min.delivery.count.limit');
  atLeast(c.groupShareMaxPartitionMaxRecordLocks, 'group.share.max.partition.max.record.locks', c.groupSharePartitionMaxRecordLocks, 'group.share.partition.max.record.locks');
  atLeast(c.groupSharePartitionMaxRecordLocks, 'group.share.partition.max.record.locks', c.groupShareMinPartitionMaxRecordLocks, 'group.share.min.partition.max.record.locks');
  atLeast(c.groupShareRecordLockDurationMs, 'group.share.record.lock.duration.ms', c.groupShareMinRecordLockDurationMs, 'group.share.min.record.lock.duration.ms');
  atLeast(c.groupShareMaxRecordLockDurationMs, 'group.share.max.record.lock.duration.ms', c.groupShareRecordLockDurationMs, 'group.share.record.lock.duration.ms');
  atLeast(c.groupShareMaxShareSessions, 'group.share.max.share.sessions', c.groupShareMaxSize, 'group.share.max.size');
}

/** The settings of the group coordinator (the table's `group` entries). */
export function groupCoordinatorSettings(c: BrokerConfig): Partial<GroupCoordinatorConfig> {
  const out: Record<string, unknown> = {};
  for (const d of BROKER_CONFIG_ENTRIES) if (d.kind === 'setting' && d.group !== undefined) out[d.group] = c[d.option as keyof BrokerConfig];
  return out as Partial<GroupCoordinatorConfig>;
}

/** The settings of the transaction coordinator (the table's `transaction` entries). */
export function transactionCoordinatorSettings(c: BrokerConfig): TransactionCoordinatorConfig {
  const out: Record<string, unknown> = {};
  for (const d of BROKER_CONFIG_ENTRIES) if (d.kind === 'setting' && d.transaction !== undefined) out[d.transaction] = c[d.option as keyof BrokerConfig];
  return out as unknown as TransactionCoordinatorConfig;
}
