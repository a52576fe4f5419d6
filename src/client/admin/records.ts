/**
 * Partition-level log admin at each partition's leader: DeleteRecords (kafka-delete-records)
 * and DescribeProducers (kafka-transactions describe-producers). Partitions the cluster
 * does not know get UNKNOWN_TOPIC_OR_PARTITION each; a leader that moved (a retriable
 * error) is looked up again and asked again, as Kafka's admin client does, until the call's
 * time limit.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError, errorInfo, isRetriable } from '../../protocol/errors.js';
import type { BrokerConnection } from '../connection.js';
import { compareTopicPartition, groupByTopic, tpKey, type AdminContext } from './requests.js';
import type { DeletedRecords, PartitionProducers, RecordsToDelete, TopicPartition } from './types.js';

/** One partition's answer: a value, or a Kafka error code. */
type Outcome<V> = { readonly value: V } | { readonly errorCode: number };

/**
 * Sends `partitions` to their leaders (`send`: one request per leader, answers by
 * `tpKey`) and retries the retriable failures after retry.backoff.ms.
 */
async function atLeaders<P extends TopicPartition, V>(
  ctx: AdminContext, partitions: readonly P[], what: string,
  send: (connection: BrokerConnection, partitions: P[]) => Promise<Map<string, Outcome<V>>>,
): Promise<Map<string, Outcome<V>>> {
  const result = new Map<string, Outcome<V>>();
  let pending = [...partitions];
  while (pending.length > 0) {
    const byLeader = new Map<number, P[]>();
    const retry: P[] = [];
    for (const p of pending) {
      try {
        const leader = await ctx.cluster.leaderFor(p.topic, p.partition, ctx.signal);
        byLeader.set(leader, [...(byLeader.get(leader) ?? []), p]);
      } catch (err) {
        if (!(err instanceof KafkaProtocolError) || ctx.signal.aborted) throw err;
        if (isRetriable(err.errorCode) && err.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) retry.push(p);
        else result.set(tpKey(p), { errorCode: err.errorCode });
      }
    }
    await Promise.all([...byLeader].map(async ([leader, ps]) => {
      const connection = await ctx.cluster.connectionToNode(leader, ctx.signal);
      const answers = await send(connection, ps);
      for (const p of ps) {
        const answer = answers.get(tpKey(p)) ?? { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR };
        if ('errorCode' in answer && isRetriable(answer.errorCode)) {
          ctx.cluster.invalidateTopic(p.topic);
          retry.push(p);
        } else {
          result.set(tpKey(p), answer);
        }
      }
    }));
    if (retry.length > 0) {
      ctx.cluster.logger.debug(`${what} failed at a leader; retrying`, { partitions: retry.length });
      await ctx.cluster.backoff(ctx.signal);
    }
    pending = retry;
  }
  return result;
}

const errorName = (code: number): string => errorInfo(code).name;

/** DeleteRecords: per partition its new low watermark, or the error (sorted by topic and partition). */
export async function deleteRecords(ctx: AdminContext, records: readonly RecordsToDelete[]): Promise<DeletedRecords[]> {
  const answers = await atLeaders(ctx, records, 'DeleteRecords', async (connection, ps) => {
    const response = await connection.request(Api.DeleteRecords, {
      topics: [...groupByTopic(ps)].map(([name, list]) => ({ name, partitions: list.map((p) => ({ partitionIndex: p.partition, offset: p.offset })) })),
      timeoutMs: ctx.apiTimeoutMs,
    }, { signal: ctx.signal });
    const out = new Map<string, Outcome<bigint>>();
    for (const t of response.topics) {
      for (const p of t.partitions) {
        out.set(tpKey({ topic: t.name, partition: p.partitionIndex }), p.errorCode === ErrorCode.NONE ? { value: p.lowWatermark } : { errorCode: p.errorCode });
      }
    }
    return out;
  });
  return records.map((r): DeletedRecords => {
    const a = answers.get(tpKey(r))!;
    return 'value' in a
      ? { topic: r.topic, partition: r.partition, lowWatermark: a.value, error: null }
      : { topic: r.topic, partition: r.partition, lowWatermark: null, error: errorName(a.errorCode) };
  }).sort(compareTopicPartition);
}

/** DescribeProducers: per partition its active producers, or the error (sorted by topic and partition). */
export async function describeProducers(ctx: AdminContext, partitions: readonly TopicPartition[]): Promise<PartitionProducers[]> {
  const answers = await atLeaders(ctx, partitions, 'DescribeProducers', async (connection, ps) => {
    const response = await connection.request(Api.DescribeProducers, {
      topics: [...groupByTopic(ps)].map(([name, list]) => ({ name, partitionIndexes: list.map((p) => p.partition) })),
    }, { signal: ctx.signal });
    const out = new Map<string, Outcome<PartitionProducers['activeProducers']>>();
    for (const t of response.topics) {
      for (const p of t.partitions) {
        const key = tpKey({ topic: t.name, partition: p.partitionIndex });
        if (p.errorCode !== ErrorCode.NONE) {
          out.set(key, { errorCode: p.errorCode });
          continue;
        }
        out.set(key, {
          value: p.activeProducers.map((s) => ({
            producerId: s.producerId, producerEpoch: s.producerEpoch, lastSequence: s.lastSequence, lastTimestamp: s.lastTimestamp,
            coordinatorEpoch: s.coordinatorEpoch < 0 ? null : s.coordinatorEpoch,
            currentTransactionStartOffset: s.currentTxnStartOffset < 0n ? null : s.currentTxnStartOffset,
          })),
        });
      }
    }
    return out;
  });
  return partitions.map((tp): PartitionProducers => {
    const a = answers.get(tpKey(tp))!;
    return 'value' in a
      ? { topic: tp.topic, partition: tp.partition, error: null, activeProducers: a.value }
      : { topic: tp.topic, partition: tp.partition, error: errorName(a.errorCode), activeProducers: [] };
  }).sort(compareTopicPartition);
}
