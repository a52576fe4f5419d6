/**
 * How the coordinator runtime replays one partition of its shard's topic at load: the last
 * record of each key (offsets-replay.ts; the records of transactions still open at the log
 * end last, pending until their marker), or, for a shard whose records add to each other
 * (`replayEveryRecord`), every record with where it lies.
 */
import type { PartitionLog } from '../../storage/types.js';
import { readEveryRecord, readForReplay } from '../offsets-replay.js';
import type { CoordinatorShard, ShardResult } from './shard.js';

/** Replays partition `partition` (`log`) into `shard`; returns how many records it read. */
export function replayPartition<Res extends ShardResult>(shard: CoordinatorShard<Res>, log: PartitionLog, partition: number, everyRecord: boolean): number {
  if (everyRecord) {
    const every = readEveryRecord(log);
    for (const { record, offset } of every) shard.replay(record, { partition, offset });
    return every.length;
  }
  const latest = readForReplay(log);
  for (const record of latest.toReplay()) shard.replay(record);
  for (const record of latest.openTransactionRecords()) shard.replay(record);
  return latest.records;
}
