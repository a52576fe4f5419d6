/**
 * DescribeLogDirs (kafka-log-dirs --describe): Brook has one log directory, the data
 * directory, and reports each partition's size as Kafka does (the bytes of its segments'
 * log files), offset lag 0 (no replica is moving between directories: no "future" logs),
 * and from v4 the volume's total and usable bytes (statfs). The memory engine reports one
 * pseudo directory, "(memory)", of unknown volume size (-1, Kafka's UNKNOWN_VOLUME_BYTES):
 * Kafka always has a log directory, and tools expect the partitions listed under one.
 * v5's IsCordoned is false: Brook has no `cordoned.log.dirs` (empty by default in Kafka 4.4,
 * which cordons none then).
 */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeLogDirsRequestData, DescribeLogDirsResponseData, DescribeLogDirsTopic } from '../../protocol/messages/describe-log-dirs.js';
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

export const describeLogDirsHandler = defineHandler<DescribeLogDirsRequestData, DescribeLogDirsResponseData>({
  api: Api.DescribeLogDirs,
  authorization: authorizes({ CLUSTER: ['DESCRIBE'] }),
  minVersion: 1,
  maxVersion: Api.DescribeLogDirs.request.highestVersion,
  handle(ctx, request) {
    // Kafka: DESCRIBE on the cluster, else no directories (and the error, from v3).
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, results: [] };
    const { storage } = ctx.broker;
    // null: every partition; otherwise only the named ones that exist (Kafka leaves out the rest).
    const wanted = request.topics === null ? null : new Map<string, Set<number>>();
    for (const t of request.topics ?? []) {
      const set = wanted!.get(t.topic) ?? new Set<number>();
      for (const p of t.partitions) set.add(p);
      wanted!.set(t.topic, set);
    }
    const topics: DescribeLogDirsTopic[] = [];
    for (const topic of storage.topics()) {
      const only = wanted?.get(topic.name);
      if (wanted && !only) continue;
      const partitions = [];
      for (let p = 0; p < topic.partitions; p++) {
        if (only && !only.has(p)) continue;
        const log = storage.partition(topic.name, p);
        if (log) partitions.push({ partitionIndex: p, partitionSize: BigInt(log.sizeInBytes), offsetLag: 0n, isFutureKey: false });
      }
      if (partitions.length > 0) topics.push({ name: topic.name, partitions });
    }
    const dir = storage.logDir();
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: [{ errorCode: ErrorCode.NONE, logDir: dir.path, topics, totalBytes: dir.totalBytes, usableBytes: dir.usableBytes, isCordoned: false }],
    };
  },
});
