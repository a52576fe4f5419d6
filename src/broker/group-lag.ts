/**
 * Consumer lag as Kafka's kafka-consumer-groups computes it: per committed offset, the
 * partition's log end offset minus the committed offset (not clamped: a committed offset past
 * the log end shows as negative). The metrics endpoint and the console read it from here.
 */
import type { GroupCoordinator } from '../coordinator/index.js';
import type { Storage } from '../storage/types.js';

export interface CommittedLag {
  readonly groupId: string;
  readonly topic: string;
  readonly partition: number;
  readonly committed: bigint;
  readonly logEndOffset: bigint;
  readonly lag: bigint;
}

/**
 * Every committed offset of a partition that exists, group by group, with its lag (groups with
 * or without a group object: a simple consumer's commits count too); only `groupId`'s when given.
 */
export function committedLags(coordinator: GroupCoordinator, storage: Storage, groupId?: string): CommittedLag[] {
  const out: CommittedLag[] = [];
  coordinator.forEachCommittedOffset((group, topic, partition, committed) => {
    if (groupId !== undefined && group !== groupId) return;
    const log = storage.partition(topic, partition);
    if (log === undefined || committed < 0n) return;
    out.push({ groupId: group, topic, partition, committed, logEndOffset: log.logEndOffset, lag: log.logEndOffset - committed });
  });
  return out;
}
