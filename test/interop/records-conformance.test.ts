/**
 * Record batch (magic v2) conformance with Apache Kafka's own implementation
 * (kafka-clients 4.4.0 MemoryRecordsBuilder / MemoryRecords / DefaultRecordBatch, through
 * test/support/java), for every compression codec. For each codec and record set:
 *   Kafka decodes Brook's batch: CRC valid, every header field and record as given;
 *   Brook validates and decodes Kafka's batch to the same fields and records;
 *   uncompressed, Brook's bytes == Kafka's bytes; compressed, the bytes before compression
 *   are identical and each side's compressed container has the expected framing.
 * Needs: java 17+, Maven (first run downloads the artifacts from Maven Central).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  compressSnappyXerial,
  CompressionType,
  decodeRecordBatch,
  decodeRecordBatchAsync,
  decompress,
  encodeRecordBatch,
  encodeRecordBatchAsync,
  HEADER_SIZE,
  isXerialFramed,
  iterateBatches,
  LZ4_FRAME_MAGIC,
  RECORDS_OFFSET,
  TimestampType,
  updateBatchCrc,
  validateBatch,
  type BatchRecord,
  type RecordBatchHeader,
  type RecordBatchInput,
} from '../../src/protocol/records/index.js';
import { JavaOracle, type OracleCompression, type OracleRecordBatch, type OracleRecordsEncodeInput } from '../support/java-oracle.js';
import { seededRandom } from '../support/random-message.js';

const CODECS: [OracleCompression, CompressionType][] = [
  ['none', CompressionType.None],
  ['gzip', CompressionType.Gzip],
  ['snappy', CompressionType.Snappy],
  ['lz4', CompressionType.Lz4],
  ['zstd', CompressionType.Zstd],
];

interface SpecRecord {
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
  offsetDelta?: number;
}

/** One batch's content, handed to both encoders. */
interface Spec {
  name: string;
  baseOffset: bigint;
  producerId: bigint;
  producerEpoch: number;
  baseSequence: number;
  isTransactional: boolean;
  partitionLeaderEpoch: number;
  timestampType: TimestampType;
  /** Only with LogAppendTime. */
  logAppendTime?: bigint;
  records: SpecRecord[];
}

const rand = seededRandom(20240601);
function randomBytes(n: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) out[i] = Math.floor(rand() * 256);
  return out;
}
/** Compressible text-like bytes. */
function textBytes(n: number, seed: string): Buffer {
  const words = ['kafka', 'brook', 'record', 'batch', 'offset', 'partition', seed];
  let s = '';
  while (s.length < n) s += `${words[Math.floor(rand() * words.length)]!} `;
  return Buffer.from(s.slice(0, n));
}
const b = (s: string): Buffer => Buffer.from(s, 'utf8');

const T0 = 1_700_000_000_000n;
const NO_PRODUCER = { producerId: -1n, producerEpoch: -1, baseSequence: -1, isTransactional: false };
const CREATE = { timestampType: TimestampType.CreateTime, partitionLeaderEpoch: -1 };

const SPECS: Spec[] = [
  {
    name: 'one small record',
    baseOffset: 0n, ...NO_PRODUCER, ...CREATE,
    records: [{ timestamp: T0, key: b('key-1'), value: b('value-1'), headers: [{ key: 'h', value: b('v') }] }],
  },
  {
    name: 'null and empty keys, values and header values',
    baseOffset: 17n, ...NO_PRODUCER, ...CREATE,
    records: [
      { timestamp: T0, key: null, value: b('no key'), headers: [] },
      { timestamp: T0 + 1n, key: b('tombstone'), value: null, headers: [] },
      { timestamp: T0 + 2n, key: null, value: null, headers: [] },
      { timestamp: T0 + 3n, key: Buffer.alloc(0), value: Buffer.alloc(0), headers: [] },
      {
        timestamp: T0 + 4n, key: b('headers'), value: b('x'),
        headers: [
          { key: 'null-value', value: null },
          { key: 'empty-value', value: Buffer.alloc(0) },
          { key: '', value: b('empty key') },
          { key: 'dup', value: b('1') },
          { key: 'dup', value: b('2') },
          { key: 'ключ-🔑', value: randomBytes(40) },
        ],
      },
    ],
  },
  {
    name: 'idempotent producer (id, epoch, sequence set)',
    baseOffset: 1000n, producerId: 123_456_789_012_345n, producerEpoch: 7, baseSequence: 42, isTransactional: false, ...CREATE,
    records: Array.from({ length: 10 }, (_, i) => ({
      timestamp: T0 + BigInt(i * 10), key: b(`k${i}`), value: textBytes(100 + i, 'idem'), headers: [],
    })),
  },
  {
    name: 'transactional, int64 beyond 2^53, sequence near int32 max, leader epoch',
    baseOffset: 4_611_686_018_427_387_904n, producerId: 9_007_199_254_740_993n, producerEpoch: 32767,
    baseSequence: 2_147_483_640, isTransactional: true, timestampType: TimestampType.CreateTime, partitionLeaderEpoch: 12,
    records: Array.from({ length: 5 }, (_, i) => ({ timestamp: T0 + BigInt(i), key: null, value: b(`txn-${i}`), headers: [] })),
  },
  {
    name: 'large values (compressible and random, across codec block sizes)',
    baseOffset: 0n, ...NO_PRODUCER, ...CREATE,
    records: [
      { timestamp: T0, key: randomBytes(5000), value: textBytes(300_000, 'large'), headers: [{ key: 'big', value: randomBytes(70_000) }] },
      { timestamp: T0 + 1n, key: b('random'), value: randomBytes(200_000), headers: [] },
      { timestamp: T0 + 2n, key: b('zeros'), value: Buffer.alloc(400_000), headers: [] },
      { timestamp: T0 + 3n, key: b('small'), value: b('after the big ones'), headers: [] },
    ],
  },
  {
    name: '2,000 records',
    baseOffset: 5_000_000n, producerId: 77n, producerEpoch: 0, baseSequence: 0, isTransactional: false, ...CREATE,
    records: Array.from({ length: 2000 }, (_, i) => ({
      // not monotonic: the largest timestamp is in the middle
      timestamp: T0 + BigInt(i % 997) * 3n,
      key: i % 7 === 0 ? null : b(`key-${i}`),
      value: i % 11 === 0 ? null : textBytes(Math.floor(rand() * 300), `v${i % 13}`),
      headers: i % 5 === 0 ? [{ key: `h${i % 3}`, value: i % 10 === 0 ? null : b(String(i)) }] : [],
    })),
  },
  {
    name: 'timestamps: negative deltas, NO_TIMESTAMP (-1), 0, deltas beyond 2^53',
    baseOffset: 3n, ...NO_PRODUCER, ...CREATE,
    records: [
      { timestamp: T0, key: b('a'), value: b('1'), headers: [] },
      { timestamp: 5n, key: b('b'), value: b('2'), headers: [] },
      { timestamp: 0n, key: b('c'), value: b('3'), headers: [] },
      { timestamp: -1n, key: b('d'), value: b('4'), headers: [] },
      { timestamp: 9_000_000_000_000_000_000n, key: b('e'), value: b('5'), headers: [] },
      { timestamp: T0 - 1n, key: b('f'), value: b('6'), headers: [] },
    ],
  },
  {
    name: 'no timestamps at all (-1 everywhere)',
    baseOffset: 0n, ...NO_PRODUCER, ...CREATE,
    records: [
      { timestamp: -1n, key: b('a'), value: b('1'), headers: [] },
      { timestamp: -1n, key: b('b'), value: b('2'), headers: [] },
    ],
  },
  {
    name: 'offset gaps (compacted), last record not at the largest timestamp',
    baseOffset: 100n, ...NO_PRODUCER, ...CREATE,
    records: [0, 3, 4, 10, 1000, 70_000].map((offsetDelta, i) => ({
      offsetDelta, timestamp: T0 + BigInt(i === 2 ? 999 : i), key: b(`k${offsetDelta}`), value: b(`v${offsetDelta}`), headers: [],
    })),
  },
  {
    name: 'LogAppendTime',
    baseOffset: 42n, producerId: 5n, producerEpoch: 1, baseSequence: 9, isTransactional: false,
    timestampType: TimestampType.LogAppendTime, partitionLeaderEpoch: 3, logAppendTime: T0 + 123_456n,
    records: [
      { timestamp: T0, key: b('a'), value: b('create time is kept in the deltas'), headers: [{ key: 'x', value: null }] },
      { timestamp: T0 + 500n, key: b('b'), value: b('but reads as the append time'), headers: [] },
      { timestamp: T0 - 500n, key: null, value: b('c'), headers: [] },
    ],
  },
];

function brookInput(spec: Spec, compression: CompressionType, compressionLevel?: number): RecordBatchInput {
  return {
    records: spec.records.map((r) => ({ timestamp: r.timestamp, key: r.key, value: r.value, headers: r.headers, offsetDelta: r.offsetDelta })),
    baseOffset: spec.baseOffset,
    partitionLeaderEpoch: spec.partitionLeaderEpoch,
    compression,
    compressionLevel,
    timestampType: spec.timestampType,
    isTransactional: spec.isTransactional,
    producerId: spec.producerId,
    producerEpoch: spec.producerEpoch,
    baseSequence: spec.baseSequence,
    // Brook stamps LogAppendTime through maxTimestamp, as the broker does (setLogAppendTime).
    maxTimestamp: spec.timestampType === TimestampType.LogAppendTime ? spec.logAppendTime : undefined,
  };
}

function javaInput(spec: Spec, compression: OracleCompression, compressionLevel?: number): OracleRecordsEncodeInput {
  return {
    compression,
    compressionLevel,
    baseOffset: spec.baseOffset,
    producerId: spec.producerId,
    producerEpoch: spec.producerEpoch,
    baseSequence: spec.baseSequence,
    partitionLeaderEpoch: spec.partitionLeaderEpoch,
    isTransactional: spec.isTransactional,
    timestampType: spec.timestampType === TimestampType.LogAppendTime ? 'logAppend' : 'create',
    logAppendTime: spec.logAppendTime,
    records: spec.records,
  };
}

/** What either side must report for a batch of `spec`. */
function expected(spec: Spec): {
  baseOffset: bigint; lastOffset: bigint; baseTimestamp: bigint; maxTimestamp: bigint; records: BatchRecord[];
} {
  const logAppend = spec.timestampType === TimestampType.LogAppendTime;
  let lastDelta = 0;
  let maxTimestamp = -1n; // Kafka's builder starts from NO_TIMESTAMP and keeps the largest
  const records = spec.records.map((r, i) => {
    const delta = r.offsetDelta ?? i;
    if (delta > lastDelta) lastDelta = delta;
    if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
    return {
      offset: spec.baseOffset + BigInt(delta),
      timestamp: logAppend ? spec.logAppendTime! : r.timestamp,
      key: r.key,
      value: r.value,
      headers: r.headers.map((h) => ({ key: h.key, value: h.value })),
    };
  });
  return {
    baseOffset: spec.baseOffset,
    lastOffset: spec.baseOffset + BigInt(lastDelta),
    baseTimestamp: spec.records[0]!.timestamp,
    maxTimestamp: logAppend ? spec.logAppendTime! : maxTimestamp,
    records,
  };
}

/** Records as plain values: Brook's keys and values are views, so compare by content. */
function plain(records: readonly BatchRecord[]): BatchRecord[] {
  return records.map((r) => ({
    offset: r.offset,
    timestamp: r.timestamp,
    key: r.key === null ? null : Buffer.from(r.key),
    value: r.value === null ? null : Buffer.from(r.value),
    headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) })),
  }));
}

function checkJavaBatch(where: string, batch: OracleRecordBatch, spec: Spec, codec: OracleCompression): void {
  const want = expected(spec);
  assert.deepStrictEqual(
    {
      magic: batch.magic, compression: batch.compression, baseOffset: batch.baseOffset, lastOffset: batch.lastOffset,
      timestampType: batch.timestampType, isTransactional: batch.isTransactional, isControl: batch.isControl,
      partitionLeaderEpoch: batch.partitionLeaderEpoch, producerId: batch.producerId, producerEpoch: batch.producerEpoch,
      baseSequence: batch.baseSequence, baseTimestamp: batch.baseTimestamp, maxTimestamp: batch.maxTimestamp,
      count: batch.count, deleteHorizonMs: batch.deleteHorizonMs,
    },
    {
      magic: 2, compression: codec, baseOffset: want.baseOffset, lastOffset: want.lastOffset,
      timestampType: spec.timestampType === TimestampType.LogAppendTime ? 'logAppend' : 'create',
      isTransactional: spec.isTransactional, isControl: false,
      partitionLeaderEpoch: spec.partitionLeaderEpoch, producerId: spec.producerId, producerEpoch: spec.producerEpoch,
      baseSequence: spec.baseSequence, baseTimestamp: want.baseTimestamp, maxTimestamp: want.maxTimestamp,
      count: spec.records.length, deleteHorizonMs: undefined,
    },
    `${where}: batch header as Kafka reads it`,
  );
  assert.deepStrictEqual(batch.records, want.records, `${where}: records as Kafka reads them`);
}

function checkBrookBatch(where: string, header: RecordBatchHeader, records: BatchRecord[], spec: Spec, codec: CompressionType): void {
  const want = expected(spec);
  assert.deepStrictEqual(
    {
      magic: header.magic, compression: header.compression, baseOffset: header.baseOffset, lastOffset: header.lastOffset,
      timestampType: header.timestampType, isTransactional: header.isTransactional, isControl: header.isControl,
      hasDeleteHorizonMs: header.hasDeleteHorizonMs, partitionLeaderEpoch: header.partitionLeaderEpoch,
      producerId: header.producerId, producerEpoch: header.producerEpoch, baseSequence: header.baseSequence,
      baseTimestamp: header.baseTimestamp, maxTimestamp: header.maxTimestamp, recordCount: header.recordCount,
    },
    {
      magic: 2, compression: codec, baseOffset: want.baseOffset, lastOffset: want.lastOffset,
      timestampType: spec.timestampType, isTransactional: spec.isTransactional, isControl: false,
      hasDeleteHorizonMs: false, partitionLeaderEpoch: spec.partitionLeaderEpoch,
      producerId: spec.producerId, producerEpoch: spec.producerEpoch, baseSequence: spec.baseSequence,
      baseTimestamp: want.baseTimestamp, maxTimestamp: want.maxTimestamp, recordCount: spec.records.length,
    },
    `${where}: batch header as Brook reads it`,
  );
  assert.deepStrictEqual(plain(records), want.records, `${where}: records as Brook reads them`);
}

/**
 * The container each codec must write, checked on both sides' output. Snappy is the one
 * codec whose container differs: Kafka frames it as snappy-java does, Brook writes it raw,
 * as librdkafka and franz-go do (Kafka reads both: the tests above and below).
 */
function checkFraming(where: string, writer: 'brook' | 'kafka', codec: CompressionType, section: Buffer): void {
  switch (codec) {
    case CompressionType.Gzip:
      assert.equal(section.readUInt16BE(0), 0x1f8b, `${where}: gzip magic`);
      break;
    case CompressionType.Snappy:
      assert.equal(isXerialFramed(section), writer === 'kafka', `${where}: ${writer === 'kafka' ? 'snappy-java (xerial) framing' : 'raw snappy'}`);
      break;
    case CompressionType.Lz4:
      assert.equal(section.readUInt32LE(0), LZ4_FRAME_MAGIC, `${where}: LZ4 frame magic`);
      break;
    case CompressionType.Zstd:
      assert.equal(section.readUInt32LE(0), 0xfd2fb528, `${where}: zstd frame magic`);
      break;
    default:
      break;
  }
}

/** Header bytes outside batchLength (8..12) and CRC (17..21), which depend on the compressed size. */
function headerWithoutLengthAndCrc(batch: Buffer): Buffer {
  const h = Buffer.from(batch.subarray(0, HEADER_SIZE));
  h.fill(0, 8, 12);
  h.fill(0, 17, 21);
  return h;
}

let oracle: JavaOracle;

before(() => {
  oracle = JavaOracle.start();
});

after(async () => {
  await oracle.close();
});

async function javaEncode(input: OracleRecordsEncodeInput, where: string): Promise<Buffer> {
  const reply = await oracle.recordsEncode(input);
  assert.ok(reply.ok, `${where}: Kafka could not encode: ${reply.error}`);
  return Buffer.from(reply.hex!, 'hex');
}

async function javaDecode(bytes: Buffer, where: string): Promise<OracleRecordBatch[]> {
  const reply = await oracle.recordsDecode(bytes);
  assert.ok(reply.ok, `${where}: Kafka could not read the batch: ${reply.error}`);
  assert.equal(reply.trailingBytes, 0, `${where}: Kafka left bytes unread`);
  return reply.batches!;
}

for (const [codecName, codec] of CODECS) {
  test(`${codecName}: Brook's batches and Kafka's interoperate`, async () => {
    await Promise.all(SPECS.map(async (spec) => {
      const where = `${codecName} / ${spec.name}`;
      const ours = encodeRecordBatch(brookInput(spec, codec));
      const theirs = await javaEncode(javaInput(spec, codecName), where);

      // a. Kafka reads Brook's batch: CRC (ensureValid), header, every record.
      const [javaView, ...more] = await javaDecode(ours, `${where} (Brook -> Kafka)`);
      assert.equal(more.length, 0, `${where}: one batch`);
      assert.equal(javaView!.sizeInBytes, ours.length, `${where}: Kafka sees the whole batch`);
      assert.equal(javaView!.crc, ours.readUInt32BE(17), `${where}: Kafka reads Brook's CRC`);
      checkJavaBatch(`${where} (Brook -> Kafka)`, javaView!, spec, codecName);

      // b. Brook reads Kafka's batch, sync and async.
      const header = validateBatch(theirs);
      assert.equal(header.sizeInBytes, theirs.length, `${where}: Brook sees the whole batch`);
      const decoded = decodeRecordBatch(theirs);
      checkBrookBatch(`${where} (Kafka -> Brook)`, decoded.header, decoded.records, spec, codec);
      assert.equal(decoded.control, null);
      const decodedAsync = await decodeRecordBatchAsync(theirs);
      checkBrookBatch(`${where} (Kafka -> Brook, async)`, decodedAsync.header, decodedAsync.records, spec, codec);

      // c. Bytes.
      if (codec === CompressionType.None) {
        assert.ok(ours.equals(theirs), `${where}: Brook's bytes equal Kafka's\n brook ${ours.subarray(0, 96).toString('hex')}\n kafka ${theirs.subarray(0, 96).toString('hex')}`);
      } else {
        // Different compressors, so no byte equality; but the same header and the same
        // records underneath, in the container each codec is known by.
        assert.ok(headerWithoutLengthAndCrc(ours).equals(headerWithoutLengthAndCrc(theirs)), `${where}: same header fields`);
        const plainRecords = encodeRecordBatch(brookInput(spec, CompressionType.None)).subarray(RECORDS_OFFSET);
        const theirSection = theirs.subarray(RECORDS_OFFSET);
        const ourSection = ours.subarray(RECORDS_OFFSET);
        assert.ok(decompress(codec, theirSection).equals(plainRecords), `${where}: Kafka compressed the same record bytes Brook writes`);
        assert.ok(decompress(codec, ourSection).equals(plainRecords), `${where}: Brook's compressed section round-trips`);
        checkFraming(`${where} (Brook)`, 'brook', codec, ourSection);
        checkFraming(`${where} (Kafka)`, 'kafka', codec, theirSection);
      }
    }));
  });
}

test('snappy: several xerial blocks both ways, the frame details, and one raw block of 200 KB', async () => {
  // 200 KB of records: 7 snappy-java blocks of 32 KiB.
  const spec = SPECS.find((s) => s.name.startsWith('large values'))!;
  const raw = encodeRecordBatch(brookInput(spec, CompressionType.Snappy));
  assert.ok(!isXerialFramed(raw.subarray(RECORDS_OFFSET)), 'Brook writes one raw block');
  const [rawView] = await javaDecode(raw, 'snappy raw 200 KB');
  checkJavaBatch('snappy raw 200 KB (Brook -> Kafka)', rawView!, spec, 'snappy');
  // The same batch with its records in Java's framing, from compressSnappyXerial.
  const plainRecords = encodeRecordBatch(brookInput(spec, CompressionType.None)).subarray(RECORDS_OFFSET);
  const ours = Buffer.concat([raw.subarray(0, RECORDS_OFFSET), compressSnappyXerial(plainRecords)]);
  ours.writeInt32BE(ours.length - 12, 8); // batchLength: the bytes after the offset and itself
  updateBatchCrc(ours);
  const theirs = await javaEncode(javaInput(spec, 'snappy'), 'snappy');
  for (const [who, batch] of [['Brook', ours], ['Kafka', theirs]] as const) {
    const section = batch.subarray(RECORDS_OFFSET);
    assert.ok(isXerialFramed(section), `${who}: xerial magic`);
    // version 1, compatible version 1, as SnappyOutputStream writes them
    assert.equal(section.readInt32BE(8), 1, `${who}: xerial version`);
    assert.equal(section.readInt32BE(12), 1, `${who}: xerial compatible version`);
    let blocks = 0;
    for (let at = 16; at < section.length; blocks++) at += 4 + section.readInt32BE(at);
    assert.ok(blocks > 1, `${who}: ${blocks} blocks`);
  }
  const [javaView] = await javaDecode(ours, 'snappy multi-block');
  checkJavaBatch('snappy multi-block (Brook -> Kafka)', javaView!, spec, 'snappy');
});

test('lz4: the frame descriptor (FLG, BD) each side writes', async () => {
  const frame = async (spec: Spec): Promise<{ brook: string; kafka: string }> => {
    const ours = encodeRecordBatch(brookInput(spec, CompressionType.Lz4)).subarray(RECORDS_OFFSET);
    const theirs = (await javaEncode(javaInput(spec, 'lz4'), 'lz4')).subarray(RECORDS_OFFSET);
    return { brook: ours.subarray(4, 6).toString('hex'), kafka: theirs.subarray(4, 6).toString('hex') };
  };
  // Kafka's Lz4BlockOutputStream always writes FLG 0x60 (version 1, independent blocks, no
  // checksums, no content size) and BD 0x40 (64 KiB blocks). So does Brook (lz4_flex) for a
  // records section of at most 64 KiB.
  assert.deepStrictEqual(await frame(SPECS[2]!), { brook: '6040', kafka: '6040' });
  // Above 64 KiB lz4_flex's automatic block size picks 256 KiB, 1 MiB or 4 MiB blocks
  // (block size id 5-7) from the input size; Kafka's reader accepts ids 4-7 (the interop
  // tests above read these batches), but it allocates a buffer of the declared maximum.
  const large = await frame(SPECS.find((s) => s.name.startsWith('large values'))!);
  assert.equal(large.kafka, '6040');
  assert.equal(large.brook.slice(0, 2), '60');
  assert.ok(['40', '50', '60', '70'].includes(large.brook.slice(2)), `BD ${large.brook.slice(2)}`);
});

test('compression levels: each side reads the other at low and high levels', async () => {
  const many = SPECS.find((s) => s.name === '2,000 records')!;
  const spec = { ...many, name: '200 records', records: many.records.slice(0, 200) };
  const cases: [OracleCompression, CompressionType, number][] = [
    ['gzip', CompressionType.Gzip, 1], ['gzip', CompressionType.Gzip, 9],
    ['zstd', CompressionType.Zstd, -5], ['zstd', CompressionType.Zstd, 1], ['zstd', CompressionType.Zstd, 19],
  ];
  await Promise.all(cases.map(async ([name, codec, level]) => {
    const where = `${name} level ${level}`;
    const ours = encodeRecordBatch(brookInput(spec, codec, level));
    const [javaView] = await javaDecode(ours, where);
    checkJavaBatch(`${where} (Brook -> Kafka)`, javaView!, spec, name);
    const theirs = await javaEncode(javaInput(spec, name, level), where);
    const decoded = decodeRecordBatch(theirs);
    checkBrookBatch(`${where} (Kafka -> Brook)`, decoded.header, decoded.records, spec, codec);
  }));
  // lz4 levels exist in Kafka (1-17, high compression above 9); Brook reads both.
  for (const level of [1, 17]) {
    const theirs = await javaEncode(javaInput(spec, 'lz4', level), `lz4 level ${level}`);
    const decoded = decodeRecordBatch(theirs);
    checkBrookBatch(`lz4 level ${level} (Kafka -> Brook)`, decoded.header, decoded.records, spec, CompressionType.Lz4);
  }
});

test('a blob of several batches with different codecs reads the same on both sides', async () => {
  const spec = SPECS[1]!;
  const ours = Buffer.concat(await Promise.all(CODECS.map(([, codec], i) =>
    encodeRecordBatchAsync({ ...brookInput(spec, codec), baseOffset: spec.baseOffset + BigInt(i * 10) }))));
  const theirs = Buffer.concat(await Promise.all(CODECS.map(([name], i) =>
    javaEncode({ ...javaInput(spec, name), baseOffset: spec.baseOffset + BigInt(i * 10) }, `blob ${name}`))));
  const javaBatches = await javaDecode(ours, 'blob');
  assert.deepStrictEqual(javaBatches.map((x) => [x.compression, x.baseOffset]), CODECS.map(([name], i) => [name, spec.baseOffset + BigInt(i * 10)]));
  const views = [...iterateBatches(theirs)];
  assert.equal(views.length, CODECS.length);
  assert.equal(views.at(-1)!.position + views.at(-1)!.buffer.length, theirs.length);
  for (const [i, view] of views.entries()) {
    const decoded = decodeRecordBatch(view.buffer);
    assert.equal(decoded.header.compression, CODECS[i]![1]);
    assert.deepStrictEqual(plain(decoded.records), plain(javaBatches[i]!.records), `batch ${i}: same records on both sides`);
  }
});

test('Kafka reads Brook\'s empty batches (which its own builder never writes) for every codec', async () => {
  for (const [name, codec] of CODECS) {
    const ours = encodeRecordBatch({ records: [], compression: codec, baseOffset: 9n });
    const [view] = await javaDecode(ours, `empty ${name}`);
    assert.equal(view!.compression, name);
    assert.equal(view!.count, 0);
    assert.deepStrictEqual(view!.records, [], `empty ${name}`);
    // Kafka's builder returns no batch at all for no records.
    const reply = await oracle.recordsEncode({ compression: name, records: [] });
    assert.ok(reply.ok, reply.error);
    assert.equal(reply.hex, '', `Kafka writes nothing for an empty ${name} batch`);
  }
});

test('both sides refuse a batch with a flipped byte (CRC)', async () => {
  for (const [name, codec] of CODECS) {
    const ours = encodeRecordBatch(brookInput(SPECS[0]!, codec));
    ours[ours.length - 1]! ^= 0x01;
    const reply = await oracle.recordsDecode(ours);
    assert.equal(reply.ok, false, `${name}: Kafka accepted a corrupt batch`);
    assert.match(reply.error!, /CorruptRecordException|InvalidRecordException/, `${name}: ${reply.error}`);
    assert.throws(() => validateBatch(ours), { name: 'CorruptRecordError', reason: 'crc-mismatch' });
  }
});
