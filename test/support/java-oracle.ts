/**
 * Talks to the Java conformance program (test/support/java): Apache Kafka's own generated
 * message classes, asked to encode JSON values and decode bytes, one JSON line per request;
 * and Kafka's own partition assignors (kafkaAssignment).
 */
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { parseJson, stringify, RawJson, type Json, JsonNumber } from './kafka-json.js';
import { runProcess } from './clients/run.js';

const javaDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'support', 'java');

/** Builds the jar when missing or stale; returns its path. */
export function buildJavaSupport(): string {
  const result = spawnSync('bash', [join(javaDir, 'build.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (result.status !== 0) throw new Error(`test/support/java/build.sh failed (${result.status})`);
  return result.stdout.trim();
}

export function javaCommand(mainClass: string): string[] {
  return ['java', '-cp', buildJavaSupport(), mainClass];
}

/** One member as AssignorOracle.java builds Kafka's `ConsumerPartitionAssignor.Subscription` from it. */
export interface KafkaAssignMember {
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly topics: readonly string[];
  readonly ownedPartitions: readonly { topic: string; partition: number }[];
  readonly generationId: number;
  readonly rackId: string | null;
}

/**
 * The assignment Apache Kafka's own assignor (kafka-clients 4.4.0: RangeAssignor,
 * RoundRobinAssignor, StickyAssignor, CooperativeStickyAssignor) computes for these members,
 * through test/support/java AssignorOracle: member id → its partitions, sorted by topic and
 * partition. The members carry no user data (StickyAssignor's previous assignment). The JVM
 * runs as a child process without blocking the event loop (only the jar's up-to-date check is
 * synchronous), so an in-process broker and in-process consumers keep running meanwhile.
 */
export async function kafkaAssignment(
  assignor: 'range' | 'roundrobin' | 'sticky' | 'cooperative-sticky',
  partitionsPerTopic: Readonly<Record<string, number>>,
  members: readonly KafkaAssignMember[],
): Promise<Map<string, { topic: string; partition: number }[]>> {
  const request = { op: 'assign', assignor, partitionsPerTopic, members: members.map((m) => ({ ...m, userData: null })) };
  const [cmd, ...args] = javaCommand('brook.conformance.AssignorOracle');
  const result = await runProcess(cmd!, args, { input: JSON.stringify([request]), timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`AssignorOracle exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const [reply] = JSON.parse(result.stdout) as { assignment?: Record<string, { topic: string; partition: number }[]>; error?: string }[];
  if (!reply?.assignment) throw new Error(`AssignorOracle: ${reply?.error ?? result.stdout.slice(0, 500)}`);
  const byTopicAndPartition = (a: { topic: string; partition: number }, b: { topic: string; partition: number }): number =>
    a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
  return new Map(Object.entries(reply.assignment).map(([id, tps]) => [id, [...tps].sort(byTopicAndPartition)]));
}

export interface OracleReply {
  ok: boolean;
  error?: string;
  hex?: string;
  data?: Json;
  reencodedHex?: string;
  messages?: Record<string, { lowest: number; highest: number }>;
  /** records-decode: every batch Kafka's MemoryRecords found, in order. */
  batches?: OracleRecordBatch[];
  /** records-decode: bytes after the last whole batch (MemoryRecords skips a partial tail). */
  trailingBytes?: number;
  /** errors: Kafka's error table (`Errors`), in its order. */
  errors?: { code: number; name: string; retriable: boolean }[];
}

export type OracleCompression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export type OracleTimestampType = 'create' | 'logAppend';

export interface OracleRecordHeader {
  key: string;
  value: Buffer | null;
}

/** One record as Kafka's `Record` reports it (the same shape as Brook's BatchRecord). */
export interface OracleRecord {
  offset: bigint;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
  headers: OracleRecordHeader[];
}

/** One batch as Kafka's DefaultRecordBatch reports it, after `ensureValid()` passed. */
export interface OracleRecordBatch {
  baseOffset: bigint;
  lastOffset: bigint;
  sizeInBytes: number;
  magic: number;
  /** The stored CRC-32C (unsigned). */
  crc: number;
  compression: OracleCompression;
  timestampType: OracleTimestampType | 'none';
  isTransactional: boolean;
  isControl: boolean;
  partitionLeaderEpoch: number;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  lastSequence: number;
  /** v2 batches only. */
  baseTimestamp?: bigint;
  /** Present when the batch has the delete-horizon flag. */
  deleteHorizonMs?: bigint;
  maxTimestamp: bigint;
  /** The record count from the header (absent for legacy batches). */
  count?: number;
  records: OracleRecord[];
}

/** What records-encode hands to MemoryRecords.builder (magic 2) and appendWithOffset. */
export interface OracleRecordsEncodeInput {
  compression: OracleCompression;
  /** gzip, lz4 or zstd level; the codec's default when absent. */
  compressionLevel?: number;
  baseOffset?: bigint;
  producerId?: bigint;
  producerEpoch?: number;
  baseSequence?: number;
  partitionLeaderEpoch?: number;
  isTransactional?: boolean;
  timestampType?: OracleTimestampType;
  /** Required with timestampType logAppend: the builder's logAppendTime. */
  logAppendTime?: bigint;
  records: readonly {
    timestamp: bigint;
    key: Buffer | null;
    value: Buffer | null;
    headers?: readonly OracleRecordHeader[];
    /** Offset = baseOffset + offsetDelta; defaults to the record's index. */
    offsetDelta?: number;
  }[];
}

export class JavaOracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (reply: OracleReply) => void>();
  private nextId = 1;

  private constructor(jar: string) {
    this.child = spawn('java', ['-jar', jar], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stderr.on('data', (d: Buffer) => process.stderr.write(`[java oracle] ${d.toString()}`));
    createInterface({ input: this.child.stdout }).on('line', (line) => {
      const parsed = parseJson(line) as Record<string, Json>;
      const id = Number((parsed['id'] as JsonNumber).raw);
      const resolve = this.waiting.get(id);
      this.waiting.delete(id);
      resolve?.(this.toReply(parsed));
    });
  }

  static start(): JavaOracle {
    return new JavaOracle(buildJavaSupport());
  }

  private toReply(p: Record<string, Json>): OracleReply {
    const reply: OracleReply = { ok: p['ok'] === true };
    if (typeof p['error'] === 'string') reply.error = p['error'];
    if (typeof p['hex'] === 'string') reply.hex = p['hex'];
    if (typeof p['reencodedHex'] === 'string') reply.reencodedHex = p['reencodedHex'];
    if (p['data'] !== undefined) reply.data = p['data'];
    if (p['messages'] !== undefined) {
      const messages: Record<string, { lowest: number; highest: number }> = {};
      for (const [name, range] of Object.entries(p['messages'] as Record<string, Record<string, JsonNumber>>)) {
        messages[name] = { lowest: Number(range['lowest']!.raw), highest: Number(range['highest']!.raw) };
      }
      reply.messages = messages;
    }
    if (Array.isArray(p['batches'])) reply.batches = (p['batches'] as Record<string, Json>[]).map(toOracleBatch);
    if (p['trailingBytes'] instanceof JsonNumber) reply.trailingBytes = Number(p['trailingBytes'].raw);
    if (Array.isArray(p['errors'])) {
      reply.errors = (p['errors'] as Record<string, Json>[]).map((e) => ({
        code: Number((e['code'] as JsonNumber).raw), name: e['name'] as string, retriable: e['retriable'] === true,
      }));
    }
    return reply;
  }

  private send(request: Record<string, unknown>): Promise<OracleReply> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(`${stringify({ id, ...request })}\n`);
    });
  }

  versions(): Promise<OracleReply> {
    return this.send({ op: 'versions' });
  }

  /** Every error code Kafka knows, with its name and retriability. */
  errors(): Promise<OracleReply> {
    return this.send({ op: 'errors' });
  }

  encode(message: string, version: number, kafkaJson: string): Promise<OracleReply> {
    return this.send({ op: 'encode', message, version, data: new RawJson(kafkaJson) });
  }

  decode(message: string, version: number, bytes: Buffer): Promise<OracleReply> {
    return this.send({ op: 'decode', message, version, hex: bytes.toString('hex') });
  }

  /** Kafka's MemoryRecordsBuilder writes one magic v2 batch; the reply's `hex` holds it. */
  recordsEncode(input: OracleRecordsEncodeInput): Promise<OracleReply> {
    return this.send({
      op: 'records-encode',
      ...input,
      records: input.records.map((r) => ({
        timestamp: r.timestamp,
        key: base64OrNull(r.key),
        value: base64OrNull(r.value),
        headers: (r.headers ?? []).map((h) => ({ key: h.key, value: base64OrNull(h.value) })),
        offsetDelta: r.offsetDelta,
      })),
    });
  }

  /** Kafka's MemoryRecords reads every batch in `bytes`, checks it (ensureValid: CRC) and its records. */
  recordsDecode(bytes: Buffer): Promise<OracleReply> {
    return this.send({ op: 'records-decode', hex: bytes.toString('hex') });
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    await new Promise((resolve) => this.child.on('close', resolve));
  }
}

function base64OrNull(bytes: Buffer | null): string | null {
  return bytes === null ? null : bytes.toString('base64');
}

const int = (j: Json | undefined): number => Number((j as JsonNumber).raw);
const int64 = (j: Json | undefined): bigint => BigInt((j as JsonNumber).raw);
const bytesOrNull = (j: Json | undefined): Buffer | null => (j === null ? null : Buffer.from(j as string, 'base64'));

function toOracleBatch(b: Record<string, Json>): OracleRecordBatch {
  const batch: OracleRecordBatch = {
    baseOffset: int64(b['baseOffset']),
    lastOffset: int64(b['lastOffset']),
    sizeInBytes: int(b['sizeInBytes']),
    magic: int(b['magic']),
    crc: int(b['crc']),
    compression: b['compression'] as OracleCompression,
    timestampType: b['timestampType'] as OracleTimestampType | 'none',
    isTransactional: b['isTransactional'] === true,
    isControl: b['isControl'] === true,
    partitionLeaderEpoch: int(b['partitionLeaderEpoch']),
    producerId: int64(b['producerId']),
    producerEpoch: int(b['producerEpoch']),
    baseSequence: int(b['baseSequence']),
    lastSequence: int(b['lastSequence']),
    maxTimestamp: int64(b['maxTimestamp']),
    records: (b['records'] as Record<string, Json>[]).map((r) => ({
      offset: int64(r['offset']),
      timestamp: int64(r['timestamp']),
      key: bytesOrNull(r['key']),
      value: bytesOrNull(r['value']),
      headers: (r['headers'] as Record<string, Json>[]).map((h) => ({ key: h['key'] as string, value: bytesOrNull(h['value']) })),
    })),
  };
  if (b['baseTimestamp'] !== undefined) batch.baseTimestamp = int64(b['baseTimestamp']);
  if (b['deleteHorizonMs'] !== undefined) batch.deleteHorizonMs = int64(b['deleteHorizonMs']);
  if (b['count'] !== undefined) batch.count = int(b['count']);
  return batch;
}

/** One member as ServerAssignorOracle.java builds Kafka's MemberSubscriptionAndAssignmentImpl from it. */
export interface KafkaServerAssignMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  /** In the order Kafka's TopicIds would iterate them. */
  readonly subscribedTopicIds: readonly string[];
  /** The member's current target assignment, as the list its last record holds. */
  readonly assignment: readonly { topicId: string; partitions: readonly number[] }[];
}

export interface KafkaServerAssignRequest {
  /** uniform and range: consumer groups; simple: share groups. */
  readonly assignor: 'uniform' | 'range' | 'simple';
  readonly subscriptionType: 'homogeneous' | 'heterogeneous';
  /** Share groups: the partitions that may be assigned, by topic id (absent: every one). */
  readonly assignable?: Readonly<Record<string, readonly number[]>>;
  /** Topic id → partition count. */
  readonly partitions: Readonly<Record<string, number>>;
  /** In the order Kafka's TargetAssignmentBuilder puts them into its HashMap of member specs. */
  readonly members: readonly KafkaServerAssignMember[];
}

/**
 * The target assignments Apache Kafka's server-side assignors (kafka-group-coordinator:
 * UniformAssignor, RangeAssignor, SimpleAssignor) compute, through test/support/java ServerAssignorOracle:
 * per request, member id → topics and partitions in the iteration order of Kafka's result
 * (the order its records would list them). One JVM for the whole batch.
 */
export async function kafkaServerAssignments(requests: readonly KafkaServerAssignRequest[]): Promise<Map<string, { topicId: string; partitions: number[] }[]>[]> {
  const [cmd, ...args] = javaCommand('brook.conformance.ServerAssignorOracle');
  const result = await runProcess(cmd!, args, { input: JSON.stringify(requests), timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`ServerAssignorOracle exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const replies = JSON.parse(result.stdout) as { assignment?: Record<string, { topicId: string; partitions: number[] }[]>; error?: string }[];
  return replies.map((reply, i) => {
    if (!reply.assignment) throw new Error(`ServerAssignorOracle, request ${i}: ${reply.error ?? JSON.stringify(reply)}`);
    return new Map(Object.entries(reply.assignment));
  });
}

/** A state batch as the share coordinator stores it (offsets in JSON numbers: the tests keep them small). */
export interface KafkaStateBatch {
  readonly firstOffset: number;
  readonly lastOffset: number;
  readonly deliveryState: number;
  readonly deliveryCount: number;
}

export interface KafkaCombineRequest {
  readonly soFar: readonly KafkaStateBatch[];
  readonly update: readonly KafkaStateBatch[];
  readonly startOffset: number;
}

/**
 * What Apache Kafka's share coordinator makes of a share-partition's state batches and an
 * update's (PersisterStateBatchCombiner, through test/support/java ShareStateOracle). One JVM
 * for the whole batch of requests.
 */
export async function kafkaCombinedStateBatches(requests: readonly KafkaCombineRequest[]): Promise<KafkaStateBatch[][]> {
  const [cmd, ...args] = javaCommand('brook.conformance.ShareStateOracle');
  const result = await runProcess(cmd!, args, { input: JSON.stringify(requests), timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`ShareStateOracle exited ${result.code}: ${result.stderr.slice(-2000)}`);
  return JSON.parse(result.stdout) as KafkaStateBatch[][];
}

/** One member as StreamsAssignorOracle.java builds Kafka's MemberMetadataAndStateImpl from it. */
export interface KafkaStreamsAssignMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly processId: string;
  readonly clientTags: Readonly<Record<string, string>>;
  /** Subtopology id → partitions. */
  readonly activeTasks: Readonly<Record<string, readonly number[]>>;
  readonly standbyTasks: Readonly<Record<string, readonly number[]>>;
  readonly warmupTasks: Readonly<Record<string, readonly number[]>>;
  /** Subtopology id → partition → offset sum (a decimal long). */
  readonly taskOffsets: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly taskEndOffsets: Readonly<Record<string, Readonly<Record<string, string>>>>;
}

export interface KafkaStreamsAssignRequest {
  readonly numStandbyReplicas: number;
  readonly rackAwareAssignmentTags: readonly string[];
  /** In the order the topology describer lists them. */
  readonly subtopologies: readonly { id: string; partitions: number; stateful: boolean }[];
  /** In the order the assignor iterates them. */
  readonly members: readonly KafkaStreamsAssignMember[];
}

/** Member id → its active and standby tasks, subtopologies and partitions sorted. */
export type KafkaStreamsAssignment = Record<string, { activeTasks: Record<string, number[]>; standbyTasks: Record<string, number[]> }>;

/**
 * What Apache Kafka's streams-group task assignor (kafka-group-coordinator's
 * StickyTaskAssignor) makes of each request, through test/support/java StreamsAssignorOracle:
 * the assignment, or the exception it threw ("<class>: <message>"). One JVM for the batch.
 */
export async function kafkaStreamsAssignments(requests: readonly KafkaStreamsAssignRequest[]): Promise<({ assignment: KafkaStreamsAssignment } | { error: string })[]> {
  const [cmd, ...args] = javaCommand('brook.conformance.StreamsAssignorOracle');
  const result = await runProcess(cmd!, args, { input: JSON.stringify(requests), timeoutMs: 180_000 });
  if (result.code !== 0) throw new Error(`StreamsAssignorOracle exited ${result.code}: ${result.stderr.slice(-2000)}`);
  return JSON.parse(result.stdout) as ({ assignment: KafkaStreamsAssignment } | { error: string })[];
}

/** One configureTopics call for StreamsTopologyOracle: a topology record and the cluster's topics. */
export interface KafkaTopologyRequest {
  /** StreamsGroupTopologyValue as Kafka's JsonConverter reads it (toKafkaJson, version 0), parsed. */
  readonly topology: unknown;
  readonly topics: Readonly<Record<string, number>>;
}

/**
 * What Kafka 4.4's InternalTopicManager.configureTopics makes of each request, through
 * test/support/java StreamsTopologyOracle (its JSON reply shape is documented there). One JVM
 * for the whole batch.
 */
export async function kafkaConfiguredTopologies(requests: readonly KafkaTopologyRequest[]): Promise<unknown[]> {
  const [cmd, ...args] = javaCommand('brook.conformance.StreamsTopologyOracle');
  const result = await runProcess(cmd!, args, { input: JSON.stringify(requests), timeoutMs: 120_000 });
  if (result.code !== 0) throw new Error(`StreamsTopologyOracle exited ${result.code}: ${result.stderr.slice(-2000)}`);
  const replies = JSON.parse(result.stdout) as { error?: string }[];
  return replies.map((reply, i) => {
    if (reply.error !== undefined) throw new Error(`StreamsTopologyOracle, request ${i}: ${reply.error}`);
    return reply;
  });
}
