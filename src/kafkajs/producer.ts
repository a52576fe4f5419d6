/**
 * KafkaJS's producer over Brook's Producer. `send` and `sendBatch` resolve with KafkaJS's
 * RecordMetadata: one entry per topic-partition written, its `baseOffset` the first offset
 * this call wrote there. KafkaJS takes `acks` and `compression` per call while Brook's
 * producer fixes them at construction: one Brook producer per (acks, compression) used,
 * made on first use (an idempotent producer always writes with acks=-1; a transactional one
 * through a single producer, uncompressed).
 */
import { Producer as BrookProducer, type ProducerOptions, type RecordMetadata as BrookRecordMetadata } from '../client/producer/index.js';
import type { CompressionName } from '../client/producer/options.js';
import type { PartitionerFunction } from '../client/producer/partitioner.js';
import type { CommonClientOptions } from '../client/options.js';
import { KafkaJSNonRetriableError, kafkajsCall } from './errors.js';
import { Instrumentation, type InstrumentationEvent, type RemoveInstrumentationEventListener } from './events.js';
import type { KafkaJSLogging } from './logger.js';
import { DefaultPartitioner, type ICustomPartitioner, type PartitionMetadata } from './partitioners.js';
import type { RetryOptions } from './config.js';

export const CompressionTypes = Object.freeze({ None: 0, GZIP: 1, Snappy: 2, LZ4: 3, ZSTD: 4 } as const);
/**
 * KafkaJS's codec registry, where applications plug Snappy, LZ4 and ZSTD codecs in. Every
 * codec is built into Brook's producer and consumer: entries set here are accepted and unused.
 */
export const CompressionCodecs: Record<number, unknown> = { [CompressionTypes.GZIP]: () => ({}) };
const COMPRESSION_NAMES: Record<number, CompressionName> = { 0: 'none', 1: 'gzip', 2: 'snappy', 3: 'lz4', 4: 'zstd' };

export type IHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

export interface Message {
  key?: Buffer | string | null;
  value: Buffer | string | null;
  partition?: number;
  headers?: IHeaders;
  timestamp?: string;
}

export interface ProducerRecord {
  topic: string;
  messages: Message[];
  acks?: number;
  timeout?: number;
  compression?: number;
}

export interface TopicMessages {
  topic: string;
  messages: Message[];
}

export interface ProducerBatch {
  acks?: number;
  timeout?: number;
  compression?: number;
  topicMessages?: TopicMessages[];
}

export interface RecordMetadata {
  topicName: string;
  partition: number;
  errorCode: number;
  offset?: string;
  timestamp?: string;
  baseOffset?: string;
  logAppendTime?: string;
  logStartOffset?: string;
}

export interface ProducerConfig {
  createPartitioner?: ICustomPartitioner;
  retry?: RetryOptions;
  metadataMaxAge?: number;
  allowAutoTopicCreation?: boolean;
  idempotent?: boolean;
  transactionalId?: string;
  transactionTimeout?: number;
  maxInFlightRequests?: number;
}

export interface TopicOffsets {
  topic: string;
  partitions: { partition: number; offset: string }[];
}

export interface Offsets {
  topics: TopicOffsets[];
}

export const PRODUCER_EVENTS = Object.freeze({
  CONNECT: 'producer.connect',
  DISCONNECT: 'producer.disconnect',
  REQUEST: 'producer.network.request',
  REQUEST_TIMEOUT: 'producer.network.request_timeout',
  REQUEST_QUEUE_SIZE: 'producer.network.request_queue_size',
});

/** KafkaJS's headers (a value may be an array: one header per element) as Brook's header list. */
export function toHeaders(headers: IHeaders | undefined): { key: string; value: Buffer | string | null }[] | undefined {
  if (!headers) return undefined;
  const out: { key: string; value: Buffer | string | null }[] = [];
  for (const [key, v] of Object.entries(headers)) {
    if (v === undefined) continue;
    for (const value of Array.isArray(v) ? v : [v]) out.push({ key, value });
  }
  return out;
}

/**
 * Brook's partitioner calling a KafkaJS one with the metadata it reads (every partition has a
 * leader). Brook hands it the key's bytes; KafkaJS hands the message's key as the application
 * gave it, and partitioners call string methods on it: a key whose text is among the string
 * keys being sent (`stringKeys`, counted by send) goes to the partitioner as that string.
 */
function adaptPartitioner(create: ICustomPartitioner, stringKeys: ReadonlyMap<string, number>): PartitionerFunction {
  const partitioner = create();
  const metadata = new Map<number, PartitionMetadata[]>();
  return ({ topic, key, value, partitionCount }) => {
    let partitions = metadata.get(partitionCount);
    if (!partitions) {
      partitions = Array.from({ length: partitionCount }, (_, partitionId) => ({ partitionErrorCode: 0, partitionId, leader: 0, replicas: [0], isr: [0] }));
      metadata.set(partitionCount, partitions);
    }
    const text = key === null || stringKeys.size === 0 ? undefined : key.toString('utf8');
    return partitioner({ topic, partitionMetadata: partitions, message: { key: text !== undefined && stringKeys.has(text) ? text : key, value } });
  };
}

/** Counts `keys` in `counts` while `during` runs. */
async function counting<T>(counts: Map<string, number>, keys: readonly string[], during: () => Promise<T>): Promise<T> {
  for (const k of keys) counts.set(k, (counts.get(k) ?? 0) + 1);
  try {
    return await during();
  } finally {
    for (const k of keys) {
      const n = counts.get(k)! - 1;
      if (n === 0) counts.delete(k);
      else counts.set(k, n);
    }
  }
}

/** Per-record metadata of one call as KafkaJS's per-partition answer, partitions in the order first written. */
export function toRecordMetadata(results: readonly BrookRecordMetadata[]): RecordMetadata[] {
  const first = new Map<string, BrookRecordMetadata>();
  for (const r of results) {
    const key = `${r.topic}\u0000${r.partition}`;
    const seen = first.get(key);
    if (!seen || (r.offset >= 0n && r.offset < seen.offset)) first.set(key, r);
  }
  return [...first.values()].map((r) => ({ topicName: r.topic, partition: r.partition, errorCode: 0, baseOffset: String(r.offset), logAppendTime: String(r.logAppendTime), logStartOffset: String(r.logStartOffset) }));
}

export class KafkaJSProducer {
  readonly events = PRODUCER_EVENTS;
  private readonly instrumentation: Instrumentation;
  private readonly producers = new Map<string, BrookProducer>();
  private common: CommonClientOptions | null = null;
  private connecting: Promise<void> | null = null;
  private transactionActive = false;
  /** disconnect() calls still closing their producers: sends meanwhile get KafkaJS's "disconnecting" error. */
  private disconnecting = 0;
  /** String keys of the messages being sent (a custom partitioner sees them as strings). */
  private readonly stringKeys = new Map<string, number>();

  constructor(private readonly resolveCommon: () => Promise<CommonClientOptions>, private readonly config: ProducerConfig, private readonly logging: KafkaJSLogging) {
    if (config.idempotent === true && config.retry?.retries !== undefined && config.retry.retries < 1) {
      throw new KafkaJSNonRetriableError('Idempotent producer must allow retries to protect against transient errors');
    }
    this.instrumentation = new Instrumentation(PRODUCER_EVENTS, PRODUCER_EVENTS.REQUEST, () => this.common?.clientId ?? '');
  }

  on(eventName: string, listener: (event: InstrumentationEvent<unknown>) => void): RemoveInstrumentationEventListener {
    return this.instrumentation.on(eventName, listener);
  }

  logger(): ReturnType<KafkaJSLogging['logger']> {
    return this.logging.logger('Producer');
  }

  isIdempotent(): boolean {
    return this.config.idempotent === true || this.config.transactionalId !== undefined;
  }

  async connect(): Promise<void> {
    this.connecting ??= kafkajsCall(async () => {
      this.common = await this.resolveCommon();
      const transactional = this.config.transactionalId !== undefined;
      await this.producerFor(-1, 0, transactional).connect();
      if (transactional) await this.producerFor(-1, 0, true).initTransactions();
    });
    try {
      await this.connecting;
    } catch (err) {
      this.connecting = null;
      throw err;
    }
    this.instrumentation.emit(PRODUCER_EVENTS.CONNECT);
  }

  async disconnect(): Promise<void> {
    const all = [...this.producers.values()];
    this.producers.clear();
    this.connecting = null;
    this.common = null;
    this.disconnecting++;
    try {
      await Promise.all(all.map((p) => p.close()));
    } finally {
      this.disconnecting--;
    }
    this.instrumentation.unwatchRequests();
    this.instrumentation.emit(PRODUCER_EVENTS.DISCONNECT);
  }

  /**
   * The Brook producer for these settings. A transactional id makes one transactional producer
   * (`transactional`: the transaction's sends); the producer's own send() and sendBatch() are
   * outside any transaction, as in KafkaJS, and go through an idempotent one.
   */
  private producerFor(acks: number, compression: number, transactional = false): BrookProducer {
    if (!this.common) throw new KafkaJSNonRetriableError('The producer is disconnected');
    // Outside a transaction, idempotent only when asked (KafkaJS's transactional producer sends with acks 1 there).
    const idempotent = transactional || this.config.idempotent === true;
    if (idempotent && acks !== -1) throw new KafkaJSNonRetriableError("Not requiring ack for all messages invalidates the idempotent producer's EoS guarantees");
    const name = COMPRESSION_NAMES[compression];
    if (name === undefined) throw new KafkaJSNonRetriableError(`Compression codec ${compression} is not implemented`);
    // One transactional id, one producer; an idempotent one may have one per codec.
    const key = transactional ? 'tx' : `${acks}/${compression}`;
    let p = this.producers.get(key);
    if (!p) {
      const create = this.config.createPartitioner;
      const options: ProducerOptions = {
        ...this.common,
        acks: acks as -1 | 0 | 1,
        compression: transactional ? 'none' : name,
        idempotent,
        lingerMs: 0,
        logger: this.logging.brook('Producer'),
        ...(this.config.retry?.maxRetryTime !== undefined ? { retryBackoffMaxMs: this.config.retry.maxRetryTime } : {}),
        ...(this.config.metadataMaxAge !== undefined ? { metadataMaxAgeMs: this.config.metadataMaxAge } : {}),
        ...(this.config.maxInFlightRequests !== undefined ? { maxInFlightRequestsPerConnection: this.config.maxInFlightRequests } : {}),
        ...(transactional && this.config.transactionalId !== undefined ? { transactionalId: this.config.transactionalId } : {}),
        ...(this.config.transactionTimeout !== undefined ? { transactionTimeoutMs: this.config.transactionTimeout } : {}),
        ...(create !== undefined && create !== DefaultPartitioner ? { partitioner: adaptPartitioner(create, this.stringKeys) } : {}),
      };
      p = new BrookProducer(options);
      this.producers.set(key, p);
    }
    return p;
  }

  /** Sends every message; resolves once all are acknowledged. */
  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    return this.sendBatch({ acks: record.acks, timeout: record.timeout, compression: record.compression, topicMessages: [{ topic: record.topic, messages: record.messages }] });
  }

  async sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    return this.write(batch);
  }

  /** @internal sends `batch`; `transactional`: in the open transaction (the transaction's send and sendBatch). */
  async write(batch: ProducerBatch, transactional = false): Promise<RecordMetadata[]> {
    const topicMessages = batch.topicMessages ?? [];
    for (const { topic, messages } of topicMessages) {
      if (!topic) throw new KafkaJSNonRetriableError('Invalid topic');
      if (!Array.isArray(messages)) throw new KafkaJSNonRetriableError(`Invalid messages array [${String(messages)}] for topic "${topic}"`);
      for (const m of messages) if (m === null || m === undefined || m.value === undefined) throw new KafkaJSNonRetriableError(`Invalid message without value for topic "${topic}": ${JSON.stringify(m)}`);
    }
    if (this.disconnecting > 0) throw new KafkaJSNonRetriableError('The producer is disconnecting; therefore, it can\'t safely accept messages anymore');
    if (!this.common) throw new KafkaJSNonRetriableError('The producer is disconnected');
    return kafkajsCall(async () => {
      const producer = this.producerFor(batch.acks ?? -1, batch.compression ?? CompressionTypes.None, transactional);
      const records = topicMessages.flatMap(({ topic, messages }) => messages.map((m) => ({
        topic,
        key: m.key ?? null,
        value: m.value,
        ...(m.partition !== undefined && m.partition !== null ? { partition: m.partition } : {}),
        ...(m.headers ? { headers: toHeaders(m.headers)! } : {}),
        ...(m.timestamp !== undefined && m.timestamp !== null ? { timestamp: Number(m.timestamp) } : {}),
      })));
      const custom = this.config.createPartitioner !== undefined && this.config.createPartitioner !== DefaultPartitioner;
      const stringKeys = custom ? records.flatMap((r) => (typeof r.key === 'string' ? [r.key] : [])) : [];
      const written = await counting(this.stringKeys, stringKeys, () => producer.sendBatch(records));
      // acks 0: the broker answers nothing, and KafkaJS resolves with no metadata.
      return batch.acks === 0 ? [] : toRecordMetadata(written);
    });
  }

  /** A transaction (transactional producers only): send, sendBatch, sendOffsets, commit, abort. */
  async transaction(): Promise<KafkaJSTransaction> {
    if (this.config.transactionalId === undefined) throw new KafkaJSNonRetriableError('Must provide transactional id for transactional producer');
    if (this.transactionActive) throw new KafkaJSNonRetriableError('There is already an ongoing transaction for this producer. Please end the transaction before beginning another.');
    const producer = this.producerFor(-1, 0, true);
    await kafkajsCall(async () => producer.beginTransaction());
    this.transactionActive = true;
    return new KafkaJSTransaction(this, producer, () => (this.transactionActive = false));
  }
}

export class KafkaJSTransaction {
  private active = true;
  constructor(private readonly owner: KafkaJSProducer, private readonly producer: BrookProducer, private readonly ended: () => void) {}

  isActive(): boolean {
    return this.active;
  }

  private check(): void {
    if (!this.active) throw new KafkaJSNonRetriableError('Cannot continue to use transaction once ended');
  }

  // Async, as KafkaJS's: a call on an ended transaction rejects (it does not throw).
  async send(record: ProducerRecord): Promise<RecordMetadata[]> {
    this.check();
    return this.owner.write({ acks: -1, topicMessages: [{ topic: record.topic, messages: record.messages }] }, true);
  }

  async sendBatch(batch: ProducerBatch): Promise<RecordMetadata[]> {
    this.check();
    return this.owner.write({ ...batch, acks: -1 }, true);
  }

  /** Commits a consumer group's offsets with the transaction (KafkaJS: generation -1, no member id, as Kafka's groupId-only call). */
  async sendOffsets({ consumerGroupId, topics }: Offsets & { consumerGroupId: string }): Promise<void> {
    this.check();
    const offsets = topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.topic, partition: p.partition, offset: BigInt(p.offset) })));
    await kafkajsCall(() => this.producer.sendOffsetsToTransaction(offsets, { groupId: consumerGroupId, generationId: -1, memberId: '', groupInstanceId: null }));
  }

  async commit(): Promise<void> {
    this.check();
    try {
      await kafkajsCall(() => this.producer.commitTransaction());
    } finally {
      this.finish();
    }
  }

  async abort(): Promise<void> {
    this.check();
    try {
      await kafkajsCall(() => this.producer.abortTransaction());
    } finally {
      this.finish();
    }
  }

  private finish(): void {
    this.active = false;
    this.ended();
  }
}
