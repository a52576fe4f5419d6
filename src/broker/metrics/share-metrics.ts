/**
 * Share groups' record delivery, beside the groups' metrics: per share-partition loaded on
 * this broker its start offset and in-flight records (Kafka's SharePartitionMetrics
 * in-flight message count), and per group the records acquired, acknowledged by type and
 * released by an acquisition lock running out (Kafka's share-group-metrics), the
 * dead-letter queue writes (Kafka's ShareGroupMetrics DeadLetterQueue*), and the share
 * sessions open.
 */
import type { SharePartitionManager } from '../share/share-partition-manager.js';
import type { Storage } from '../../storage/types.js';
import { escapeLabelValue, type Exposition } from './exposition.js';

export function renderShareMetrics(e: Exposition, shares: SharePartitionManager, storage: Storage): void {
  const partitions = shares.loadedPartitions();
  e.family('brook_share_partition_start_offset', 'gauge', 'The share-partition start offset: every record before it was acknowledged or archived.');
  const labels = partitions.map((p) => `group="${escapeLabelValue(p.groupId)}",topic="${escapeLabelValue(storage.topicById(p.topicId)?.name ?? p.topicId)}",partition="${p.partition}"`);
  partitions.forEach((p, i) => e.sample('brook_share_partition_start_offset', labels[i]!, p.sharePartition.startOffset));
  e.family('brook_share_partition_in_flight_records', 'gauge', 'Records from the start offset to the last acquired one (what group.share.partition.max.record.locks bounds).');
  partitions.forEach((p, i) => e.sample('brook_share_partition_in_flight_records', labels[i]!, p.sharePartition.inFlightRecords));

  const counters = shares.counters;
  e.family('brook_share_records_acquired_total', 'counter', 'Records acquired by the group\'s members (each delivery counts).');
  for (const [groupId, n] of counters.acquired) e.sample('brook_share_records_acquired_total', `group="${escapeLabelValue(groupId)}"`, n);
  e.family('brook_share_records_acknowledged_total', 'counter', 'Records acknowledged by the group\'s members, by acknowledge type.');
  for (const [groupId, byType] of counters.acknowledged) {
    for (const [type, n] of byType) e.sample('brook_share_records_acknowledged_total', `group="${escapeLabelValue(groupId)}",type="${type}"`, n);
  }
  e.family('brook_share_records_lock_expired_total', 'counter', 'Acquired records released (or archived at the delivery count limit) because their acquisition lock ran out.');
  for (const [groupId, n] of counters.lockExpired) e.sample('brook_share_records_lock_expired_total', `group="${escapeLabelValue(groupId)}"`, n);
  const dlq: [string, Map<string, number>, string][] = [
    ['brook_share_dlq_produce_requests_total', counters.dlqProduceRequests, 'Writes of archived records to the group\'s dead-letter queue topic (Kafka\'s DeadLetterQueueTotalProduceRequestsPerSec).'],
    ['brook_share_dlq_failed_produce_requests_total', counters.dlqProduceFailed, 'Dead-letter queue writes that failed; their records were archived all the same (Kafka\'s DeadLetterQueueFailedProduceRequestsPerSec).'],
    ['brook_share_dlq_records_total', counters.dlqRecords, 'Records written to the group\'s dead-letter queue topic (Kafka\'s DeadLetterQueueRecordCount).'],
  ];
  for (const [name, byGroup, help] of dlq) {
    e.family(name, 'counter', help);
    for (const [groupId, n] of byGroup) e.sample(name, `group="${escapeLabelValue(groupId)}"`, n);
  }
  e.family('brook_share_sessions', 'gauge', 'Share sessions open (one per share group member fetching).');
  e.sample('brook_share_sessions', '', shares.sessions.size);
}
