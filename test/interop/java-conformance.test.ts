/**
 * Conformance with Apache Kafka's own serializers (kafka-clients and the group, transaction
 * and share coordinators' 4.4.0 generated classes, through test/support/java). For every
 * message Brook has a codec for (every API it speaks, the consumer-protocol payloads and every
 * coordinator record) and every version, random values with every field set to a non-default
 * value:
 *   Brook encode == Kafka encode (byte for byte),
 *   Brook decodes Kafka's bytes to the same value and re-encodes them identically,
 *   Kafka decodes Brook's bytes to the same value and re-encodes them identically.
 * Brook's codecs are generated from Kafka 4.4.0's schemas, so both sides have the same
 * versions; the test checks that too, so an oracle that knows other versions fails here
 * instead of being left out of the comparison without a word.
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
  ...[...records.CONSUMER_OFFSETS_RECORDS.values(), ...records.TRANSACTION_STATE_RECORDS.values(), ...records.SHARE_GROUP_STATE_RECORDS.values()]
    .flatMap((r) => [r.key, r.value]),
] as MessageCodec<unknown>[];

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
  test(`${codec.name} matches Kafka's serializer at every version`, async () => {
    const known = javaVersions[codec.name];
    assert.ok(known, `the Java oracle knows ${codec.name}`);
    const java = { lowest: known.lowest, highest: known.highest };
    const brook = { lowest: codec.lowestVersion, highest: codec.highestVersion };
    // Both are generated from Apache Kafka 4.4.0's schemas: the same versions, every one compared.
    assert.deepEqual(brook, java, `${codec.name}: Brook's versions are Kafka's`);
    const [low, high] = [brook.lowest, brook.highest];
    const pending: Promise<void>[] = [];
    for (let version = low; version <= high; version++) {
      const rand = seededRandom(version * 104729 + codec.name.length * 31);
      for (let run = 0; run < RUNS; run++) {
        const value = randomStruct(codec.schema, version, rand, { nullChance: run === 0 ? 0 : 0.2 });
        const ours = codec.encode(value, version);
        const where = `${codec.name} v${version} run ${run}`;
        pending.push((async () => {
          const encoded = await oracle.encode(codec.name, version, toKafkaJson(codec.schema, version, value));
          assert.ok(encoded.ok, `${where}: Kafka could not encode: ${encoded.error}`);
          assert.equal(ours.toString('hex'), encoded.hex, `${where}: Brook's bytes differ from Kafka's`);
          const theirs = Buffer.from(encoded.hex!, 'hex');
          assert.deepStrictEqual(codec.decode(theirs, version), value, `${where}: Brook decodes Kafka's bytes`);

          const decoded = await oracle.decode(codec.name, version, ours);
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
