/**
 * A group's configs as the settings Brook acts on: the group coordinator's session timeouts
 * and heartbeat intervals, and the share-partitions' share.* settings. The values were
 * validated when set (group-config-defs.ts); a value not set leaves the broker's in place.
 */
import type { GroupOverrides } from '../../coordinator/types.js';
import { isoDurationMs } from './iso-duration.js';
import type { GroupConfigs } from './group-config-store.js';

/** share.auto.offset.reset: where a share-partition without a start offset begins. */
export type ShareAutoOffsetReset = 'latest' | 'earliest' | { readonly byDurationMs: number };

/** An INT config's value, or undefined when the group has none. */
export function intConfig(configs: GroupConfigs, name: string): number | undefined {
  const v = configs[name];
  return v === undefined ? undefined : Number(v.trim());
}

/** A list config as Kafka's ConfigDef parses it: comma-separated, trimmed; blank is empty. */
export function listConfig(configs: GroupConfigs, name: string): string[] | undefined {
  const v = configs[name]?.trim();
  if (v === undefined) return undefined;
  return v === '' ? [] : v.split(/\s*,\s*/);
}

export function shareAutoOffsetReset(configs: GroupConfigs): ShareAutoOffsetReset {
  const v = configs['share.auto.offset.reset']?.trim();
  if (v === 'earliest') return 'earliest';
  if (v?.startsWith('by_duration:') === true) return { byDurationMs: isoDurationMs(v.slice('by_duration:'.length)) ?? 0 };
  return 'latest';
}

/** What the group coordinator takes from a group's configs (Kafka's GroupConfigManager lookups). */
export function coordinatorOverrides(configs: GroupConfigs): GroupOverrides {
  return {
    consumerSessionTimeoutMs: intConfig(configs, 'consumer.session.timeout.ms'),
    consumerHeartbeatIntervalMs: intConfig(configs, 'consumer.heartbeat.interval.ms'),
    shareSessionTimeoutMs: intConfig(configs, 'share.session.timeout.ms'),
    shareHeartbeatIntervalMs: intConfig(configs, 'share.heartbeat.interval.ms'),
    streamsSessionTimeoutMs: intConfig(configs, 'streams.session.timeout.ms'),
    streamsHeartbeatIntervalMs: intConfig(configs, 'streams.heartbeat.interval.ms'),
    streamsNumStandbyReplicas: intConfig(configs, 'streams.num.standby.replicas'),
    streamsAssignmentIntervalMs: intConfig(configs, 'streams.assignment.interval.ms'),
    streamsRackAwareAssignmentTags: listConfig(configs, 'streams.rack.aware.assignment.tags'),
  };
}

/** A group's dead-letter queue topic (errors.deadletterqueue.topic.name; blank: none) and whether records are copied there. */
export function dlqGroupConfig(configs: GroupConfigs = {}): { topic: string | undefined; copyRecord: boolean } {
  const topic = configs['errors.deadletterqueue.topic.name']?.trim();
  return { topic: topic === undefined || topic === '' ? undefined : topic, copyRecord: configs['errors.deadletterqueue.copy.record.enable']?.toLowerCase() === 'true' };
}
