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
  // Checked before every record: the run's own pause bookkeeping answers without a scan of
  // every partition (Brook's consumer.paused() builds a list).
  const tp = { topic, partition };
  const isPaused = (): boolean => run.pauses.isPaused(tp);
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
    run.pause([{ topic, partitions: [partition] }]);
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
          if (offsets) await run.commitOffsets(offsets.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: Number(p.partition), offset: BigInt(p.offset) }))));
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

/**
 * A poll moved a partition's position without a record for the application: the fetched data
 * held only transaction markers or aborted records (read_committed). KafkaJS's runner still
 * reports that batch (START_BATCH_PROCESS and END_BATCH_PROCESS with batchSize 0, firstOffset
 * and lastOffset those of the filtered data) and resolves its last offset, so the group's
 * offset moves past the markers.
 */
export async function processFilteredBatch(run: ConsumerRun, topic: string, partition: number, from: bigint, to: bigint, highWatermark: bigint | null): Promise<void> {
  const last = to - 1n;
  const hw = highWatermark ?? to;
  const lagAfter = (offset: bigint): string => String(hw - 1n - offset < 0n ? 0n : hw - 1n - offset);
  const payload = {
    topic, partition, highWatermark: String(hw), offsetLag: lagAfter(last), offsetLagLow: lagAfter(from),
    batchSize: 0, firstOffset: String(from), lastOffset: String(last),
  };
  const started = Date.now();
  run.instrumentation.emit(CONSUMER_EVENTS.START_BATCH_PROCESS, payload);
  run.resolve(topic, partition, to);
  if (run.run.autoCommit) await run.commitIfNecessary();
  run.instrumentation.emit(CONSUMER_EVENTS.END_BATCH_PROCESS, { ...payload, duration: Date.now() - started });
}
