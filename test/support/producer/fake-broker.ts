/**
 * A scripted one-node Kafka for producer unit tests: ApiVersions, Metadata, InitProducerId
 * and Produce over real sockets, with the broker-side idempotence check (next sequence per
 * producer and partition: equal appends, lower is DUPLICATE_SEQUENCE_NUMBER, higher is
 * OUT_OF_ORDER_SEQUENCE_NUMBER; a newer epoch must start at 0). Tests inject per-partition
 * errors, hold answers to keep requests in flight, and inspect every Produce received.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Api, type ApiCodecs } from '../../../src/protocol/messages/index.js';
import { decodeRequest, encodeResponse, FrameDecoder } from '../../../src/protocol/frame.js';
import { decodeRecordBatch, iterateBatches, type DecodedRecordBatch } from '../../../src/protocol/records/index.js';
import type { PartitionProduceResponse } from '../../../src/protocol/messages/produce.js';

export interface ProducedBatch {
  topic: string;
  partition: number;
  batch: DecodedRecordBatch;
  bytes: Buffer;
}

export interface ProduceCall {
  acks: number;
  batches: ProducedBatch[];
  /** The error code answered for each batch (0: appended). */
  answers: number[];
}

/** Returns an error code to answer instead of appending (undefined: normal handling). */
export type ProduceHook = (b: ProducedBatch, call: number) => number | undefined | { appendThenError: number };

const SUPPORTED: ApiCodecs[] = [Api.ApiVersions, Api.Metadata, Api.InitProducerId, Api.Produce];

export class FakeBroker {
  readonly calls: ProduceCall[] = [];
  readonly log = new Map<string, ProducedBatch[]>();
  metadataRequests = 0;
  initProducerIdRequests = 0;
  hook: ProduceHook = () => undefined;
  /** While true, Produce answers wait for release(). */
  holding = false;
  /** Topics the broker does not know (metadata answers UNKNOWN_TOPIC_OR_PARTITION). */
  readonly unknownTopics = new Set<string>();
  private readonly held: (() => void)[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly nextSequence = new Map<string, { epoch: number; seq: number }>();
  private nextProducerId = 1000n;

  private constructor(private readonly server: Server, readonly topics: Map<string, number>) {}

  static async start(topics: Record<string, number>): Promise<FakeBroker> {
    const server = createServer();
    const broker = new FakeBroker(server, new Map(Object.entries(topics)));
    server.on('connection', (s) => broker.accept(s));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return broker;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Produce answers held back (while `holding`), not sent yet. */
  get heldAnswers(): number {
    return this.held.length;
  }

  /** Sends every held answer, in order. */
  release(): void {
    this.holding = false;
    for (const send of this.held.splice(0)) send();
  }

  logOf(topic: string, partition: number): ProducedBatch[] {
    return this.log.get(`${topic}-${partition}`) ?? [];
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    const decoder = new FrameDecoder();
    // Answers leave in request order even when some are held.
    const queue: { ready: boolean; chunks: Buffer[] | null }[] = [];
    const flush = (): void => {
      while (queue.length > 0 && queue[0]!.ready) {
        const { chunks } = queue.shift()!;
        if (chunks) for (const c of chunks) socket.write(c);
      }
    };
    socket.on('data', (data: Buffer) => {
      for (const frame of decoder.push(data)) {
        const { header, api, body } = decodeRequest(frame);
        const slot: { ready: boolean; chunks: Buffer[] | null } = { ready: false, chunks: null };
        queue.push(slot);
        const answer = this.handle(api, body);
        const send = (): void => {
          slot.ready = true;
          slot.chunks = answer === null ? null : encodeResponse(api, header.requestApiVersion, header.correlationId, answer);
          flush();
        };
        if (api.apiKey === Api.Produce.apiKey && this.holding) this.held.push(send);
        else send();
      }
    });
  }

  private handle(api: ApiCodecs, body: unknown): unknown {
    switch (api.apiKey) {
      case Api.ApiVersions.apiKey:
        return { errorCode: 0, throttleTimeMs: 0, apiKeys: SUPPORTED.map((a) => ({ apiKey: a.apiKey, minVersion: a.request.lowestVersion, maxVersion: a.request.highestVersion })) };
      case Api.Metadata.apiKey: {
        this.metadataRequests++;
        const req = body as { topics: { name: string | null }[] | null };
        const names = req.topics === null ? [...this.topics.keys()] : req.topics.map((t) => t.name ?? '');
        return {
          throttleTimeMs: 0, brokers: [{ nodeId: 1, host: '127.0.0.1', port: this.port, rack: null }], clusterId: 'fake', controllerId: 1,
          topics: names.map((name) => {
            const count = this.unknownTopics.has(name) ? undefined : this.topics.get(name);
            return {
              errorCode: count === undefined ? 3 : 0, name, topicId: 'AAAAAAAAAAAAAAAAAAAAAA', isInternal: false, topicAuthorizedOperations: -2147483648,
              partitions: Array.from({ length: count ?? 0 }, (_, i) => ({ errorCode: 0, partitionIndex: i, leaderId: 1, leaderEpoch: 0, replicaNodes: [1], isrNodes: [1], offlineReplicas: [] })),
            };
          }),
          clusterAuthorizedOperations: -2147483648,
        };
      }
      case Api.InitProducerId.apiKey:
        this.initProducerIdRequests++;
        return { throttleTimeMs: 0, errorCode: 0, producerId: this.nextProducerId++, producerEpoch: 0 };
      case Api.Produce.apiKey:
        return this.produce(body as { acks: number; topicData: { name: string; partitionData: { index: number; records: Buffer | null }[] }[] });
    }
    throw new Error(`fake broker: unexpected API ${api.name}`);
  }

  private produce(req: { acks: number; topicData: { name: string; partitionData: { index: number; records: Buffer | null }[] }[] }): unknown {
    const call: ProduceCall = { acks: req.acks, batches: [], answers: [] };
    this.calls.push(call);
    const callIndex = this.calls.length - 1;
    const responses = req.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p): PartitionProduceResponse => {
        const bytes = [...iterateBatches(p.records!)][0]!.buffer;
        const produced: ProducedBatch = { topic: t.name, partition: p.index, batch: decodeRecordBatch(bytes), bytes: Buffer.from(bytes) };
        call.batches.push(produced);
        const hooked = this.hook(produced, callIndex);
        const answer = (errorCode: number, baseOffset = -1n): PartitionProduceResponse => (call.answers.push(errorCode), { index: p.index, errorCode, baseOffset, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null });
        if (typeof hooked === 'number') return answer(hooked);
        const appended = this.append(produced);
        if (typeof appended === 'number') return answer(appended);
        if (hooked && typeof hooked === 'object') return answer(hooked.appendThenError);
        return answer(0, appended.offset);
      }),
    }));
    if (req.acks === 0) return null;
    return { responses, throttleTimeMs: 0 };
  }

  private append(b: ProducedBatch): number | { offset: bigint } {
    const h = b.batch.header;
    const key = `${b.topic}-${b.partition}`;
    if (h.producerId >= 0n) {
      const stateKey = `${h.producerId}:${key}`;
      const state = this.nextSequence.get(stateKey);
      if (!state || h.producerEpoch > state.epoch) {
        if (h.baseSequence !== 0 && state) return 45;
      } else if (h.producerEpoch < state.epoch) {
        return 47;
      } else if (h.baseSequence < state.seq) {
        return 46;
      } else if (h.baseSequence > state.seq) {
        return 45;
      }
      this.nextSequence.set(stateKey, { epoch: h.producerEpoch, seq: h.baseSequence + h.recordCount });
    }
    const log = this.log.get(key) ?? [];
    this.log.set(key, log);
    const offset = log.reduce((n, x) => n + BigInt(x.batch.header.recordCount), 0n);
    log.push(b);
    return { offset };
  }
}
