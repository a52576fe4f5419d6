/**
 * The share coordinator (src/coordinator/share-state/, a pure state machine) as a shard of
 * the coordinator runtime, over `__share_group_state`, in the role of Kafka's
 * ShareCoordinatorService; and the broker's persister of share-group state on it (Kafka's
 * Persister, DefaultStatePersister): what share-partitions initialize, read, write and delete
 * their state through, and what the five inter-broker APIs are served with.
 *
 * As Kafka's service, a request is split into one operation per share-partition (the shard
 * answers one key at a time), run through the runtime, and the answers are put back
 * together by topic; an empty request, one with a topic without partitions, or without a
 * group id is answered empty. A write's answer comes once its record is durable; a failed
 * append answers the partition with the runtime's mapped error (append-errors.ts).
 *
 * The topic: Kafka's configs for it (`cleanup.policy=delete`, `retention.ms=-1`), not
 * compaction: a share-partition's state is its last ShareSnapshot and every ShareUpdate
 * after it, all under one key each, so compaction would keep the last update only and lose
 * the others. Instead, as Kafka, the periodic jobs (share-coordinator-jobs.ts) delete the
 * records before the oldest snapshot still needed and snapshot cold share-partitions.
 */
import type {
  DeleteShareGroupStateRequestData, DeleteShareGroupStateResponseData, InitializeShareGroupStateRequestData,
  InitializeShareGroupStateResponseData, ReadShareGroupStateRequestData, ReadShareGroupStateResponseData,
  ReadShareGroupStateSummaryRequestData, ReadShareGroupStateSummaryResponseData, WriteShareGroupStateRequestData,
  WriteShareGroupStateResponseData,
} from '../protocol/messages/index.js';
import { ShareCoordinatorShard } from '../coordinator/share-state/shard.js';
import { coordinatorKey } from '../coordinator/share-state/records.js';
import {
  deleteGlobalError, initializeGlobalError, readGlobalError, summaryGlobalError, writeGlobalError,
} from '../coordinator/share-state/responses.js';
import { DEFAULT_SHARE_COORDINATOR_CONFIG, type ShareCoordinatorConfig, type ShareStateResult } from '../coordinator/share-state/types.js';
import type { RequestId } from '../coordinator/types.js';
import type { Storage } from '../storage/types.js';
import type { Scheduler } from '../util/clock.js';
import type { Logger } from '../util/log.js';
import { stringHash } from '../util/string-hash.js';
import { CoordinatorRuntime } from './coordinator-runtime/runtime.js';
import { ShareCoordinatorJobs } from './share-coordinator-jobs.js';

export const SHARE_GROUP_STATE_TOPIC = '__share_group_state';

/** The broker's share-group state, as Kafka's Persister: each call takes and returns the API's data. */
export interface Persister {
  initializeState(request: InitializeShareGroupStateRequestData, signal?: AbortSignal): Promise<InitializeShareGroupStateResponseData>;
  readState(request: ReadShareGroupStateRequestData, signal?: AbortSignal): Promise<ReadShareGroupStateResponseData>;
  writeState(request: WriteShareGroupStateRequestData, signal?: AbortSignal): Promise<WriteShareGroupStateResponseData>;
  deleteState(request: DeleteShareGroupStateRequestData, signal?: AbortSignal): Promise<DeleteShareGroupStateResponseData>;
  readSummary(request: ReadShareGroupStateSummaryRequestData, signal?: AbortSignal): Promise<ReadShareGroupStateSummaryResponseData>;
}

export interface ShareCoordinatorServiceOptions {
  readonly storage: Storage;
  readonly clock: Scheduler;
  readonly log: Logger;
  readonly coordinator: Partial<ShareCoordinatorConfig>;
  /** `share.coordinator.state.topic.num.partitions` */
  readonly numPartitions: number;
  /** `share.coordinator.state.topic.segment.bytes` */
  readonly segmentBytes: number;
  /** `share.coordinator.state.topic.prune.interval.ms` (default 300000) */
  readonly pruneIntervalMs?: number;
}

/** The requests' common shape: a group, topics by id, partitions by number. */
interface SplitRequest<P> {
  readonly groupId: string;
  readonly topics: readonly { readonly topicId: string; readonly partitions: readonly P[] }[];
}

interface TopicResult<R> {
  topicId: string;
  partitions: R[];
}

/** Not answered (its connection closed): nothing to abort for the persister's own calls. */
const NEVER = new AbortController().signal;

export class ShareCoordinatorService implements Persister {
  private readonly runtime: CoordinatorRuntime<ShareCoordinatorShard, ShareStateResult>;
  /** Prune and cold snapshots: the topic keeps what the state needs, not every write. */
  readonly jobs: ShareCoordinatorJobs;

  private constructor(options: ShareCoordinatorServiceOptions) {
    const { storage } = options;
    this.runtime = new CoordinatorRuntime<ShareCoordinatorShard, ShareStateResult>({
      name: 'share coordinator',
      storage,
      clock: options.clock,
      log: options.log,
      topic: {
        name: SHARE_GROUP_STATE_TOPIC, partitions: options.numPartitions, segmentBytes: options.segmentBytes,
        configs: { 'cleanup.policy': 'delete', 'retention.ms': '-1' },
      },
      // Kafka's runtime model: the state changes at once, answers wait for durability, a
      // failed append reverts what was built on it.
      pipelined: true,
      replayEveryRecord: true,
      newShard: () => new ShareCoordinatorShard(options.coordinator, (topicId) => storage.topicById(topicId)?.partitions),
      describeLoaded: (shard) => ({ sharePartitions: shard.size }),
    });
    this.jobs = new ShareCoordinatorJobs({
      storage, clock: options.clock, log: options.log, topic: SHARE_GROUP_STATE_TOPIC,
      pruneIntervalMs: options.pruneIntervalMs ?? 300_000,
      coldPartitionSnapshotIntervalMs: options.coordinator.coldPartitionSnapshotIntervalMs ?? DEFAULT_SHARE_COORDINATOR_CONFIG.coldPartitionSnapshotIntervalMs,
      active: () => !this.runtime.unloaded && !this.runtime.isStopped,
      lastRedundantOffset: (partition) => this.runtime.shard.lastRedundantOffset(partition),
      snapshotColdPartitions: () => this.runtime.execute('snapshot of cold share-partitions', (shard, nowMs) => shard.snapshotColdPartitions(nowMs), false),
    });
  }

  /** Replays `__share_group_state` (when it exists). */
  static start(options: ShareCoordinatorServiceOptions): ShareCoordinatorService {
    const service = new ShareCoordinatorService(options);
    service.runtime.load();
    service.jobs.start();
    return service;
  }

  /** The share coordinator as loaded now. */
  get shard(): ShareCoordinatorShard {
    return this.runtime.shard;
  }

  initializeState(request: InitializeShareGroupStateRequestData, signal: AbortSignal = NEVER): Promise<InitializeShareGroupStateResponseData> {
    return this.split(request, signal, (shard, id, nowMs, one) => shard.initializeState(id, nowMs, one), initializeGlobalError, 'InitializeShareGroupState');
  }

  readState(request: ReadShareGroupStateRequestData, signal: AbortSignal = NEVER): Promise<ReadShareGroupStateResponseData> {
    return this.split(request, signal, (shard, id, nowMs, one) => shard.readStateAndMaybeUpdateLeaderEpoch(id, nowMs, one), readGlobalError, 'ReadShareGroupState');
  }

  writeState(request: WriteShareGroupStateRequestData, signal: AbortSignal = NEVER): Promise<WriteShareGroupStateResponseData> {
    return this.split(request, signal, (shard, id, nowMs, one) => shard.writeState(id, nowMs, one), writeGlobalError, 'WriteShareGroupState');
  }

  deleteState(request: DeleteShareGroupStateRequestData, signal: AbortSignal = NEVER): Promise<DeleteShareGroupStateResponseData> {
    return this.split(request, signal, (shard, id, _nowMs, one) => shard.deleteState(id, one), deleteGlobalError, 'DeleteShareGroupState');
  }

  readSummary(request: ReadShareGroupStateSummaryRequestData, signal: AbortSignal = NEVER): Promise<ReadShareGroupStateSummaryResponseData> {
    return this.split(request, signal, (shard, id, _nowMs, one) => shard.readStateSummary(id, one), summaryGlobalError, 'ReadShareGroupStateSummary');
  }

  /** Topics were deleted: their share-partitions' state goes (Kafka's maybeCleanupShareState). */
  topicsDeleted(topicIds: ReadonlySet<string>): void {
    if (topicIds.size === 0) return;
    this.runtime.execute('cleanup of deleted topics', (shard) => shard.cleanupDeletedTopics(topicIds));
  }

  /** Creates `__share_group_state` when missing (it is otherwise created by the first write). */
  ensureTopic(): void {
    this.runtime.ensureTopic();
  }

  /** Kafka's partitionFor: abs(hash("group:topicId:partition")) % partitions. */
  partitionFor(groupId: string, topicId: string, partition: number): number {
    return (stringHash(coordinatorKey({ groupId, topicId, partition })) & 0x7fffffff) % this.runtime.partitions;
  }

  /** Shutdown: parked requests get NOT_COORDINATOR; resolves once appends settle. */
  stop(): Promise<void> {
    this.jobs.stop();
    return this.runtime.stop();
  }

  /**
   * One operation per share-partition, answers put back together by topic in the request's
   * order (Kafka's service: by its HashMap's order, which differs for requests of more than
   * one topic), a partition named twice answered once, as Kafka's map keeps one.
   */
  private async split<P extends { partition: number }, Req extends SplitRequest<P>, R, Res extends { results: TopicResult<R>[] }>(
    request: Req,
    signal: AbortSignal,
    call: (shard: ShareCoordinatorShard, requestId: RequestId, nowMs: number, one: Req) => ShareStateResult,
    errorResponse: (request: Req, errorCode: number) => Res,
    what: string,
  ): Promise<Res> {
    if (request.topics.length === 0 || request.topics.some((t) => t.partitions.length === 0) || request.groupId === '') {
      return { results: [] } as unknown as Res;
    }
    const byTopic = new Map<string, Map<number, Promise<Res>>>();
    for (const topic of request.topics) {
      let partitions = byTopic.get(topic.topicId);
      if (partitions === undefined) byTopic.set(topic.topicId, (partitions = new Map()));
      for (const p of topic.partitions) {
        const one = { ...request, topics: [{ ...topic, partitions: [p] }] } as Req;
        partitions.set(p.partition, this.runtime.submit<Res>(
          signal,
          (shard, requestId, nowMs) => call(shard, requestId, nowMs, one),
          (errorCode) => errorResponse(one, errorCode),
          what,
        ));
      }
    }
    const results: TopicResult<R>[] = [];
    for (const [topicId, partitions] of byTopic) {
      const answers = await Promise.all(partitions.values());
      results.push({ topicId, partitions: answers.flatMap((a) => a.results.flatMap((r) => r.partitions)) });
    }
    return { results } as Res;
  }
}
