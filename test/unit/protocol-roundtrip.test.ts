import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API_CODECS } from '../../src/protocol/messages/index.js';
import {
  RequestHeader, ResponseHeader, ConsumerProtocolSubscription, ConsumerProtocolAssignment,
} from '../../src/protocol/messages/index.js';
import * as records from '../../src/protocol/coordinator-records/index.js';
import type { MessageCodec } from '../../src/protocol/messages/runtime.js';
import { randomStruct, seededRandom, defaultStruct } from '../support/random-message.js';

const payloads: MessageCodec<unknown>[] = [
  RequestHeader, ResponseHeader, ConsumerProtocolSubscription, ConsumerProtocolAssignment,
  records.OffsetCommitKey, records.OffsetCommitValue, records.GroupMetadataKey, records.GroupMetadataValue,
] as MessageCodec<unknown>[];

const codecs: MessageCodec<unknown>[] = [
  ...API_CODECS.flatMap((api) => [api.request, api.response]),
  ...payloads,
];

const RUNS = 25;

for (const codec of codecs) {
  test(`${codec.name}: every version round-trips random values`, () => {
    for (let version = codec.lowestVersion; version <= codec.highestVersion; version++) {
      const rand = seededRandom(version * 7919 + codec.name.length);
      for (let run = 0; run < RUNS; run++) {
        const value = randomStruct(codec.schema, version, rand);
        const bytes = codec.encode(value, version);
        const decoded = codec.decode(bytes, version);
        assert.deepStrictEqual(decoded, value, `${codec.name} v${version} run ${run}`);
        assert.deepStrictEqual(codec.encode(decoded, version), bytes, `${codec.name} v${version} re-encode`);
      }
      // The all-defaults value must round-trip too (the shape decoders fill in).
      const empty = defaultStruct(codec.schema);
      assert.deepStrictEqual(codec.decode(codec.encode(empty, version), version), empty);
    }
  });
}

test('unknown tagged fields survive decode and re-encode in tag order', () => {
  const codec = API_CODECS.find((a) => a.name === 'JoinGroup')!.request;
  const value = { ...defaultStruct(codec.schema), groupId: 'g', unknownTaggedFields: [
    { tag: 3, data: Buffer.from([1, 2, 3]) }, { tag: 9, data: Buffer.from('hi') },
  ] };
  const bytes = codec.encode(value, 9);
  const decoded = codec.decode(bytes, 9) as { unknownTaggedFields: unknown };
  assert.deepStrictEqual(decoded.unknownTaggedFields, value.unknownTaggedFields);
  assert.deepStrictEqual(codec.encode(decoded, 9), bytes);
});

test('a field the version cannot carry is refused, an ignorable one is dropped', () => {
  const codec = API_CODECS.find((a) => a.name === 'JoinGroup')!.request;
  // GroupInstanceId (v5+) is not ignorable: sending it at v4 would change meaning.
  assert.throws(() => codec.encode({ ...defaultStruct(codec.schema), groupInstanceId: 'static-1' }, 4), {
    code: 'ERR_PROTOCOL_ENCODE',
  });
  // Reason (v8+) is ignorable: dropped silently at v7.
  const bytes = codec.encode({ ...defaultStruct(codec.schema), reason: 'because' }, 7);
  assert.equal((codec.decode(bytes, 7) as { reason: unknown }).reason, null);
});

test('versions outside the schema range are rejected', () => {
  const codec = API_CODECS[0]!.request;
  assert.throws(() => codec.encode(defaultStruct(codec.schema), codec.highestVersion + 1), { code: 'ERR_PROTOCOL_ENCODE' });
  assert.throws(() => codec.decode(Buffer.alloc(64), codec.highestVersion + 1), { code: 'ERR_PROTOCOL_DECODE' });
});
