/**
 * The group coordinator (src/coordinator/, a pure state machine) as a shard of the
 * coordinator runtime (coordinator-runtime/), over `__consumer_offsets`, in the role of
 * Kafka's GroupCoordinatorService: what the handlers call. The runtime gives it the
 * broker's clock, runs its timers, appends its records and releases its replies once those
 * are durable (membership once they are appended: `membershipOnly`), and is the topic's only writer: the transaction coordinator's COMMIT/ABORT
 * markers for `__consumer_offsets` come through `writeTxnMarker`. See
 * src/coordinator/README.md, "What `run(result)` must do".
 *
 * Deliberate differences from Kafka:
 * - `__consumer_offsets` has a single partition (Kafka: offsets.topic.num.partitions = 50,
 *   group to partition by abs(hashCode(groupId)) % 50). With one node coordinating every
 *   group there is nothing to spread; one partition keeps replay in plain log order.
 * - The topic is created (cleanup.policy=compact, internal) at the first group
 *   FindCoordinator or the first coordinator write, not at start-up, so a broker that never
 *   served a group has no `__consumer_offsets`, as in Kafka. Creation is synchronous, so
 *   FindCoordinator never answers COORDINATOR_NOT_AVAILABLE while it loads.
 * - The storage's log cleaner compacts the topic (the broker runs it every
 *   log.cleaner.backoff.ms); replay reads whatever is left, gaps included.
 */
import { ErrorCode } from '../protocol/errors.js';
import { isOffsetCommitKey } from '../protocol/coordinator-records/framing.js';
import { Api } from '../protocol/messages/index.js';
import { GroupCoordinator } from '../coordinator/index.js';
import type {
  CoordinatorResult,
  GroupCoordinatorConfig,
  GroupEvent,
  RequestContext as CoordinatorRequestContext,
  ShareGroupStateInitialization,
} from '../coordinator/index.js';
import type { Storage } from '../storage/types.js';
import type { Logger } from '../util/log.js';
import type { AppendNotifier, Scheduler } from './broker-context.js';
import type { RequestContext } from './handler.js';
import { GroupLifecycle } from './group-lifecycle.js';
import { FlightRecorder } from './flight-recorder/recorder.js';
import { TimelineLog } from './flight-recorder/timeline-log.js';
import { AclOperation, ResourceType, authorize } from './authorization.js';
import { CoordinatorRuntime } from './coordinator-runtime/runtime.js';
import type { Persister } from './share-coordinator-service.js';

export const CONSUMER_OFFSETS_TOPIC = '__consumer_offsets';
/** See the module comment: one partition instead of Kafka's 50. */
export const CONSUMER_OFFSETS_PARTITIONS = 1;

/** What share groups need from the broker's share side (see `connectShares`). */
export interface ShareGroupHooks {
  /** The share coordinator: InitializeShareGroupState. */
  readonly persister: Pick<Persister, 'initializeState'>;
  /** A share member left or was fenced: what it acquired is released, its share session closed. */
  memberLeft(groupId: string, memberId: string): void;
  /** A share group was deleted: its share-partitions are forgotten. */
  groupDeleted(groupId: string): void;
}

export interface GroupCoordinatorServiceOptions {
  readonly storage: Storage;
  /** The broker's clock: the coordinator's time and timers. */
  readonly clock: Scheduler;
  readonly log: Logger;
  /** The coordinator's settings (group.*, offsets.retention.*); Kafka's defaults for the rest. */
  readonly coordinator: Partial<GroupCoordinatorConfig>;
  /** offsets.topic.segment.bytes for `__consumer_offsets` when this service creates it. */
  readonly offsetsTopicSegmentBytes: number;
  /** The flight recorder's settings (group.timeline.*); off when absent. */
  readonly timeline?: { readonly enable: boolean; readonly retentionMs: number; readonly retentionBytes: number };
}

/**
 * The requests about membership: their results' replies go out once the records are in the
 * log, before the fsync (see `repliesOnAppend`). OffsetFetch reads committed offsets, which
 * it must not show before they are durable; commits and deletions write offsets.
 */
const MEMBERSHIP_APIS: ReadonlySet<number> = new Set([
  Api.FindCoordinator, Api.JoinGroup, Api.Heartbeat, Api.LeaveGroup, Api.SyncGroup, Api.DescribeGroups, Api.ListGroups,
  Api.ConsumerGroupHeartbeat, Api.ConsumerGroupDescribe, Api.ShareGroupHeartbeat, Api.ShareGroupDescribe,
  Api.StreamsGroupHeartbeat, Api.StreamsGroupDescribe,
].map((api) => api.apiKey));

/**
 * Whether a result's replies may go out once its records are appended (the runtime's
 * `repliesOnAppend`). Membership (group metadata, consumer-group records) answers as Kafka
 * does, once in the log: durable against a crash of the process, not of the machine, as a
 * single Kafka node (which never fsyncs before it answers). Offsets keep Brook's
 * durability: a commit is answered once fsynced, and so is everything that reads them.
 * Timers and operations (`api` undefined) carry no request of their own.
 */
function membershipOnly(result: CoordinatorResult, api: unknown): boolean {
  if (api !== undefined && !MEMBERSHIP_APIS.has(api as number)) return false;
  for (const r of result.records) if (r.producerId !== undefined || isOffsetCommitKey(r.key)) return false;
  return true;
}

export class GroupCoordinatorService {
  /** The groups' lifecycle log lines and rebalance counts. */
  readonly lifecycle: GroupLifecycle;
  /** The groups' history: every transition, in `__brook_group_timeline` and in memory. */
  readonly recorder: FlightRecorder;
  private readonly timelineLog: TimelineLog | null;
  private readonly runtime: CoordinatorRuntime<GroupCoordinator, CoordinatorResult>;
  private readonly storage: Storage;
  private readonly log: Logger;
  private shares: ShareGroupHooks | null = null;

  private constructor(options: GroupCoordinatorServiceOptions) {
    this.storage = options.storage;
    this.log = options.log;
    const lifecycle = new GroupLifecycle(options.log, options.clock);
    this.lifecycle = lifecycle;
    const timeline = options.timeline;
    this.timelineLog = timeline?.enable === true
      ? new TimelineLog({
          storage: options.storage, log: options.log, retentionMs: timeline.retentionMs, retentionBytes: timeline.retentionBytes,
          // Consumer groups see every topic, internal ones too; told after the event that created it.
          topicCreated: () => queueMicrotask(() => this.topicsChanged()),
        })
      : null;
    this.recorder = new FlightRecorder({ clock: options.clock, log: options.log, timelineLog: this.timelineLog });
    this.runtime = new CoordinatorRuntime<GroupCoordinator, CoordinatorResult>({
      name: 'group coordinator',
      storage: options.storage,
      clock: options.clock,
      log: options.log,
      topic: { name: CONSUMER_OFFSETS_TOPIC, partitions: CONSUMER_OFFSETS_PARTITIONS, segmentBytes: options.offsetsTopicSegmentBytes },
      pipelined: true,
      repliesOnAppend: membershipOnly,
      newShard: () => new GroupCoordinator(options.coordinator),
      // Consumer groups need the topics before loading (their regexes are resolved then).
      prepare: (coordinator) => this.tellTopics(coordinator),
      describeLoaded: (coordinator) => ({ groups: coordinator.groupIds().length }),
      topicCreated: () => this.topicsChanged(),
      // Events stand once the result's replies go out as they are: without a token at once.
      // So do share-state initializations (Kafka sends them once the heartbeat's write is done).
      ran: (result) => {
        if (result.token !== null) return;
        if (result.events.length > 0) this.groupEvents(result.events);
        this.initializeShareStates(result);
      },
      settled: (result, errorCode) => {
        if (errorCode === ErrorCode.NONE) this.initializeShareStates(result);
        if (result.events.length === 0) return;
        if (errorCode === ErrorCode.NONE) this.groupEvents(result.events);
        else options.log.debug('group events reverted', { events: result.events.length, errorCode });
      },
    });
  }

  /** Replays `__consumer_offsets` (when it exists) and arms the coordinator's timers. */
  static start(options: GroupCoordinatorServiceOptions): GroupCoordinatorService {
    const service = new GroupCoordinatorService(options);
    service.recorder.load();
    service.runtime.load();
    return service;
  }

  /** Long-poll fetches of `__brook_group_timeline` wake at each entry written. */
  connectAppends(appends: AppendNotifier): void {
    this.timelineLog?.connect(appends);
  }

  /** The group coordinator as loaded now (a new instance after a fail-stop). */
  get coordinator(): GroupCoordinator {
    return this.runtime.shard;
  }

  /** Creates `__consumer_offsets` when missing (FindCoordinator for a group, first write). */
  ensureTopic(): void {
    this.runtime.ensureTopic();
  }

  /**
   * Tells the coordinator the broker's topics, after any was created, deleted or resized:
   * consumer groups (KIP-848) assign from them and notice changes to what they subscribe to
   * (Kafka's coordinator gets every new metadata image). Every topic, internal ones too.
   */
  topicsChanged(): void {
    // A coordinator being loaded gets the topics as it loads.
    if (this.runtime.unloaded) return;
    this.tellTopics(this.runtime.shard);
  }

  private tellTopics(coordinator: GroupCoordinator): void {
    try {
      coordinator.onMetadataChange(this.storage.topics().map((t) => ({ name: t.name, topicId: t.topicId, numPartitions: t.partitions })));
    } catch (err) {
      this.log.error('group coordinator metadata update failed', { err });
    }
  }

  /**
   * Runs one request through the coordinator. The promise resolves with the response when
   * the coordinator answers (possibly in a later result, for parked JoinGroup/SyncGroup)
   * and everything appended so far is durable (membership: appended). When the connection closes first, the
   * request is forgotten and the promise never settles (the connection drops it anyway).
   */
  submit<Res>(
    ctx: RequestContext,
    call: (coordinator: GroupCoordinator, cctx: CoordinatorRequestContext) => CoordinatorResult,
    errorResponse: (errorCode: number) => Res,
  ): Promise<Res> {
    return this.runtime.submit(ctx.signal, (coordinator, requestId, nowMs) => {
      const cctx: CoordinatorRequestContext = {
        requestId,
        apiVersion: ctx.apiVersion,
        clientId: ctx.header.clientId ?? '',
        clientHost: ctx.clientHost,
        nowMs,
      };
      if (ctx.broker.acls !== null) cctx.mayDescribeTopic = (topic) => authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
      return call(coordinator, cctx);
    }, errorResponse, ctx.header.requestApiKey);
  }

  /**
   * Appends a transaction's COMMIT or ABORT marker to `__consumer_offsets` (the transaction
   * coordinator's markers and WriteTxnMarkers come here: this runtime is the topic's only
   * writer). The marker lands after everything the coordinator wrote before it, the
   * transaction's offsets included (runtime.ts, "Order"). Once it is durable, the
   * transaction's pending offsets become committed (`commit`) or are dropped (Kafka's
   * GroupCoordinator.completeTransaction, from handleWriteTxnMarkersRequest). Resolves with
   * the append's error code (NONE when durable).
   */
  async writeTxnMarker(producerId: bigint, producerEpoch: number, commit: boolean, coordinatorEpoch: number, transactionVersion: number): Promise<number> {
    const errorCode = await this.runtime.appendMarker(0, producerId, producerEpoch, commit, coordinatorEpoch, transactionVersion);
    if (errorCode === ErrorCode.NONE) this.completeTransaction(producerId, commit);
    return errorCode;
  }

  /**
   * The transaction of `producerId` ended and its marker is durable in `__consumer_offsets`:
   * its pending transactional offsets become committed (`commit`) or are dropped. While the
   * coordinator is unloaded it waits for the load (which may have replayed the marker
   * already: then it finds nothing).
   */
  private completeTransaction(producerId: bigint, commit: boolean): void {
    this.runtime.execute(`transaction completion of producer ${producerId}`, (coordinator, nowMs) => coordinator.completeTransaction(producerId, commit, nowMs));
  }

  /** Events that stood: logged and counted; share members gone release what they acquired. */
  private groupEvents(events: readonly GroupEvent[]): void {
    this.lifecycle.handle(events);
    this.recorder.handle(events);
    const shares = this.shares;
    if (shares === null) return;
    for (const e of events) {
      if (e.type === 'member-removed' && e.groupType === 'share') shares.memberLeft(e.groupId, e.memberId);
      else if (e.type === 'group-deleted' && e.groupType === 'share') shares.groupDeleted(e.groupId);
    }
  }

  /** The share partitions a result that stood asked to initialize, after the runtime's current call. */
  private initializeShareStates(result: CoordinatorResult): void {
    for (const request of result.shareInitializations ?? []) queueMicrotask(() => this.initializeShareGroupState(request));
  }

  /**
   * Connects share groups to the broker's share side (Kafka's persister and
   * ShareGroupListener): share-state initializations go to the share coordinator, and a share
   * member leaving, or a share group deleted, reaches the share-partitions.
   */
  connectShares(shares: ShareGroupHooks): void {
    this.shares = shares;
  }

  /**
   * The share-state initialization a share group asked for, sent to the share coordinator
   * (Kafka's GroupCoordinatorService: persister.initializeState, InitializeShareGroupState);
   * the partitions it initialized are recorded as such, the others as no longer initializing
   * (a later heartbeat asks again). Not connected (a coordinator without a share side, in
   * tests): they count as initialized at once.
   */
  initializeShareGroupState(request: ShareGroupStateInitialization): void {
    const shares = this.shares;
    if (shares === null) {
      this.shareGroupStateInitialized(request, true);
      return;
    }
    const data = {
      groupId: request.groupId,
      topics: request.topics.map((t) => ({ topicId: t.topicId, partitions: t.partitions.map((p) => ({ partition: p.partition, stateEpoch: p.stateEpoch, startOffset: p.startOffset })) })),
    };
    shares.persister.initializeState(data).then((answer) => {
      const failed = new Set<string>();
      for (const t of answer.results) {
        for (const p of t.partitions) {
          if (p.errorCode === ErrorCode.NONE) continue;
          failed.add(`${t.topicId}:${p.partition}`);
          this.log.warn('share-partition state initialization failed', { group: request.groupId, topicId: t.topicId, partition: p.partition, errorCode: p.errorCode, error: p.errorMessage });
        }
      }
      const pick = (ok: boolean): ShareGroupStateInitialization => ({
        groupId: request.groupId,
        topics: request.topics
          .map((t) => ({ topicId: t.topicId, partitions: t.partitions.filter((p) => failed.has(`${t.topicId}:${p.partition}`) !== ok) }))
          .filter((t) => t.partitions.length > 0),
      });
      const done = pick(true);
      const undone = pick(false);
      if (done.topics.length > 0) this.shareGroupStateInitialized(done, true);
      if (undone.topics.length > 0) this.shareGroupStateInitialized(undone, false);
    }, (err: unknown) => {
      this.log.warn('share-partition state initialization failed', { group: request.groupId, err });
      this.shareGroupStateInitialized(request, false);
    });
  }

  /** Runs an operation that is not a request on the coordinator now (a test's control: expire a member, start a rebalance). */
  runOperation(what: string, op: (coordinator: GroupCoordinator, nowMs: number) => CoordinatorResult): void {
    this.runtime.execute(what, op, false);
  }

  /**
   * The share coordinator's answer to `initializeShareGroupState`: the coordinator records the
   * partitions as initialized (`ok`; Kafka's initializeShareGroupState write), or forgets they
   * were initializing so that a later heartbeat asks again (uninitializeShareGroupState).
   */
  shareGroupStateInitialized(request: ShareGroupStateInitialization, ok: boolean): void {
    const topics = new Map(request.topics.map((t) => [t.topicId, t.partitions.map((p) => p.partition)]));
    const what = `share group ${request.groupId} state ${ok ? 'initialization' : 'uninitialization'}`;
    this.runtime.execute(what, (coordinator, nowMs) => ok
      ? coordinator.initializeShareGroupState(request.groupId, topics, nowMs)
      : coordinator.uninitializeShareGroupState(request.groupId, topics, nowMs));
  }

  /** Shutdown: parked requests get NOT_COORDINATOR, timers stop; resolves once appends settle. */
  stop(): Promise<void> {
    return this.runtime.stop();
  }
}
