/**
 * Conformance with Apache Kafka's own serializers (kafka-clients / kafka-group-coordinator
 * 4.4.0 generated classes, through test/support/java). For every message and every version
 * both sides support, random values with every field set to a non-default value:
 *   Brook encode == Kafka encode (byte for byte),
 *   Brook decodes Kafka's bytes to the same value and re-encodes them identically,
 *   Kafka decodes Brook's bytes to the same value and re-encodes them identically.
 * The versions only one side has are listed below (KAFKA_ONLY, BROOK_ONLY) with the reason, and
 * the test checks that those lists are exactly the difference between the two ranges: a newer
 * oracle that knows more versions fails here until its new versions are listed, instead of
 * being left out of the comparison without a word. Kafka-only versions show in the skip report.
 * Needs: java 17+, Maven (first run downloads the artifacts from Maven Central).
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { API_CODECS } from '../../src/protocol/messages/index.js';
import { ConsumerProtocolSubscription, ConsumerProtocolAssignment } from '../../src/protocol/messages/index.js';
import * as records from '../../src/protocol/coordinator-records/index.js';
import type { MessageCodec } from '../../src/protocol/messages/runtime.js';
import { JavaOracle } from '../support/java-oracle.js';
import { toKafkaJson, fromKafkaJson } from '../support/kafka-json.js';
import { randomStruct, seededRandom } from '../support/random-message.js';
import { KAFKA_ERRORS } from '../../src/protocol/errors.js';

const RUNS = Number(process.env['BROOK_CONFORMANCE_RUNS'] ?? 8);

const codecs = [
  ...API_CODECS.flatMap((api) => [api.request, api.response]),
  ConsumerProtocolSubscription, ConsumerProtocolAssignment,
  records.OffsetCommitKey, records.OffsetCommitValue, records.GroupMetadataKey, records.GroupMetadataValue,
  records.TransactionLogKey, records.TransactionLogValue,
] as MessageCodec<unknown>[];

/**
 * Kafka 4.x renumbered the coordinator key schemas: the schema version of GroupMetadataKey
 * (2 in the schemas Brook is generated from) became the record type, and the key itself
 * version 0. The layout is the same, so Brook's v2 is compared with Kafka's v0.
 */
const JAVA_VERSION_OFFSET: Record<string, number> = { GroupMetadataKey: -2 };

/**
 * Top-level fields Kafka 4.4 renamed without changing their layout: Brook's name -> Kafka's.
 * (None today: TxnOffsetCommit, whose generation became GenerationIdOrMemberEpoch, is
 * generated from Kafka 4.4's own schema.)
 */
const KAFKA_FIELD_NAMES: Record<string, Record<string, string>> = {};

function toKafkaNames(name: string, json: string): string {
  const renames = KAFKA_FIELD_NAMES[name];
  if (renames === undefined) return json;
  const obj = JSON.parse(json) as Record<string, unknown>;
  for (const [ours, theirs] of Object.entries(renames)) if (ours in obj) json = json.replace(`"${ours}":`, `"${theirs}":`);
  return json;
}

function fromKafkaNames(name: string, data: unknown): unknown {
  const renames = KAFKA_FIELD_NAMES[name];
  if (renames === undefined || data === null || typeof data !== 'object') return data;
  const obj = { ...(data as Record<string, unknown>) };
  for (const [ours, theirs] of Object.entries(renames)) {
    if (theirs in obj) {
      obj[ours] = obj[theirs];
      delete obj[theirs];
    }
  }
  return obj;
}

/** An inclusive range of versions, and why those versions are not compared. */
interface Unshared {
  readonly from: number;
  readonly to: number;
  readonly why: string;
}

/**
 * Versions Kafka 4.4.0's generated classes have and Brook's schemas do not: Brook's codecs are
 * generated from the schemas at the Kafka 3.9/4.0 boundary (Produce and TxnOffsetCommit from
 * Kafka 4.4's, up to the versions before topic ids), and these versions came later.
 * Brook cannot encode or decode them, and its broker does not advertise them, so there is
 * nothing of Brook's to compare; each is reported as a skipped test with its reason. Keyed by
 * API (request and response have the same range) or message name.
 */
const KAFKA_ONLY: Record<string, Unshared> = {
  Produce: { from: 13, to: 13, why: 'v13 replaces topic names with topic IDs (KIP-516)' },
  Fetch: { from: 18, to: 18, why: 'v18 adds the leader\'s high-watermark (KIP-1166)' },
  ListOffsets: { from: 11, to: 11, why: 'v11 lists by earliest pending upload offset (KIP-1023, tiered storage)' },
  Metadata: { from: 13, to: 13, why: 'v13 adds a top-level error code to the response' },
  OffsetCommit: { from: 10, to: 10, why: 'v10 replaces topic names with topic IDs (KIP-848)' },
  OffsetFetch: { from: 10, to: 10, why: 'v10 replaces topic names with topic IDs (KIP-848)' },
  DescribeGroups: { from: 6, to: 6, why: 'v6 answers GROUP_ID_NOT_FOUND for an unknown group (KIP-1043)' },
  ApiVersions: { from: 5, to: 5, why: 'v5 adds the ClusterId/NodeId check and REBOOTSTRAP_REQUIRED (KIP-1242)' },
  InitProducerId: { from: 6, to: 6, why: 'v6 adds two-phase commit (KIP-939)' },
  DeleteGroups: { from: 3, to: 3, why: 'v3 adds a per-group ErrorMessage to the response' },
  DescribeCluster: { from: 2, to: 2, why: 'v2 adds IncludeFencedBrokers (KIP-1073)' },
  ConsumerGroupDescribe: { from: 1, to: 1, why: 'v1 adds the member\'s MemberType to the response (KIP-1099)' },
  DescribeLogDirs: { from: 5, to: 5, why: 'v5 adds IsCordoned to each log dir (cordoned log dirs)' },
  WriteTxnMarkers: { from: 2, to: 2, why: 'v2 adds each marker\'s TransactionVersion (KIP-1228)' },
  TxnOffsetCommit: { from: 6, to: 6, why: 'v6 replaces topic names with topic IDs (KIP-1319)' },
  ListTransactions: { from: 2, to: 2, why: 'v2 adds TransactionalIdPattern (KIP-1152)' },
};

/**
 * Versions Brook's schemas have and Kafka 4.4.0's classes do not: Kafka 4.0 removed them
 * (KIP-896), and its generated classes no longer read or write them correctly
 * (test/support/java/README.md, "Removed versions"), so there is no oracle for them here.
 */
const REMOVED_IN_KAFKA_4 = 'removed in Apache Kafka 4.0 (KIP-896): Kafka\'s classes no longer serialize it';
const BROOK_ONLY: Record<string, Unshared> = {
  Fetch: { from: 0, to: 3, why: REMOVED_IN_KAFKA_4 },
  ListOffsets: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  OffsetCommit: { from: 0, to: 1, why: REMOVED_IN_KAFKA_4 },
  OffsetFetch: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  CreateTopics: { from: 0, to: 1, why: REMOVED_IN_KAFKA_4 },
  DeleteTopics: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  DescribeConfigs: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  DescribeLogDirs: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  DescribeAcls: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  CreateAcls: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  DeleteAcls: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  WriteTxnMarkers: { from: 0, to: 0, why: REMOVED_IN_KAFKA_4 },
  // Kafka 4.x made the key version the record type (0 and 1 both mean an offset commit, whose
  // key body is then always written at version 0), so its OffsetCommitKey has version 0 only.
  OffsetCommitKey: { from: 1, to: 1, why: 'Kafka 4.x reads every offset commit key at version 0 (record types 0 and 1)' },
};

/** The table key of a codec: its API for requests and responses, else the message name. */
const tableKey = (name: string): string => name.replace(/(Request|Response)$/, '');

/** The versions in `outer` and not in `inner` (both inclusive ranges), as one range, or null. */
function outside(outer: { lowest: number; highest: number }, inner: { lowest: number; highest: number }): { from: number; to: number } | null {
  const versions: number[] = [];
  for (let v = outer.lowest; v <= outer.highest; v++) if (v < inner.lowest || v > inner.highest) versions.push(v);
  if (versions.length === 0) return null;
  const from = versions[0]!;
  const to = versions[versions.length - 1]!;
  // Both sides' ranges are contiguous, so what one has beyond the other is at one end.
  assert.equal(to - from + 1, versions.length, `versions ${versions.join(',')} form one range`);
  return { from, to };
}

let oracle: JavaOracle;
let javaVersions: Record<string, { lowest: number; highest: number }>;

before(async () => {
  oracle = JavaOracle.start();
  const reply = await oracle.versions();
  assert.ok(reply.ok, reply.error);
  javaVersions = reply.messages!;
});

after(async () => {
  await oracle.close();
});

let totalChecked = 0;

for (const codec of codecs) {
  test(`${codec.name} matches Kafka's serializer at every shared version`, async () => {
    const known = javaVersions[codec.name];
    assert.ok(known, `the Java oracle knows ${codec.name}`);
    const shift = JAVA_VERSION_OFFSET[codec.name] ?? 0;
    const java = { lowest: known.lowest - shift, highest: known.highest - shift };
    const brook = { lowest: codec.lowestVersion, highest: codec.highestVersion };
    // What only one side knows must be exactly what the tables say (no more, no less).
    const key = tableKey(codec.name);
    const strip = (u: Unshared | undefined) => (u === undefined ? null : { from: u.from, to: u.to });
    assert.deepEqual(outside(java, brook), strip(KAFKA_ONLY[key]), `${codec.name}: the versions only Kafka knows (Kafka ${java.lowest}-${java.highest}, Brook ${brook.lowest}-${brook.highest}) are KAFKA_ONLY's`);
    assert.deepEqual(outside(brook, java), strip(BROOK_ONLY[key]), `${codec.name}: the versions only Brook knows (Brook ${brook.lowest}-${brook.highest}, Kafka ${java.lowest}-${java.highest}) are BROOK_ONLY's`);
    // Every version both know: the intersection of the two contiguous ranges.
    const low = Math.max(brook.lowest, java.lowest);
    const high = Math.min(brook.highest, java.highest);
    assert.ok(low <= high, `${codec.name}: no shared version (Brook ${brook.lowest}-${brook.highest}, Kafka ${java.lowest}-${java.highest})`);
    const pending: Promise<void>[] = [];
    for (let version = low; version <= high; version++) {
      const rand = seededRandom(version * 104729 + codec.name.length * 31);
      for (let run = 0; run < RUNS; run++) {
        const value = randomStruct(codec.schema, version, rand, { nullChance: run === 0 ? 0 : 0.2 });
        const ours = codec.encode(value, version);
        const where = `${codec.name} v${version} run ${run}`;
        pending.push((async () => {
          const encoded = await oracle.encode(codec.name, version + shift, toKafkaNames(codec.name, toKafkaJson(codec.schema, version, value)));
          assert.ok(encoded.ok, `${where}: Kafka could not encode: ${encoded.error}`);
          assert.equal(ours.toString('hex'), encoded.hex, `${where}: Brook's bytes differ from Kafka's`);
          const theirs = Buffer.from(encoded.hex!, 'hex');
          assert.deepStrictEqual(codec.decode(theirs, version), value, `${where}: Brook decodes Kafka's bytes`);

          const decoded = await oracle.decode(codec.name, version + shift, ours);
          assert.ok(decoded.ok, `${where}: Kafka could not decode Brook's bytes: ${decoded.error}`);
          assert.deepStrictEqual(fromKafkaJson(codec.schema, version, fromKafkaNames(codec.name, decoded.data!) as NonNullable<typeof decoded.data>), value, `${where}: Kafka decodes Brook's bytes`);
          assert.equal(decoded.reencodedHex, ours.toString('hex'), `${where}: Kafka re-encodes Brook's bytes identically`);
          totalChecked++;
        })());
      }
    }
    await Promise.all(pending);
  });
}

// Each Kafka-only range is a skipped test in the report, with its reason; that it is exactly
// what Kafka has beyond Brook is asserted in the per-message test above.
for (const [api, u] of Object.entries(KAFKA_ONLY)) {
  const range = u.from === u.to ? `v${u.from}` : `v${u.from}-${u.to}`;
  test(`${api} ${range} (Apache Kafka 4.4.0 only) matches Kafka's serializer`, { skip: `Brook's schemas stop before ${api} ${range}: ${u.why}` }, () => {});
}

test('every table entry names a message of the comparison', () => {
  const keys = new Set(codecs.map((c) => tableKey(c.name)));
  for (const k of [...Object.keys(KAFKA_ONLY), ...Object.keys(BROOK_ONLY)]) assert.ok(keys.has(k), `${k} is a compared message`);
});

test('the error table is Kafka\'s: every code, its name and whether it is retriable', async () => {
  const reply = await oracle.errors();
  assert.ok(reply.ok, reply.error);
  const row = (e: { code: number; name: string; retriable: boolean }) => `${e.code} ${e.name}${e.retriable ? ' (retriable)' : ''}`;
  const byCode = (a: { code: number }, b: { code: number }) => a.code - b.code;
  assert.deepEqual(KAFKA_ERRORS.map(row), [...reply.errors!].sort(byCode).map(row));
});

test('the conformance run covered every message', () => {
  assert.ok(totalChecked >= codecs.length * RUNS, `checked ${totalChecked} values`);
});
