/**
 * One partition's records of a poll, handed to the application's eachMessage (record by record)
 * or eachBatch (all at once) with KafkaJS's payload. A batch not handled to its end (a handler
 * threw, the partition was paused, the consumer stopped, a seek) puts the fetch position back to
 * the first record not handled, so the records come again.
 */
import type { ConsumerRecord } from '../client/consumer/index.js';
import { CONSUMER_EVENTS } from './consumer-types.js';
import { toBatch } from './consumer-batch.js';
import type { ConsumerRun } from './consumer-run.js';

export async function processBatch(run: ConsumerRun, records: ConsumerRecord[]): Promise<void> {
  const { consumer, positions, run: config } = run;
  const { topic, partition } = records[0]!;
  if (positions.settle(topic, partition)) return;
  const isPaused = (): boolean => consumer.paused().some((tp) => tp.topic === topic && tp.partition === partition);
  if (!run.running || isPaused() || run.rebalancePending()) return positions.rewind(topic, partition, records[0]!.offset);
  const lag = consumer.metrics().partitions.find((p) => p.topic === topic && p.partition === partition);
  const batch = toBatch(records, lag?.highWatermark ?? null);
  const payload = {
    topic, partition, highWatermark: batch.highWatermark, offsetLag: batch.offsetLag(), offsetLagLow: batch.offsetLagLow(),
    batchSize: records.length, firstOffset: batch.firstOffset(), lastOffset: batch.lastOffset(),
  };
  const started = Date.now();
  run.instrumentation.emit(CONSUMER_EVENTS.START_BATCH_PROCESS, payload);
  const pause = (): (() => void) => {
    consumer.pause([{ topic, partition }]);
    return () => run.owner.resume([{ topic, partitions: [partition] }]);
  };
  const heartbeat = (): Promise<void> => run.heartbeat();
  if (config.eachMessage) {
    for (let i = 0; i < records.length; i++) {
      const r = records[i]!;
      // KafkaJS's runner heartbeats between records: a rebalance stops the batch there.
      if (!run.running || positions.isStale(topic, partition) || isPaused() || run.rebalancePending()) return positions.rewind(topic, partition, r.offset);
      try {
        await config.eachMessage({ topic, partition, message: batch.messages[i]!, heartbeat, pause });
      } catch (err) {
        positions.rewind(topic, partition, r.offset);
        if (config.autoCommit) await run.commitResolved();
        throw err;
      }
      run.resolve(topic, partition, r.offset + 1n);
      if (config.autoCommit) await run.commitIfNecessary();
    }
  } else if (config.eachBatch) {
    try {
      await config.eachBatch({
        batch,
        resolveOffset: (offset) => run.resolve(topic, partition, BigInt(offset) + 1n),
        heartbeat,
        pause,
        commitOffsetsIfNecessary: async (offsets) => {
          if (offsets) await run.commitOffsets(offsets.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, offset: BigInt(p.offset) }))));
          else if (config.autoCommit) await run.commitIfNecessary();
        },
        uncommittedOffsets: () => run.offsets.uncommitted(),
        isRunning: () => run.running,
        isStale: () => positions.isStale(topic, partition),
      });
      if (config.eachBatchAutoResolve) run.resolve(topic, partition, records[records.length - 1]!.offset + 1n);
    } catch (err) {
      run.rewindToResolved(records);
      if (config.autoCommit) await run.commitResolved();
      throw err;
    }
    // A batch left unresolved (in part) comes again, as in KafkaJS.
    run.rewindToResolved(records);
  }
  run.instrumentation.emit(CONSUMER_EVENTS.END_BATCH_PROCESS, { ...payload, duration: Date.now() - started });
  if (config.autoCommit) await run.commitResolved();
}
