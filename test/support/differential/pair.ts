/**
 * One Apache Kafka and one Brook side by side for differential tests: the same request goes
 * to both over raw connections, and the two decoded responses come back normalised (see
 * normalize.ts) so they can be compared field by field.
 *
 *   const pair = await startPair();
 *   const { kafka, brook, diffs } = await pair.compare('Metadata', 12, { topics: null });
 *   assert.deepEqual(diffs, []);
 *   await pair.stop();
 */
import { createConnection } from 'node:net';
import { Broker } from '../../../src/broker/broker.js';
import { startBrook, tempDir } from '../brook.js';
import { startKafka, type KafkaBroker } from '../kafka/kafka-broker.js';
import { RawConnection, type ApiName, type RequestBody, type ResponseBody, type RawExchange } from '../kafka/raw-client.js';
import { diffValues, Normaliser, sortCreateTopics, sortDeleteTopics, sortDescribeConfigs, sortListOffsets, sortMetadata } from './normalize.js';
import type { DeleteTopicsResponseData } from '../../../src/protocol/messages/delete-topics.js';
import type { ListOffsetsResponseData } from '../../../src/protocol/messages/list-offsets.js';
import type { MetadataResponseData } from '../../../src/protocol/messages/metadata.js';
import type { DescribeConfigsResponseData } from '../../../src/protocol/messages/describe-configs.js';
import type { CreateTopicsResponseData } from '../../../src/protocol/messages/create-topics.js';

export type Side = 'kafka' | 'brook';

export interface Both<T> {
  readonly kafka: T;
  readonly brook: T;
}

export interface Compared<T> extends Both<T> {
  /** Differences left after normalisation ("path: kafka=X brook=Y"); empty when the answers agree. */
  readonly diffs: string[];
}

export class DiffPair {
  private constructor(
    readonly kafkaBroker: KafkaBroker,
    readonly brookBroker: Broker,
    private readonly removeBrookDir: () => void,
    readonly conn: Both<RawConnection>,
    readonly normaliser: Both<Normaliser>,
  ) {}

  static async start(kafkaConfig: Record<string, string>, brookOptions: Parameters<typeof startBrook>[0] = {}): Promise<DiffPair> {
    const dir = tempDir('brook-differential-');
    const [kafkaBroker, brookBroker] = await Promise.all([
      startKafka({ config: kafkaConfig }),
      startBrook({ dataDir: dir.path, ...brookOptions }),
    ]);
    const [k, b] = await Promise.all([
      RawConnection.connect(kafkaBroker.host, kafkaBroker.port, { clientId: 'differential', timeoutMs: 15_000 }),
      RawConnection.connect(brookBroker.host, brookBroker.port, { clientId: 'differential', timeoutMs: 15_000 }),
    ]);
    return new DiffPair(kafkaBroker, brookBroker, dir.remove, { kafka: k, brook: b }, {
      kafka: new Normaliser({ nodeId: kafkaBroker.nodeId, host: kafkaBroker.host, port: kafkaBroker.port, clusterId: kafkaBroker.clusterId }),
      brook: new Normaliser({ nodeId: brookBroker.config.nodeId, host: brookBroker.host, port: brookBroker.port, clusterId: brookBroker.storage.clusterId }),
    });
  }

  async stop(): Promise<void> {
    this.conn.kafka.close();
    this.conn.brook.close();
    await Promise.allSettled([this.kafkaBroker.stop(), this.brookBroker.stop()]);
    this.removeBrookDir();
  }

  /** A new connection to one side (for requests that may make the broker close it). */
  connect(side: Side): Promise<RawConnection> {
    const { host, port } = side === 'kafka' ? this.kafkaBroker : this.brookBroker;
    return RawConnection.connect(host, port, { clientId: 'differential', timeoutMs: 15_000 });
  }

  /** Sends `body` to both brokers at once; the decoded responses, not normalised. */
  async both<N extends ApiName>(api: N, version: number, body: RequestBody<N> | Both<RequestBody<N>>): Promise<Both<ResponseBody<N>>> {
    const bodies = isBoth(body) ? body : { kafka: body, brook: body };
    const [kafka, brook] = await Promise.all([
      this.conn.kafka.request(api, version, bodies.kafka),
      this.conn.brook.request(api, version, bodies.brook),
    ]);
    return { kafka, brook };
  }

  /** Normalises both responses (learning topic ids) and lists what still differs. */
  normalize<T>(responses: Both<T>): Compared<unknown> {
    const kafka = this.normaliser.kafka.normalize(responses.kafka);
    const brook = this.normaliser.brook.normalize(responses.brook);
    return { kafka, brook, diffs: diffValues(kafka, brook) };
  }

  /** Sends the same request to both and compares the normalised responses. */
  async compare<N extends ApiName>(api: N, version: number, body: RequestBody<N> | Both<RequestBody<N>>): Promise<Compared<unknown> & { raw: Both<ResponseBody<N>> }> {
    const raw = await this.both(api, version, body);
    return { ...this.normalize(sortFor(api, raw)), raw };
  }

  /**
   * Creates a topic on both (CreateTopics v7) and waits until Kafka's metadata cache knows
   * its leaders (Kafka creates through its controller, asynchronously).
   */
  async createTopic(name: string, partitions = 1, configs: Record<string, string> = {}): Promise<void> {
    const res = await this.both('CreateTopics', 7, {
      topics: [{ name, numPartitions: partitions, replicationFactor: 1, assignments: [], configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
      timeoutMs: 10_000,
      validateOnly: false,
    });
    for (const side of ['kafka', 'brook'] as const) {
      const t = res[side].topics[0]!;
      if (t.errorCode !== 0) throw new Error(`${side}: creating ${name} failed with ${t.errorCode} ${t.errorMessage}`);
      this.normaliser[side].registerTopic(name, t.topicId);
    }
    await this.waitForKafkaTopic(name, partitions);
  }

  /**
   * Polls Kafka until every partition of `name` has a leader in its metadata cache and that
   * leader (its replica manager) answers ListOffsets: only then do Produce and Fetch work.
   */
  async waitForKafkaTopic(name: string, partitions?: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const md = await this.conn.kafka.request('Metadata', 12, { topics: [{ name }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      const t = md.topics[0];
      if (t && t.errorCode === 0 && t.partitions.length > 0 && (partitions === undefined || t.partitions.length === partitions)
        && t.partitions.every((p) => p.leaderId >= 0)) {
        this.normaliser.kafka.registerTopic(name, t.topicId);
        const lo = await this.conn.kafka.request('ListOffsets', 7, {
          replicaId: -1, isolationLevel: 0,
          topics: [{ name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, timestamp: -1n, currentLeaderEpoch: -1 })) }],
        });
        if (lo.topics.every((x) => x.partitions.every((p) => p.errorCode === 0))) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`Kafka did not make ${name} available\n${this.kafkaBroker.logTail(30)}`);
  }

  /** Polls Kafka's Metadata until `name` is gone. */
  async waitForKafkaTopicGone(name: string): Promise<void> {
    for (let i = 0; i < 100; i++) {
      const md = await this.conn.kafka.request('Metadata', 12, { topics: [{ name }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      if (md.topics[0]?.errorCode === 3) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`Kafka did not forget ${name}`);
  }

  /** `sendBytes` to both brokers at once. */
  async sendBytesBoth(bytes: Buffer, waitMs = 3_000): Promise<Both<BytesOutcome>> {
    const [kafka, brook] = await Promise.all([
      sendBytes(this.kafkaBroker.host, this.kafkaBroker.port, bytes, waitMs),
      sendBytes(this.brookBroker.host, this.brookBroker.port, bytes, waitMs),
    ]);
    return { kafka, brook };
  }

  /**
   * Sends a hand-built frame (size prefix excluded) on a fresh connection to each broker and
   * says how each answered: with a response frame, or by closing the connection.
   */
  async sendRawBoth(payload: Buffer, waitMs = 2_000): Promise<Both<RawOutcome>> {
    const one = async (side: Side): Promise<RawOutcome> => {
      const conn = await this.connect(side);
      try {
        const timer = new Promise<RawOutcome>((resolve) => setTimeout(() => resolve({ kind: 'no-answer' }), waitMs));
        const sent = conn.sendRaw(payload).then(
          (ex): RawOutcome => ({ kind: 'response', exchange: ex! }),
          (err: Error): RawOutcome => (/closed/.test(err.message) ? { kind: 'closed' } : { kind: 'error', message: err.message }),
        );
        return await Promise.race([sent, timer]);
      } finally {
        conn.close();
      }
    };
    const [kafka, brook] = await Promise.all([one('kafka'), one('brook')]);
    return { kafka, brook };
  }
}

/** What a broker sent back on a raw connection before it closed it (or the wait ended). */
export interface BytesOutcome {
  readonly received: Buffer;
  readonly closedByBroker: boolean;
}

/**
 * Writes `bytes` (size prefixes included: they may be deliberately wrong) in one write on a
 * fresh connection and collects everything the broker sends until it closes the connection
 * or `waitMs` pass.
 */
export function sendBytes(host: string, port: number, bytes: Buffer, waitMs: number): Promise<BytesOutcome> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host, port });
    const chunks: Buffer[] = [];
    let settled = false;
    const done = (closedByBroker: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ received: Buffer.concat(chunks), closedByBroker });
    };
    const timer = setTimeout(() => done(false), waitMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => done(true));
    socket.on('close', () => done(true));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET') done(true);
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(err);
      }
    });
  });
}

export type RawOutcome =
  | { kind: 'response'; exchange: RawExchange<Buffer> }
  | { kind: 'closed' }
  | { kind: 'no-answer' }
  | { kind: 'error'; message: string };

/** The ordering normalisations of NORMALISATIONS, by API. */
function sortFor<N extends ApiName>(api: N, raw: Both<ResponseBody<N>>): Both<unknown> {
  switch (api) {
    case 'Metadata': {
      const md = raw as unknown as Both<MetadataResponseData>;
      return { kafka: sortMetadata(md.kafka), brook: sortMetadata(md.brook) };
    }
    case 'DescribeConfigs': {
      const dc = raw as unknown as Both<DescribeConfigsResponseData>;
      return { kafka: sortDescribeConfigs(dc.kafka), brook: sortDescribeConfigs(dc.brook) };
    }
    case 'CreateTopics': {
      const ct = raw as unknown as Both<CreateTopicsResponseData>;
      return { kafka: sortCreateTopics(ct.kafka), brook: sortCreateTopics(ct.brook) };
    }
    case 'DeleteTopics': {
      const dt = raw as unknown as Both<DeleteTopicsResponseData>;
      return { kafka: sortDeleteTopics(dt.kafka), brook: sortDeleteTopics(dt.brook) };
    }
    case 'ListOffsets': {
      const lo = raw as unknown as Both<ListOffsetsResponseData>;
      return { kafka: sortListOffsets(lo.kafka), brook: sortListOffsets(lo.brook) };
    }
    default:
      return raw;
  }
}

function isBoth<T>(v: T | Both<T>): v is Both<T> {
  return v !== null && typeof v === 'object' && 'kafka' in (v as object) && 'brook' in (v as object) && Object.keys(v as object).length === 2;
}
