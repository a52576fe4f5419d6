/**
 * A scripted single-broker Kafka for deterministic consumer unit tests: it plugs into
 * ClusterOptions.connectionFactory, answers each API from in-memory state or from a typed
 * handler the test installs, records every request with the ManualScheduler time it was sent,
 * and lets a test hold responses and release them one by one, in any order. Empty fetches
 * wait fetch.max.wait.ms on the scheduler, as a broker would.
 *
 * Everything crosses the generated codecs, as in the coordinator's harness: each request body
 * is encoded at the version the fake advertises for its API (or the one the client asked for)
 * and decoded before handlers see it, and each answer is encoded with the response codec at
 * that version and decoded before the client gets it. A body that version cannot carry, a
 * handler that throws, or an API without an answer is a test failure: the fake rejects the
 * request and also throws the error uncaught on the next turn of the event loop, so node:test
 * fails the running test even when the client swallows the rejection (heartbeats, retries).
 *
 *   const fake = new FakeKafka(scheduler, { versions: { OffsetCommit: 2 } });
 *   fake.on('Heartbeat', () => ({ errorCode: ErrorCode.REBALANCE_IN_PROGRESS }));  // every heartbeat
 *   fake.once('SyncGroup', () => ({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, assignment: Buffer.alloc(0) })); // the next one only
 *   const gate = fake.hold('OffsetCommit');   // later OffsetCommits wait
 *   gate.held[1]!.release();                  // answer the second one first
 *   gate.releaseNext();                       // then the oldest still held
 *   gate.open();                              // (or gate()) release all, stop holding
 */
import { Api, type ApiCodecs, type ApiName } from '../../src/protocol/messages/index.js';
import type { MessageCodec } from '../../src/protocol/messages/runtime.js';
import type { BrokerConnection, ConnectionOptions, RequestOf, RequestOptions, ResponseOf } from '../../src/client/connection.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ManualScheduler } from '../../src/util/clock.js';
import { encodeRecordBatch } from '../../src/protocol/records/batch-codec.js';
import { encodeAssignment } from '../../src/protocol/consumer-protocol.js';

/** The request body of API `A`, as its codec decodes it. */
export type Request<A extends ApiName> = RequestOf<(typeof Api)[A]>;
/** The response body of API `A`, as its codec encodes it. */
export type Response<A extends ApiName> = ResponseOf<(typeof Api)[A]>;

export interface SentRequest<A extends ApiName = ApiName> {
  readonly api: A;
  /** The version it was encoded and answered at. */
  readonly version: number;
  readonly atMs: number;
  /** The body as the fake decoded it. */
  readonly body: Request<A>;
  /** Which connection carried it: 0 for the first the client opened, 1 for the next... */
  readonly connection: number;
}

/** Any sent request; `api` tells which, and narrows `body`. */
export type AnySentRequest = { [A in ApiName]: SentRequest<A> }[ApiName];

export type Handler<A extends ApiName> = (request: Request<A>, sent: SentRequest<A>) => Response<A> | Promise<Response<A>>;

/** A request a gate holds; its handler runs (and its response goes out) on release. */
export interface HeldRequest<A extends ApiName> {
  readonly request: SentRequest<A>;
  release(): void;
}

/**
 * Holds every `A` request sent while it is in place. Calling the gate itself is `open()`,
 * so `const release = fake.hold(api); ...; release()` reads as it always has.
 */
export interface Gate<A extends ApiName> {
  (): void;
  /** Requests still held, oldest first. */
  readonly held: readonly HeldRequest<A>[];
  /** Releases the oldest held request and returns it; fails when none is held. */
  releaseNext(): SentRequest<A>;
  /** Releases everything held and lets later requests through. */
  open(): void;
}

export interface FakeKafkaOptions {
  /** Version advertised per API (default: the codec's highest). */
  readonly versions?: Partial<Record<ApiName, number>>;
}

/** A mistake on the test's side of the wire (bad body for its version, no answer, handler threw). */
export class FakeKafkaError extends Error {
  override readonly name = 'FakeKafkaError';
}

/** Deterministic topic ids: the 16-byte UUID whose last byte is the topic's index + 1, base64url. */
function topicIdOf(index: number): string {
  const bytes = Buffer.alloc(16);
  bytes.writeUInt16BE(index + 1, 14);
  return bytes.toString('base64url');
}

interface GateState {
  readonly held: { request: SentRequest<ApiName>; release(): void }[];
}

export class FakeKafka {
  readonly sent: AnySentRequest[] = [];
  /** topic → partition count. */
  readonly topics = new Map<string, number>();
  /** Records per partition key "topic:p": how many records the log holds (values "v<offset>"). */
  readonly logEnd = new Map<string, number>();
  /**
   * Per partition key, the last stable offset when an open transaction holds it below the log
   * end: a read_committed Fetch gets records only up to it (no transaction markers are written).
   */
  readonly lastStable = new Map<string, number>();
  /** At most this many records per partition in one Fetch answer, as partition_max_bytes would cut it (null: all). */
  maxRecordsPerFetch: number | null = null;
  /** Every test-side mistake the fake caught (each was also thrown uncaught). */
  readonly failures: FakeKafkaError[] = [];
  private readonly versions = new Map<ApiName, number>();
  private readonly absent = new Set<ApiName>();
  private readonly handlers = new Map<ApiName, Handler<ApiName>>();
  private readonly onceHandlers = new Map<ApiName, Handler<ApiName>[]>();
  private readonly gates = new Map<ApiName, GateState>();
  private connectionsOpened = 0;

  constructor(readonly scheduler: ManualScheduler, options: FakeKafkaOptions = {}) {
    for (const [api, version] of Object.entries(options.versions ?? {}) as [ApiName, number][]) this.setVersion(api, version);
  }

  /** Advertises `version` as the highest the broker supports for `api`. */
  setVersion(api: ApiName, version: number): void {
    const { request, response } = Api[api];
    const low = Math.max(request.lowestVersion, response.lowestVersion);
    const high = Math.min(request.highestVersion, response.highestVersion);
    if (!Number.isInteger(version) || version < low || version > high) throw new RangeError(`${api} has versions ${low}-${high}, not ${version}`);
    this.versions.set(api, version);
  }

  /** The version the fake advertises for `api`. */
  versionOf(api: ApiName): number {
    return this.versions.get(api) ?? Api[api].request.highestVersion;
  }

  /** Leaves `api` out of what the broker advertises, as an older broker would (clients see no version of it). */
  withoutApi(api: ApiName): void {
    this.absent.add(api);
  }

  /** Answers every later `api` request with `handler` (until `off`); replaces the default answer. */
  on<A extends ApiName>(api: A, handler: Handler<A>): void {
    this.handlers.set(api, handler as unknown as Handler<ApiName>);
  }

  /** Answers only the next `api` request with `handler`, ahead of `on` handlers and defaults; several queue up. */
  once<A extends ApiName>(api: A, handler: Handler<A>): void {
    let queue = this.onceHandlers.get(api);
    if (!queue) this.onceHandlers.set(api, queue = []);
    queue.push(handler as unknown as Handler<ApiName>);
  }

  /** Back to the default answer for `api`. */
  off(api: ApiName): void {
    this.handlers.delete(api);
  }

  readonly connectionFactory = async (o: ConnectionOptions): Promise<BrokerConnection> => {
    const connection = this.connectionsOpened++;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const fake = this;
    return {
      host: o.host, port: o.port, closed: false,
      supportedVersion: (api: ApiCodecs) => (fake.absent.has(api.name as ApiName) ? undefined : fake.versionOf(api.name as ApiName)),
      request<A extends ApiCodecs>(api: A, body: RequestOf<A>, options?: RequestOptions): Promise<ResponseOf<A>> {
        return fake.exchange(api.name as ApiName, body, options?.version, connection, true) as Promise<ResponseOf<A>>;
      },
      async sendWithoutResponse<A extends ApiCodecs>(api: A, body: RequestOf<A>, options?: { version?: number }): Promise<void> {
        await fake.exchange(api.name as ApiName, body, options?.version, connection, false);
      },
      close: () => undefined,
    };
  };

  /** Holds every later `api` request until the gate releases it. */
  hold<A extends ApiName>(api: A): Gate<A> {
    const state: GateState = { held: [] };
    this.gates.set(api, state);
    const open = (): void => {
      if (this.gates.get(api) === state) this.gates.delete(api);
      for (const h of [...state.held]) h.release();
    };
    return Object.assign(open, {
      get held(): readonly HeldRequest<A>[] {
        return state.held as unknown as HeldRequest<A>[];
      },
      releaseNext: (): SentRequest<A> => {
        const next = state.held[0];
        if (!next) throw new FakeKafkaError(`no ${api} request is held`);
        next.release();
        return next.request as SentRequest<A>;
      },
      open,
    });
  }

  requests<A extends ApiName>(api: A): SentRequest<A>[] {
    return this.sent.filter((r): r is SentRequest<A> & AnySentRequest => r.api === api);
  }

  /**
   * Records the failure, throws it uncaught (from setImmediate: node:test then charges it to the
   * running test; from a microtask it would be reported after the test) and returns it for the client.
   */
  private fail(message: string, cause?: unknown): FakeKafkaError {
    const err = new FakeKafkaError(message, cause === undefined ? undefined : { cause });
    this.failures.push(err);
    setImmediate(() => { throw err; });
    return err;
  }

  private async exchange(api: ApiName, body: unknown, askedVersion: number | undefined, connection: number, answer: boolean): Promise<unknown> {
    const advertised = this.versionOf(api);
    const version = askedVersion ?? advertised;
    if (version > advertised) throw this.fail(`the client sent ${api} v${version}; the fake advertises up to v${advertised}`);
    const codecs = Api[api] as { request: MessageCodec<unknown>; response: MessageCodec<unknown> };
    let decoded: Request<ApiName>;
    try {
      decoded = codecs.request.decode(codecs.request.encode(body, version), version) as Request<ApiName>;
    } catch (err) {
      throw this.fail(`${api} v${version} request cannot carry what the client sent: ${(err as Error).message}`, err);
    }
    const sent = { api, version, atMs: this.scheduler.nowMs(), body: decoded, connection } as AnySentRequest;
    this.sent.push(sent);
    const gate = this.gates.get(api);
    if (gate) {
      await new Promise<void>((resolve) => {
        const entry = {
          request: sent,
          release: () => {
            const i = gate.held.indexOf(entry);
            if (i >= 0) gate.held.splice(i, 1);
            resolve();
          },
        };
        gate.held.push(entry);
      });
    }
    const handler = this.onceHandlers.get(api)?.shift() ?? this.handlers.get(api) ?? this.defaults[api];
    if (!handler) throw this.fail(`FakeKafka: no answer for ${api}`);
    let response: unknown;
    try {
      response = await (handler as Handler<ApiName>)(decoded, sent as SentRequest<ApiName>);
    } catch (err) {
      throw this.fail(`the ${api} handler threw: ${(err as Error).message}`, err);
    }
    if (!answer) return undefined;
    try {
      return codecs.response.decode(codecs.response.encode(response, version), version);
    } catch (err) {
      throw this.fail(`${api} v${version} response cannot carry the handler's answer: ${(err as Error).message}`, err);
    }
  }

  /** The topic id Metadata gives `name` (topics are numbered in the order they were added). */
  topicId(name: string): string {
    const i = [...this.topics.keys()].indexOf(name);
    if (i < 0) throw new FakeKafkaError(`no topic ${name}`);
    return topicIdOf(i);
  }

  topicNameOf(topicId: string | undefined): string | undefined {
    return [...this.topics.keys()].find((_, i) => topicIdOf(i) === topicId);
  }

  /** What the broker answers when no handler is installed, valid at every version. */
  private readonly defaults: { [A in ApiName]?: Handler<A> } = {
    Metadata: () => ({
      brokers: [{ nodeId: 0, host: '127.0.0.1', port: 9092, rack: null }], clusterId: 'fake', controllerId: 0,
      topics: [...this.topics].map(([name, count], i) => ({
        errorCode: ErrorCode.NONE, name, topicId: topicIdOf(i), isInternal: false,
        partitions: Array.from({ length: count }, (_, p) => ({
          errorCode: ErrorCode.NONE, partitionIndex: p, leaderId: 0, leaderEpoch: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [],
        })),
      })),
    }),
    FindCoordinator: (request, { version }) => {
      const coordinator = { nodeId: 0, host: '127.0.0.1', port: 9092, errorCode: ErrorCode.NONE, errorMessage: null };
      return version >= 4
        ? { coordinators: (request.coordinatorKeys ?? []).map((key) => ({ key, ...coordinator })) }
        : coordinator;
    },
    Heartbeat: () => ({ errorCode: ErrorCode.NONE }),
    // No consumer groups (KIP-848): admin describes fall back to DescribeGroups, as with Kafka.
    ConsumerGroupDescribe: (request) => ({
      throttleTimeMs: 0,
      groups: request.groupIds.map((groupId) => ({
        errorCode: ErrorCode.GROUP_ID_NOT_FOUND, errorMessage: `Group ${groupId} not found.`, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0,
        assignorName: '', members: [], authorizedOperations: -2147483648,
      })),
    }),
    LeaveGroup: (request, { version }) => ({
      errorCode: ErrorCode.NONE,
      ...(version >= 3 ? { members: (request.members ?? []).map((m) => ({ memberId: m.memberId, groupInstanceId: m.groupInstanceId, errorCode: ErrorCode.NONE })) } : {}),
    }),
    // By name, or by topic id from v10 (the answer echoes whichever the request carried).
    OffsetCommit: (request) => ({
      topics: request.topics.map((t) => ({ name: t.name, topicId: t.topicId, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE })) })),
    }),
    OffsetFetch: (request, { version }) => {
      const none = (name: string, partitionIndexes: number[], topicId?: string) => ({
        name,
        topicId,
        partitions: partitionIndexes.map((partitionIndex) => ({ partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: null, errorCode: ErrorCode.NONE })),
      });
      return version >= 8
        ? { groups: (request.groups ?? []).map((g) => ({ groupId: g.groupId, errorCode: ErrorCode.NONE, topics: (g.topics ?? []).map((t) => none(t.name ?? '', t.partitionIndexes, t.topicId)) })) }
        : { errorCode: ErrorCode.NONE, topics: (request.topics ?? []).map((t) => none(t.name, t.partitionIndexes)) };
    },
    ListOffsets: (request, { version }) => ({
      topics: request.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          // -2 asks for the log start (always 0 here); anything else gets the log end.
          const offset = p.timestamp === -2n ? 0n : BigInt(this.logEnd.get(`${t.name}:${p.partitionIndex}`) ?? 0);
          return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE, timestamp: -1n, offset, ...(version >= 4 ? { leaderEpoch: 0 } : {}) };
        }),
      })),
    }),
    Fetch: (request, sent) => this.fetch(request, sent.version),
  };

  private async fetch(request: Request<'Fetch'>, version: number): Promise<Response<'Fetch'>> {
    const useIds = version >= 13;
    let any = false;
    const responses = request.topics.map((t) => {
      const name = useIds ? this.topicNameOf(t.topicId) : t.topic;
      return {
        ...(useIds ? { topicId: t.topicId } : { topic: t.topic }),
        partitions: t.partitions.map((p) => {
          const key = `${name}:${p.partition}`;
          const end = BigInt(this.logEnd.get(key) ?? 0);
          const stable = BigInt(this.lastStable.get(key) ?? end);
          const readable = request.isolationLevel === 1 ? stable : end;
          let records: Buffer | null = null;
          if (p.fetchOffset < readable) {
            any = true;
            const count = Math.min(Number(readable - p.fetchOffset), this.maxRecordsPerFetch ?? Infinity);
            records = encodeRecordBatch({ baseOffset: p.fetchOffset, records: Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`v${Number(p.fetchOffset) + i}`), timestamp: 1 })) });
          }
          return {
            partitionIndex: p.partition, errorCode: name === undefined ? ErrorCode.UNKNOWN_TOPIC_ID : ErrorCode.NONE, highWatermark: end,
            lastStableOffset: stable, logStartOffset: 0n, abortedTransactions: null, preferredReadReplica: -1, records,
          };
        }),
      };
    });
    if (!any) await this.scheduler.sleep(request.maxWaitMs);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses };
  }
}

/** What `soloGroup` scripted: the member ids it handed out and the generations it formed. */
export interface SoloGroup {
  /** Member ids handed out by MEMBER_ID_REQUIRED, in order: 'm-1', 'm-2', ... */
  readonly memberIds: readonly string[];
  /** The latest generation formed (0 before the first join). */
  readonly generation: number;
}

/**
 * Scripts a one-member group as a coordinator would: a join without a member id gets a new id
 * ('m-1', then 'm-2' after the member forgets its id) through MEMBER_ID_REQUIRED (JoinGroup
 * v4+), a join with an id forms the next generation with this member as leader, and SyncGroup
 * hands the leader what it assigned itself.
 */
export function soloGroup(fake: FakeKafka): SoloGroup {
  const memberIds: string[] = [];
  let generation = 0;
  fake.on('JoinGroup', (request, { version }) => {
    let memberId = request.memberId;
    if (memberId === '') {
      memberIds.push(memberId = `m-${memberIds.length + 1}`);
      // Before v4 the coordinator takes a member without an id in at once.
      if (version >= 4) {
        return { errorCode: ErrorCode.MEMBER_ID_REQUIRED, generationId: -1, protocolName: version >= 7 ? null : '', leader: '', memberId, members: [] };
      }
    }
    const protocol = request.protocols[0]!;
    return {
      errorCode: ErrorCode.NONE, generationId: ++generation, protocolType: 'consumer', protocolName: protocol.name, leader: memberId,
      memberId, members: [{ memberId, groupInstanceId: null, metadata: protocol.metadata }],
    };
  });
  fake.on('SyncGroup', (request) => {
    const mine = request.assignments.find((a) => a.memberId === request.memberId);
    return {
      errorCode: ErrorCode.NONE, protocolType: 'consumer', protocolName: request.protocolName,
      assignment: mine?.assignment ?? encodeAssignment({ assignedPartitions: [], userData: null }),
    };
  });
  return {
    memberIds,
    get generation() {
      return generation;
    },
  };
}
