/**
 * Drives a GroupCoordinator the way the broker runtime will, deterministically: a manual
 * clock, a fake timer table (`advance(ms)` fires due keys into onTimer, in time order), an
 * in-memory `__consumer_offsets` log (records are "durable" at once, unless a test holds
 * the appends and then fails them, see `holdAppends`), and a table of answers by request id.
 *
 * Every request goes through its codec (encoded and decoded at the request's version), so
 * the coordinator sees exactly what the broker would hand it; every reply is encoded with
 * its response codec at that version and decoded back, so a reply a version cannot carry
 * fails the test that produced it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { TopicImage } from '../../../src/coordinator/consumer/metadata.js';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { Api } from '../../../src/protocol/messages/index.js';
import { ZERO_UUID } from '../../../src/protocol/messages/runtime.js';
import { encodeAssignment, encodeSubscription } from '../../../src/protocol/consumer-protocol.js';
import { GroupCoordinator } from '../../../src/coordinator/coordinator.js';
import type {
  CoordinatorRecord,
  CoordinatorResult,
  GroupCoordinatorConfig,
  RequestId,
  ShareGroupStateInitialization,
  StreamsInternalTopicsToCreate,
  TimerKey,
  TimerOp,
} from '../../../src/coordinator/types.js';

export const START_MS = 1_700_000_000_000;

/** The APIs the coordinator answers, by their names in `Api`. */
export type GroupApi =
  | 'JoinGroup'
  | 'SyncGroup'
  | 'Heartbeat'
  | 'LeaveGroup'
  | 'OffsetCommit'
  | 'OffsetFetch'
  | 'OffsetDelete'
  | 'DeleteGroups'
  | 'DescribeGroups'
  | 'ListGroups'
  | 'FindCoordinator'
  | 'ConsumerGroupHeartbeat'
  | 'ConsumerGroupDescribe'
  | 'ShareGroupHeartbeat'
  | 'ShareGroupDescribe'
  | 'StreamsGroupHeartbeat'
  | 'StreamsGroupDescribe'
  | 'TxnOffsetCommit';

type RequestOf<A extends GroupApi> = Parameters<(typeof Api)[A]['request']['encode']>[0];
type ResponseOf<A extends GroupApi> = ReturnType<(typeof Api)[A]['response']['decode']>;

/** Deterministic member ids: "<client.id>-uuid-1", "-uuid-2", ... */
export function counterUuids(): () => string {
  let n = 0;
  return () => `uuid-${++n}`;
}

/** The runtime's timer table, faked: key → due time. Scheduling a key replaces it. */
export class FakeTimers {
  private readonly due = new Map<TimerKey, number>();

  apply(ops: readonly TimerOp[]): void {
    for (const op of ops) {
      if ('schedule' in op) {
        this.due.delete(op.schedule); // re-insert: ties fire in scheduling order
        this.due.set(op.schedule, op.atMs);
      } else {
        this.due.delete(op.cancel);
      }
    }
  }

  /** The earliest timer due at or before `limitMs`. */
  nextDue(limitMs: number): [TimerKey, number] | undefined {
    let best: [TimerKey, number] | undefined;
    for (const [key, at] of this.due) if (at <= limitMs && (best === undefined || at < best[1])) best = [key, at];
    return best;
  }

  take(key: TimerKey): void {
    this.due.delete(key);
  }

  has(key: TimerKey): boolean {
    return this.due.has(key);
  }

  dueAt(key: TimerKey): number | undefined {
    return this.due.get(key);
  }

  keys(): TimerKey[] {
    return [...this.due.keys()];
  }
}

/** A request sent to the coordinator; `response` is set once it is answered. */
export interface Sent<R> {
  readonly id: RequestId;
  readonly version: number;
  readonly response: R | undefined;
  /** The response, failing the test if the request is still parked (or its append failed). */
  readonly answer: R;
  /**
   * The error the runtime answered instead of the coordinator's reply, because the append of
   * that result (or of an earlier pending one) failed; undefined otherwise.
   */
  readonly failedWith: number | undefined;
}

export class CoordinatorHarness {
  nowMs: number;
  readonly timers = new FakeTimers();
  /** Every record the coordinator asked to append, in order: our `__consumer_offsets`. */
  readonly log: CoordinatorRecord[] = [];
  /**
   * Share-state initializations the results that stood asked for (`shareInitializations`),
   * not yet carried out: `initializeShareGroupState` does, as the share coordinator would.
   */
  readonly pendingShareInitializations: ShareGroupStateInitialization[] = [];
  readonly streamsInternalTopics: StreamsInternalTopicsToCreate[] = [];
  /** Versions each API's replies were encoded at (for coverage assertions). */
  readonly encodedVersions = new Map<GroupApi, Set<number>>();
  private readonly inFlight = new Map<RequestId, { api: GroupApi; version: number }>();
  private readonly answers = new Map<RequestId, unknown>();
  private readonly failures = new Map<RequestId, number>();
  /** Results whose appends are pending (holdAppends), oldest first; null: durable at once. */
  private held: CoordinatorResult[] | null = null;
  private nextRequestId = 1;
  /** The topics last given to the coordinator (setTopics); a restart gives them again. */
  private topicImages: TopicImage[] = [];
  private readonly everyTopic = new Map<string, TopicImage>();

  constructor(
    readonly coordinator: GroupCoordinator = new GroupCoordinator(testConfig()),
    startMs: number = START_MS,
  ) {
    this.nowMs = startMs;
  }

  /**
   * Carries out a result as the runtime would: timers at once; records durable at once, or,
   * while appends are held, the whole result waits (replies too) for `releaseAppends` or
   * `failAppends`.
   */
  apply(result: CoordinatorResult): CoordinatorResult {
    this.timers.apply(result.timers);
    if (this.held !== null && (result.records.length > 0 || result.replies.length > 0 || result.token !== null)) {
      this.held.push(result);
      return result;
    }
    this.complete(result);
    return result;
  }

  /**
   * From now on appends stay pending, as when the log's fsync is slow: results queue up in
   * order (pipelined: the coordinator keeps running on their state) and nobody is answered.
   */
  holdAppends(): void {
    this.held ??= [];
  }

  /** Every held append becomes durable: the held results complete in order. */
  releaseAppends(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const result of held) this.complete(result);
  }

  /**
   * The oldest held append fails, as the runtime handles it: the results before it complete;
   * its own and every later held result's replies carry `errorCode` instead, and the
   * coordinator reverts those results (`revert` for each, in order: the first reverts them
   * all, newest first). Appends are no longer held afterwards.
   */
  failAppends(errorCode: number = ErrorCode.NOT_COORDINATOR): void {
    const held = this.held ?? [];
    this.held = null;
    const first = held.findIndex((r) => r.records.length > 0);
    assert.ok(first >= 0, 'no held result has records to fail');
    for (const result of held.slice(0, first)) this.complete(result);
    for (const result of held.slice(first)) {
      if (result.token !== null) {
        const reverted = this.coordinator.revert(result.token, errorCode, this.nowMs);
        if (reverted !== undefined) this.apply(reverted);
      }
      for (const { requestId } of result.replies) {
        assert.ok(this.inFlight.delete(requestId), `reply to unknown or already answered request ${requestId}`);
        this.failures.set(requestId, errorCode);
      }
    }
  }

  private complete(result: CoordinatorResult): void {
    this.log.push(...result.records);
    this.pendingShareInitializations.push(...result.shareInitializations ?? []);
    this.streamsInternalTopics.push(...result.streamsInternalTopics ?? []);
    for (const { requestId, response } of result.replies) {
      const req = this.inFlight.get(requestId);
      assert.ok(req !== undefined, `reply to unknown or already answered request ${requestId}`);
      this.inFlight.delete(requestId);
      const codec = Api[req.api].response;
      // Throws if the reply carries a field its version cannot.
      const bytes = (codec.encode as (v: unknown, version: number) => Buffer)(response, req.version);
      codec.decode(bytes, req.version);
      let versions = this.encodedVersions.get(req.api);
      if (versions === undefined) this.encodedVersions.set(req.api, (versions = new Set()));
      versions.add(req.version);
      this.answers.set(requestId, response);
    }
    if (result.token !== null) this.coordinator.committed(result.token);
  }

  send<A extends GroupApi>(api: A, version: number, request: RequestOf<A>, clientId = 'consumer', clientHost = '/127.0.0.1'): Sent<ResponseOf<A>> {
    const codecs = Api[api];
    const encode = codecs.request.encode as (v: unknown, version: number) => Buffer;
    const decoded = withTopicNames(api, codecs.request.decode(encode(request, version), version), request) as RequestOf<A>;
    const id = this.nextRequestId++;
    this.inFlight.set(id, { api, version });
    const ctx = { requestId: id, apiVersion: version, clientId, clientHost, nowMs: this.nowMs };
    const c = this.coordinator;
    const run = (): CoordinatorResult => {
      switch (api) {
        case 'JoinGroup': return c.joinGroup(ctx, decoded as RequestOf<'JoinGroup'>);
        case 'SyncGroup': return c.syncGroup(ctx, decoded as RequestOf<'SyncGroup'>);
        case 'Heartbeat': return c.heartbeat(ctx, decoded as RequestOf<'Heartbeat'>);
        case 'LeaveGroup': return c.leaveGroup(ctx, decoded as RequestOf<'LeaveGroup'>);
        case 'OffsetCommit': return c.offsetCommit(ctx, decoded as RequestOf<'OffsetCommit'>);
        case 'OffsetFetch': return c.offsetFetch(ctx, decoded as RequestOf<'OffsetFetch'>);
        case 'OffsetDelete': return c.offsetDelete(ctx, decoded as RequestOf<'OffsetDelete'>);
        case 'DeleteGroups': return c.deleteGroups(ctx, decoded as RequestOf<'DeleteGroups'>);
        case 'DescribeGroups': return c.describeGroups(ctx, decoded as RequestOf<'DescribeGroups'>);
        case 'ListGroups': return c.listGroups(ctx, decoded as RequestOf<'ListGroups'>);
        case 'ConsumerGroupHeartbeat': return c.consumerGroupHeartbeat(ctx, decoded as RequestOf<'ConsumerGroupHeartbeat'>);
        case 'ConsumerGroupDescribe': return c.consumerGroupDescribe(ctx, decoded as RequestOf<'ConsumerGroupDescribe'>);
        case 'ShareGroupHeartbeat': return c.shareGroupHeartbeat(ctx, decoded as RequestOf<'ShareGroupHeartbeat'>);
        case 'ShareGroupDescribe': return c.shareGroupDescribe(ctx, decoded as RequestOf<'ShareGroupDescribe'>);
        case 'StreamsGroupHeartbeat': return c.streamsGroupHeartbeat(ctx, decoded as RequestOf<'StreamsGroupHeartbeat'>);
        case 'StreamsGroupDescribe': return c.streamsGroupDescribe(ctx, decoded as RequestOf<'StreamsGroupDescribe'>);
        case 'TxnOffsetCommit': return c.txnOffsetCommit(ctx, decoded as RequestOf<'TxnOffsetCommit'>);
        case 'FindCoordinator':
          return c.findCoordinator(ctx, decoded as RequestOf<'FindCoordinator'>, { nodeId: 1, host: 'localhost', port: 9092 });
        default: throw new Error(`unknown API ${String(api)}`);
      }
    };
    this.apply(run());
    const answers = this.answers;
    const failures = this.failures;
    return {
      id,
      version,
      get response() {
        return answers.get(id) as ResponseOf<A> | undefined;
      },
      get answer() {
        assert.ok(!failures.has(id), `request ${id} (${api} v${version}) failed with error ${failures.get(id)}`);
        assert.ok(answers.has(id), `request ${id} (${api} v${version}) is still parked`);
        return answers.get(id) as ResponseOf<A>;
      },
      get failedWith() {
        return failures.get(id);
      },
    };
  }

  /**
   * The share coordinator initialized (`ok`) or failed to initialize every pending share
   * partition: the coordinator is told (initializeShareGroupState / uninitialize...).
   * Returns what was asked for.
   */
  initializeShareGroupState(ok = true): ShareGroupStateInitialization[] {
    const asked = this.pendingShareInitializations.splice(0);
    for (const request of asked) {
      const topics = new Map(request.topics.map((t) => [t.topicId, t.partitions.map((p) => p.partition)]));
      this.apply(ok ? this.coordinator.initializeShareGroupState(request.groupId, topics, this.nowMs) : this.coordinator.uninitializeShareGroupState(request.groupId, topics, this.nowMs));
    }
    return asked;
  }

  /** Moves the clock, firing every timer that comes due, in time order. */
  advance(ms: number): void {
    const target = this.nowMs + ms;
    for (;;) {
      const next = this.timers.nextDue(target);
      if (next === undefined) break;
      const [key, at] = next;
      this.timers.take(key);
      this.nowMs = Math.max(this.nowMs, at);
      this.apply(this.coordinator.onTimer(key, this.nowMs));
    }
    this.nowMs = target;
  }

  /**
   * The broker's topics, as the runtime reports them (onMetadataChange): name, id and
   * partition count of each. Topic ids are derived from the names when not given.
   */
  setTopics(topics: Record<string, number | { partitions: number; topicId: string }>): void {
    this.topicImages = Object.entries(topics).map(([name, t]) =>
      typeof t === 'number' ? { name, topicId: topicIdFor(name), numPartitions: t } : { name, topicId: t.topicId, numPartitions: t.partitions },
    );
    for (const t of this.topicImages) this.everyTopic.set(t.name, t);
    this.coordinator.onMetadataChange(this.topicImages);
  }

  get topics(): readonly TopicImage[] {
    return this.topicImages;
  }

  /** Every topic ever given, deleted ones included (their last image). */
  get knownTopics(): readonly TopicImage[] {
    return [...this.everyTopic.values()];
  }

  /** Requests not answered yet. */
  parked(): RequestId[] {
    return [...this.inFlight.keys()];
  }

  /** A new coordinator rebuilt from this log (a broker restart), driven by a new harness. */
  restart(config: Partial<GroupCoordinatorConfig> = {}): CoordinatorHarness {
    const coordinator = new GroupCoordinator(testConfig(config));
    for (const record of this.log) coordinator.replay(record);
    const next = new CoordinatorHarness(coordinator, this.nowMs);
    next.log.push(...this.log);
    next.topicImages = this.topicImages;
    for (const [name, t] of this.everyTopic) next.everyTopic.set(name, t);
    coordinator.onMetadataChange(this.topicImages);
    next.apply(coordinator.loaded(this.nowMs));
    return next;
  }
}

/** A stable topic id (base64url of 16 bytes) for a topic name, so tests can name ids. */
/**
 * The versions that name topics by id carry no names on the wire (OffsetCommit v10,
 * OffsetFetch v10, TxnOffsetCommit v6), and the others no ids; the broker resolves both
 * before the coordinator sees a commit (a fetch only the names), and so does the harness,
 * from the names and ids the test gave.
 */
function withTopicNames(api: GroupApi, decoded: unknown, sent: unknown): unknown {
  type Topics = { name?: string; topicId?: string }[];
  const named = (topics: Topics | null | undefined, original: Topics | null | undefined, ids: boolean): Topics | null | undefined =>
    topics?.map((t, i) => ({
      ...t,
      ...(t.name === undefined || t.name === '' ? { name: original?.[i]?.name ?? '' } : {}),
      ...(ids && (t.topicId === undefined || t.topicId === ZERO_UUID) && original?.[i]?.topicId !== undefined ? { topicId: original[i]!.topicId } : {}),
    }));
  if (api === 'OffsetCommit' || api === 'TxnOffsetCommit') {
    const d = decoded as { topics: Topics };
    return { ...d, topics: named(d.topics, (sent as { topics: Topics }).topics, true) };
  }
  if (api === 'OffsetFetch') {
    const d = decoded as { groups?: { topics: Topics | null }[] };
    const s = sent as { groups?: { topics: Topics | null }[] };
    if (d.groups === undefined) return decoded;
    return { ...d, groups: d.groups.map((g, i) => ({ ...g, topics: named(g.topics, s.groups?.[i]?.topics, false) ?? null })) };
  }
  return decoded;
}

export function topicIdFor(name: string): string {
  return createHash('sha256').update(name).digest().subarray(0, 16).toString('base64url');
}

/**
 * Deterministic ids, and consumer and share groups assigning at every change: Kafka's own
 * request tests run with group.consumer.assignment.interval.ms at 0 too (and the share groups'
 * differential test runs Kafka with group.share.assignment.interval.ms 0); the tests of the
 * interval set it.
 */
export function testConfig(overrides: Partial<GroupCoordinatorConfig> = {}): Partial<GroupCoordinatorConfig> {
  return { generateUuid: counterUuids(), consumerGroupAssignmentIntervalMs: 0, shareGroupAssignmentIntervalMs: 0, ...overrides };
}

/** Consumer-protocol subscription bytes, as a Java consumer sends in JoinGroup. */
export function subscription(topics: string[], version = 3): Buffer {
  return encodeSubscription({ topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null }, version);
}

/** Consumer-protocol assignment bytes, as a leader sends in SyncGroup. */
export function assignment(partitions: Record<string, number[]>): Buffer {
  return encodeAssignment({
    assignedPartitions: Object.entries(partitions).map(([topic, ps]) => ({ topic, partitions: ps })),
    userData: null,
  });
}
