/**
 * Conformance with Apache Kafka's own serializers (kafka-clients / kafka-group-coordinator
 * 4.1.2 generated classes, through test/support/java). For every message and every version
 * both sides support, random values with every field set to a non-default value:
 *   Brook encode == Kafka encode (byte for byte),
 *   Brook decodes Kafka's bytes to the same value and re-encodes them identically,
 *   Kafka decodes Brook's bytes to the same value and re-encodes them identically.
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

const RUNS = Number(process.env['BROOK_CONFORMANCE_RUNS'] ?? 8);

const codecs = [
  ...API_CODECS.flatMap((api) => [api.request, api.response]),
  ConsumerProtocolSubscription, ConsumerProtocolAssignment,
  records.OffsetCommitKey, records.OffsetCommitValue, records.GroupMetadataKey, records.GroupMetadataValue,
] as MessageCodec<unknown>[];

/**
 * Kafka 4.x renumbered the coordinator key schemas: the schema version of GroupMetadataKey
 * (2 in the schemas Brook is generated from) became the record type, and the key itself
 * version 0. The layout is the same, so Brook's v2 is compared with Kafka's v0.
 */
const JAVA_VERSION_OFFSET: Record<string, number> = { GroupMetadataKey: -2 };

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
    const low = Math.max(codec.lowestVersion, java.lowest);
    const high = Math.min(codec.highestVersion, java.highest);
    assert.ok(low <= high, `${codec.name}: no shared version (Brook ${codec.lowestVersion}-${codec.highestVersion}, Kafka ${java.lowest}-${java.highest})`);
    const pending: Promise<void>[] = [];
    for (let version = low; version <= high; version++) {
      const rand = seededRandom(version * 104729 + codec.name.length * 31);
      for (let run = 0; run < RUNS; run++) {
        const value = randomStruct(codec.schema, version, rand, { nullChance: run === 0 ? 0 : 0.2 });
        const ours = codec.encode(value, version);
        const where = `${codec.name} v${version} run ${run}`;
        pending.push((async () => {
          const encoded = await oracle.encode(codec.name, version + shift, toKafkaJson(codec.schema, version, value));
          assert.ok(encoded.ok, `${where}: Kafka could not encode: ${encoded.error}`);
          assert.equal(ours.toString('hex'), encoded.hex, `${where}: Brook's bytes differ from Kafka's`);
          const theirs = Buffer.from(encoded.hex!, 'hex');
          assert.deepStrictEqual(codec.decode(theirs, version), value, `${where}: Brook decodes Kafka's bytes`);

          const decoded = await oracle.decode(codec.name, version + shift, ours);
          assert.ok(decoded.ok, `${where}: Kafka could not decode Brook's bytes: ${decoded.error}`);
          assert.deepStrictEqual(fromKafkaJson(codec.schema, version, decoded.data!), value, `${where}: Kafka decodes Brook's bytes`);
          assert.equal(decoded.reencodedHex, ours.toString('hex'), `${where}: Kafka re-encodes Brook's bytes identically`);
          totalChecked++;
        })());
      }
    }
    await Promise.all(pending);
  });
}

test('the conformance run covered every message', () => {
  assert.ok(totalChecked >= codecs.length * RUNS, `checked ${totalChecked} values`);
});
