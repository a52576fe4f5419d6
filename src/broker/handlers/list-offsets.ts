/**
 * ListOffsets: earliest (-2), latest (-1), max timestamp (-3), earliest local (-4, the same
 * as earliest: nothing is tiered), latest tiered (-5: no tiered storage, so "none"),
 * earliest pending upload (-6, v11, KIP-1023: nothing waits for tiered storage, so "none",
 * as Kafka answers for a topic without remote storage), or the first offset whose timestamp is at or after a given time. v0 (the old multi-offset
 * form) is not served, as in Kafka 4. With isolation_level=read_committed (v2+) the last
 * fetchable offset is the last stable offset, as Kafka's fetchOffsetForTimestamp: latest is
 * the LSO, and a timestamp lookup that lands at or past it finds nothing (offset -1).
 */
import { Api } from '../../protocol/messages/index.js';
import type { ListOffsetsRequestData, ListOffsetsResponseData, ListOffsetsPartition, ListOffsetsPartitionResponse } from '../../protocol/messages/list-offsets.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { PartitionLog } from '../../storage/types.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

const LATEST = -1n;
const EARLIEST = -2n;
const MAX_TIMESTAMP = -3n;
const EARLIEST_LOCAL = -4n;
const LATEST_TIERED = -5n;
const EARLIEST_PENDING_UPLOAD = -6n;
const READ_COMMITTED = 1;

function lookup(log: PartitionLog, timestamp: bigint, readCommitted: boolean): { offset: bigint; timestamp: bigint } | null {
  const lastFetchable = readCommitted ? log.lastStableOffset : log.highWatermark;
  let found: { offset: bigint; timestamp: bigint } | null;
  switch (timestamp) {
    case LATEST: return { offset: lastFetchable, timestamp: -1n };
    case EARLIEST: case EARLIEST_LOCAL: return { offset: log.logStartOffset, timestamp: -1n };
    case MAX_TIMESTAMP: found = log.maxTimestamp(); break;
    case LATEST_TIERED: case EARLIEST_PENDING_UPLOAD: return null;
    default: found = timestamp < 0n ? null : log.offsetForTimestamp(timestamp);
  }
  return found && found.offset < lastFetchable ? found : null;
}

export const listOffsetsHandler = defineHandler<ListOffsetsRequestData, ListOffsetsResponseData>({
  api: Api.ListOffsets,
  authorization: authorizes({ TOPIC: ['DESCRIBE'] }),
  minVersion: 1,
  maxVersion: Api.ListOffsets.request.highestVersion,
  handle(ctx, request) {
    const { storage } = ctx.broker;
    const readCommitted = (request.isolationLevel ?? 0) === READ_COMMITTED;
    // As Kafka (ReplicaManager.fetchOffset keeps one status per partition): a partition named
    // more than once gets one answer, INVALID_REQUEST.
    const counts = new Map<string, number>();
    for (const t of request.topics) {
      for (const p of t.partitions) counts.set(`${t.name}/${p.partitionIndex}`, (counts.get(`${t.name}/${p.partitionIndex}`) ?? 0) + 1);
    }
    const answered = new Set<string>();
    const byTopic = new Map<string, ListOffsetsPartitionResponse[]>();
    // Kafka: topics the client may not DESCRIBE come after the others, every partition refused.
    const refused: ListOffsetsResponseData['topics'] = [];
    for (const t of request.topics) {
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.name)) {
        refused.push({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, timestamp: -1n, offset: -1n, leaderEpoch: -1, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })) });
        continue;
      }
      let partitions = byTopic.get(t.name);
      if (!partitions) byTopic.set(t.name, (partitions = []));
      for (const p of t.partitions) {
        const key = `${t.name}/${p.partitionIndex}`;
        if (answered.has(key)) continue;
        answered.add(key);
        partitions.push(answer(ctx.apiVersion, storage.partition(t.name, p.partitionIndex), p, counts.get(key)! > 1, readCommitted, ctx.broker.controls.offlinePartitions.has(t.name, p.partitionIndex)));
      }
    }
    return { throttleTimeMs: 0, topics: [...[...byTopic].map(([name, partitions]) => ({ name, partitions })), ...refused] };
  },
});

function answer(version: number, log: PartitionLog | undefined, p: ListOffsetsPartition, duplicate: boolean, readCommitted: boolean, offline: boolean): ListOffsetsPartitionResponse {
  const base = { partitionIndex: p.partitionIndex, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
  if (duplicate) return { ...base, errorCode: ErrorCode.INVALID_REQUEST };
  if (!log) return { ...base, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
  if (offline) return { ...base, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
  if ((p.currentLeaderEpoch ?? -1) > 0) return { ...base, errorCode: ErrorCode.UNKNOWN_LEADER_EPOCH };
  const found = lookup(log, p.timestamp, readCommitted);
  if (!found) return { ...base, errorCode: ErrorCode.NONE };
  // The leader epoch field exists from v4; earlier versions must leave it at its default.
  return { ...base, errorCode: ErrorCode.NONE, offset: found.offset, timestamp: found.timestamp, leaderEpoch: version >= 4 ? 0 : -1 };
}
