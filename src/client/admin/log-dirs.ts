/**
 * DescribeLogDirs (kafka-log-dirs --describe): each broker's log directories with the
 * partitions in them and their sizes. Sent to every broker of the cluster, or to the ones
 * asked for.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { compareTopicPartition, groupByTopic, type AdminContext } from './requests.js';
import type { DescribeLogDirsQuery, LogDirDescription } from './types.js';

const orNull = (v: bigint | undefined): bigint | null => (v === undefined || v < 0n ? null : v);

export async function describeLogDirs(ctx: AdminContext, query: DescribeLogDirsQuery): Promise<LogDirDescription[]> {
  if (!query.brokers) await ctx.cluster.refreshMetadata([], ctx.signal);
  const brokers = query.brokers ?? ctx.cluster.knownBrokers().map((b) => b.nodeId).sort((a, b) => a - b);
  const topics = query.partitions
    ? [...groupByTopic(query.partitions)].map(([topic, ps]) => ({ topic, partitions: ps.map((p) => p.partition) }))
    : null;
  const perBroker = await Promise.all(brokers.map(async (broker) => {
    const connection = await ctx.cluster.connectionToNode(broker, ctx.signal);
    const response = await connection.request(Api.DescribeLogDirs, { topics }, { signal: ctx.signal });
    if ((response.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) {
      return [{ broker, path: '', error: errorInfo(response.errorCode!).name, totalBytes: null, usableBytes: null, partitions: [] }];
    }
    return response.results.map((dir): LogDirDescription => ({
      broker,
      path: dir.logDir,
      error: dir.errorCode === ErrorCode.NONE ? null : errorInfo(dir.errorCode).name,
      totalBytes: orNull(dir.totalBytes),
      usableBytes: orNull(dir.usableBytes),
      partitions: dir.topics.flatMap((t) => t.partitions.map((p) => ({
        topic: t.name, partition: p.partitionIndex, sizeBytes: p.partitionSize, offsetLag: p.offsetLag, isFuture: p.isFutureKey,
      }))).sort(compareTopicPartition),
    }));
  }));
  return perBroker.flat();
}
