/**
 * A scripted single-broker Kafka for deterministic consumer unit tests: it plugs into
 * ClusterOptions.connectionFactory, answers each API from in-memory state, records every
 * request with the ManualScheduler time it was sent, and lets a test hold a response and
 * release it at a chosen time. Empty fetches wait fetch.max.wait.ms on the scheduler, as a
 * broker would. Group behaviour is scripted by the test (join/sync handlers).
 */
import { Api, type ApiCodecs } from '../../src/protocol/messages/index.js';
import type { BrokerConnection, ConnectionOptions, RequestOf, ResponseOf } from '../../src/client/connection.js';
import type { ManualScheduler } from '../../src/util/clock.js';
import { encodeRecordBatch } from '../../src/protocol/records/batch-codec.js';
import { encodeAssignment } from '../../src/protocol/consumer-protocol.js';

export interface SentRequest {
  readonly api: string;
  readonly atMs: number;
  readonly body: Record<string, unknown>;
  /** Which connection carried it: 0 for the first the client opened, 1 for the next... */
  readonly connection: number;
}

type Handler = (body: Record<string, unknown>) => unknown | Promise<unknown>;

const TOPIC_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';

export class FakeKafka {
  readonly sent: SentRequest[] = [];
  /** topic → partition count. */
  readonly topics = new Map<string, number>();
  /** API name → handler overriding the default answer. */
  readonly handlers = new Map<string, Handler>();
  /** API name → gate: requests of that API wait until the returned release function is called. */
  private readonly gates = new Map<string, Promise<void>>();
  /** Records per partition key "topic:p": how many records the log holds (values "v<offset>"). */
  readonly logEnd = new Map<string, number>();

  constructor(readonly scheduler: ManualScheduler) {}

  private connectionsOpened = 0;

  readonly connectionFactory = async (o: ConnectionOptions): Promise<BrokerConnection> => {
    const connection = this.connectionsOpened++;
    const handle = (api: string, body: Record<string, unknown>): Promise<unknown> => this.handle(api, body, connection);
    return {
      host: o.host, port: o.port, closed: false,
      supportedVersion: (api: ApiCodecs) => api.request.highestVersion,
      request<A extends ApiCodecs>(api: A, body: RequestOf<A>): Promise<ResponseOf<A>> {
        return handle(api.name, body as Record<string, unknown>) as Promise<ResponseOf<A>>;
      },
      async sendWithoutResponse<A extends ApiCodecs>(api: A, body: RequestOf<A>): Promise<void> {
        await handle(api.name, body as Record<string, unknown>);
      },
      close: () => undefined,
    };
  };

  /** Holds every later `api` request until the returned function is called. */
  hold(api: string): () => void {
    let release!: () => void;
    this.gates.set(api, new Promise<void>((r) => { release = r; }));
    return () => {
      this.gates.delete(api);
      release();
    };
  }

  requests(api: string): SentRequest[] {
    return this.sent.filter((r) => r.api === api);
  }

  private async handle(api: string, body: Record<string, unknown>, connection: number): Promise<unknown> {
    this.sent.push({ api, atMs: this.scheduler.nowMs(), body, connection });
    const gate = this.gates.get(api);
    if (gate) await gate;
    const custom = this.handlers.get(api);
    if (custom) return custom(body);
    return this.defaultAnswer(api, body);
  }

  private async defaultAnswer(api: string, body: Record<string, unknown>): Promise<unknown> {
    switch (api) {
      case Api.Metadata.name:
        return {
          brokers: [{ nodeId: 0, host: '127.0.0.1', port: 9092, rack: null }], clusterId: 'fake', controllerId: 0,
          topics: [...this.topics].map(([name, count]) => ({
            errorCode: 0, name, topicId: TOPIC_ID, isInternal: false,
            partitions: Array.from({ length: count }, (_, p) => ({ errorCode: 0, partitionIndex: p, leaderId: 0, leaderEpoch: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] })),
          })),
        };
      case Api.FindCoordinator.name:
        return { coordinators: [{ key: 'g', nodeId: 0, host: '127.0.0.1', port: 9092, errorCode: 0, errorMessage: null }] };
      case Api.Heartbeat.name:
      case Api.LeaveGroup.name:
        return { errorCode: 0, members: [] };
      case Api.OffsetCommit.name: {
        const topics = body['topics'] as { name: string; partitions: { partitionIndex: number }[] }[];
        return { topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })) })) };
      }
      case Api.OffsetFetch.name: {
        const groups = body['groups'] as { groupId: string; topics: { name: string; partitionIndexes: number[] }[] }[];
        return { groups: groups.map((g) => ({ groupId: g.groupId, errorCode: 0, topics: g.topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => ({ partitionIndex: p, committedOffset: -1n, committedLeaderEpoch: -1, metadata: null, errorCode: 0 })) })) })) };
      }
      case Api.ListOffsets.name: {
        const topics = body['topics'] as { name: string; partitions: { partitionIndex: number; timestamp: bigint }[] }[];
        return { topics: topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0, timestamp: -1n, offset: p.timestamp === -2n ? 0n : BigInt(this.logEnd.get(`${t.name}:${p.partitionIndex}`) ?? 0), leaderEpoch: 0 })) })) };
      }
      case Api.Fetch.name:
        return this.fetch(body);
      default:
        throw new Error(`FakeKafka: no answer for ${api}`);
    }
  }

  private async fetch(body: Record<string, unknown>): Promise<unknown> {
    const topics = body['topics'] as { topicId: string; partitions: { partition: number; fetchOffset: bigint }[] }[];
    const name = [...this.topics.keys()][0]!;
    let any = false;
    const responses = topics.map((t) => ({
      topicId: t.topicId,
      partitions: t.partitions.map((p) => {
        const end = BigInt(this.logEnd.get(`${name}:${p.partition}`) ?? 0);
        let records: Buffer | null = null;
        if (p.fetchOffset < end) {
          any = true;
          const count = Number(end - p.fetchOffset);
          records = encodeRecordBatch({ baseOffset: p.fetchOffset, records: Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`v${Number(p.fetchOffset) + i}`), timestamp: 1 })) });
        }
        return { partitionIndex: p.partition, errorCode: 0, highWatermark: end, lastStableOffset: end, logStartOffset: 0n, abortedTransactions: null, preferredReadReplica: -1, records };
      }),
    }));
    if (!any) await this.scheduler.sleep(body['maxWaitMs'] as number);
    return { errorCode: 0, sessionId: 0, responses };
  }
}

/** Scripts a one-member group: MEMBER_ID_REQUIRED once, then this member leads and takes what it assigns. */
export function soloGroup(fake: FakeKafka): void {
  let generation = 0;
  fake.handlers.set('JoinGroup', (body) => {
    if (body['memberId'] === '') return { errorCode: 79, generationId: -1, protocolName: null, leader: '', memberId: 'm-1', members: [] };
    const protocols = body['protocols'] as { name: string; metadata: Buffer }[];
    return {
      errorCode: 0, generationId: ++generation, protocolType: 'consumer', protocolName: protocols[0]!.name, leader: body['memberId'],
      memberId: body['memberId'], members: [{ memberId: body['memberId'], groupInstanceId: null, metadata: protocols[0]!.metadata }],
    };
  });
  fake.handlers.set('SyncGroup', (body) => {
    const mine = (body['assignments'] as { memberId: string; assignment: Buffer }[]).find((a) => a.memberId === body['memberId']);
    return { errorCode: 0, protocolType: 'consumer', protocolName: body['protocolName'], assignment: mine?.assignment ?? encodeAssignment({ assignedPartitions: [], userData: null }) };
  });
}

