/**
 * The contract between the coordinator runtime (runtime.ts) and a coordinator it runs, as
 * Kafka's coordinator-common CoordinatorShard: the shard is a pure state machine over an
 * internal topic. It is built empty, replays the topic's records at load, and answers every
 * call with a result: records to append, replies, timer changes and, when its memory ran
 * ahead of the log, a token the runtime settles once the records are durable or failed.
 */
import type { CoordinatorRecord, RequestId, ResultToken, TimerKey, TimerOp } from '../../coordinator/types.js';

/** A record for the shard's topic; `partition` picks the partition (default 0). */
export interface ShardRecord extends CoordinatorRecord {
  partition?: number;
}

/** Where a record landed in the shard's topic. */
export interface RecordPosition {
  readonly partition: number;
  readonly offset: bigint;
}

export interface ShardReply {
  readonly requestId: RequestId;
  readonly response: unknown;
}

/** What every shard call returns (the group coordinator's CoordinatorResult is one). */
export interface ShardResult {
  readonly replies: readonly ShardReply[];
  /** Applied at once, in order. */
  readonly timers: readonly TimerOp[];
  /**
   * Appended to the shard's topic in order: one batch per partition and turn of the event
   * loop; records with a producer id go in a transactional batch of their own.
   */
  readonly records: readonly ShardRecord[];
  /** Settled (CoordinatorShard.settle) once the records, and those before them, are durable or failed. */
  readonly token: ResultToken | null;
}

export interface CoordinatorShard<Res extends ShardResult> {
  /**
   * Start-up: one record of the topic, in log order (the last of each key, offsets-replay.ts),
   * with where it lies when the runtime replays every record (`replayEveryRecord`).
   */
  replay(record: CoordinatorRecord, position?: RecordPosition): void;
  /** After replay: what the shard does first (timers, interrupted work). */
  loaded(nowMs: number): Res;
  onTimer(key: TimerKey, nowMs: number): Res;
  /**
   * A result's records are durable (errorCode NONE) or not (the append's error, already
   * mapped by append-errors.ts). `recordErrors`: for a shard that is not pipelined, each
   * record's own outcome (its partition's batch), in the result's order; null otherwise.
   * Returns what follows (a revert's replies and timers, the next write), if anything.
   */
  settle(token: ResultToken, errorCode: number, nowMs: number, recordErrors: readonly number[] | null): Res | undefined;
  /**
   * A pipelined result's records are durable (reported before its settle), each at its
   * position, in the result's order. Only the shards that need to know where their records
   * lie have it (the share coordinator, to prune its topic); others cost nothing.
   */
  written?(records: readonly ShardRecord[], positions: readonly RecordPosition[]): void;
  /** Shutdown: parked requests answered, nothing more scheduled. */
  unload?(nowMs: number): Res;
}
