/**
 * Random and mutated frames against every request decoder: the only thing allowed to
 * escape is ProtocolDecodeError, and no decoder may allocate more than the frame holds.
 * BROOK_FUZZ_RUNS scales the number of frames per API (default 100,000).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { API_CODECS, type ApiCodecs } from '../../src/protocol/messages/index.js';
import { decodeRequestHeader, encodeRequest } from '../../src/protocol/frame.js';
import { ProtocolDecodeError } from '../../src/protocol/primitives/decode-error.js';
import { randomStruct, seededRandom } from '../support/random-message.js';

const RUNS = Number(process.env['BROOK_FUZZ_RUNS'] ?? 100_000);

/** Valid request frames (size prefix removed) for every version: the mutation seeds. */
function seeds(api: ApiCodecs): Buffer[] {
  const rand = seededRandom(api.apiKey + 1);
  const out: Buffer[] = [];
  for (let v = api.request.lowestVersion; v <= api.request.highestVersion; v++) {
    for (let i = 0; i < 3; i++) {
      const body = randomStruct(api.request.schema, v, rand, { maxItems: 3 });
      const frame = Buffer.concat(encodeRequest({ api, apiVersion: v, correlationId: i, clientId: 'fuzz', body }));
      out.push(frame.subarray(4));
    }
  }
  return out;
}

const INTERESTING = [0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff];

type Mutation =
  | { kind: 'set'; at: number; value: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'insert'; at: number; bytes: Uint8Array }
  | { kind: 'int32'; at: number; value: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.oneof(fc.constantFrom(...INTERESTING), fc.integer({ min: 0, max: 255 })) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 8 }) }),
  fc.record({ kind: fc.constant('int32' as const), at: fc.nat(), value: fc.constantFrom(-2, -1, 0x7fffffff, 0x10000000, 65535, 1 << 20) }),
);

function mutate(seed: Buffer, mutations: Mutation[]): Buffer {
  let buf = Buffer.from(seed);
  for (const m of mutations) {
    if (buf.length === 0) break;
    const at = m.at % buf.length;
    switch (m.kind) {
      case 'set': buf[at] = m.value; break;
      case 'truncate': buf = buf.subarray(0, at); break;
      case 'insert': buf = Buffer.concat([buf.subarray(0, at), m.bytes, buf.subarray(at)]); break;
      case 'int32': if (at + 4 <= buf.length) buf.writeInt32BE(m.value, at); break;
    }
  }
  return buf;
}

function decodeOrReject(frame: Buffer): void {
  try {
    const { header, api, body } = decodeRequestHeader(frame);
    api.request.read(body, header.requestApiVersion);
    assert.ok(body.allocated <= frame.length, `allocated ${body.allocated} for a ${frame.length}-byte frame`);
  } catch (err) {
    if (!(err instanceof ProtocolDecodeError)) throw err;
  }
}

for (const api of API_CODECS) {
  test(`fuzz: ${api.name} request decoder rejects bad frames with ProtocolDecodeError only`, () => {
    const valid = seeds(api);
    const header = (version: number): Uint8Array => {
      const b = Buffer.alloc(4);
      b.writeInt16BE(api.apiKey, 0);
      b.writeInt16BE(version, 2);
      return b;
    };
    const randomFrame = fc
      .tuple(fc.integer({ min: api.request.lowestVersion, max: api.request.highestVersion }), fc.uint8Array({ maxLength: 96 }))
      .map(([v, rest]) => Buffer.concat([header(v), rest]));
    const mutatedFrame = fc
      .tuple(fc.integer({ min: 0, max: valid.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 4 }))
      .map(([i, ms]) => mutate(valid[i]!, ms));
    fc.assert(fc.property(fc.oneof({ arbitrary: mutatedFrame, weight: 4 }, { arbitrary: randomFrame, weight: 1 }), (frame) => {
      decodeOrReject(frame);
    }), { numRuns: RUNS, seed: api.apiKey * 31 + 7 });
  });
}
