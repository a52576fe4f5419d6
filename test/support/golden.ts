/**
 * Golden request frames captured from real clients: where they are stored, how they are
 * named, and the check every one must pass (decode, then re-encode byte for byte).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { decodeRequest, decodeRequestHeader, encodeRequest } from '../../src/protocol/frame.js';
import type { CapturedFrame } from './capture-server.js';
import { API_CODECS, ConsumerProtocolSubscription } from '../../src/protocol/messages/index.js';

export const GOLDEN_TOPIC = 'golden-topic';
/** The topic's id in the capture server's metadata ("GoldenTopicId!!!"): Produce v13 names it so. */
export const GOLDEN_TOPIC_ID = 'R29sZGVuVG9waWNJZCEhIQ';
export const GOLDEN_GROUP = 'golden-group';

export const GOLDEN_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'fixtures', 'golden');

export interface GoldenFrame {
  readonly client: string;
  readonly file: string;
  readonly apiName: string;
  readonly apiVersion: number;
  readonly frame: Buffer;
}

/** Keeps the first two frames of each API and version: enough variety, small fixtures. */
export function selectFrames(frames: CapturedFrame[], perVersion = 2): CapturedFrame[] {
  const count = new Map<string, number>();
  return frames.filter((f) => {
    const key = `${f.apiName}/${f.apiVersion}`;
    const n = count.get(key) ?? 0;
    count.set(key, n + 1);
    return n < perVersion;
  });
}

export function writeGolden(client: string, frames: CapturedFrame[]): void {
  const dir = join(GOLDEN_DIR, client);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  selectFrames(frames).forEach((f, i) => {
    writeFileSync(join(dir, `${String(i).padStart(3, '0')}-${f.apiName}-v${f.apiVersion}.bin`), f.frame);
  });
}

export function readGolden(): GoldenFrame[] {
  if (!existsSync(GOLDEN_DIR)) return [];
  return readdirSync(GOLDEN_DIR).sort().flatMap((client) =>
    readdirSync(join(GOLDEN_DIR, client)).sort().map((file) => {
      const m = /^\d+-(\w+)-v(\d+)\.bin$/.exec(file);
      if (!m) throw new Error(`unexpected golden file name ${client}/${file}`);
      return { client, file, apiName: m[1]!, apiVersion: Number(m[2]), frame: readFileSync(join(GOLDEN_DIR, client, file)) };
    }),
  );
}

/** A captured or stored frame, as the checks below need it (CapturedFrame and GoldenFrame both fit). */
export interface FrameSeen {
  readonly apiName: string;
  readonly apiVersion: number;
  readonly frame: Buffer;
}

/** True when the frame's version is above the newest one Brook's codecs have for its API. */
export function newerThanBrook(f: FrameSeen): boolean {
  const api = API_CODECS.find((a) => a.name === f.apiName);
  assert.ok(api, `Brook has a codec for ${f.apiName}`);
  return f.apiVersion > api.request.highestVersion;
}

/**
 * The check for a frame newer than Brook's codecs (newerThanBrook). Only ApiVersions may be
 * one: a client opens with its own newest ApiVersions (KIP-511; a client newer than the Kafka
 * 4.4 schemas Brook is generated from sends a version they lack), the broker answers UNSUPPORTED_VERSION with
 * its ranges, and the client asks again at a version both know. Brook's broker answers such a
 * request from its header alone and never reads the body, so its body is not decoded here
 * either: the header must decode, and the same client must have retried at a version Brook
 * knows later on. `frames` is every frame in the order sent; `index` is the probe's.
 */
export function checkVersionProbe(frames: readonly FrameSeen[], index: number): void {
  const probe = frames[index]!;
  assert.equal(probe.apiName, 'ApiVersions', `only ApiVersions may come at a version Brook does not know, not ${probe.apiName} v${probe.apiVersion}`);
  const { header, api } = decodeRequestHeader(probe.frame);
  assert.equal(api.name, 'ApiVersions');
  assert.equal(header.requestApiVersion, probe.apiVersion);
  const retried = frames.slice(index + 1).some((f) => {
    if (f.apiName !== 'ApiVersions' || newerThanBrook(f)) return false;
    return decodeRequestHeader(f.frame).header.clientId === header.clientId;
  });
  assert.ok(retried, `client ${header.clientId} retried ApiVersions at a version Brook knows after its v${probe.apiVersion}`);
}

/** Decodes a captured frame and re-encodes it; the bytes must be identical. */
export function checkFrame(frame: Buffer, expectedApi: string, expectedVersion: number): Record<string, unknown> {
  const decoded = decodeRequest(frame);
  assert.equal(decoded.api.name, expectedApi);
  assert.equal(decoded.header.requestApiVersion, expectedVersion);
  const again = Buffer.concat(encodeRequest({
    api: decoded.api,
    apiVersion: decoded.header.requestApiVersion,
    correlationId: decoded.header.correlationId,
    clientId: decoded.header.clientId ?? null,
    body: decoded.body,
  })).subarray(4);
  if (decoded.header.unknownTaggedFields) {
    // Header tagged fields are not re-sent by encodeRequest; compare from the body on.
    assert.ok(again.length <= frame.length);
  } else {
    assert.deepStrictEqual(again, frame, `${expectedApi} v${expectedVersion} re-encodes byte for byte`);
  }
  return decoded.body as Record<string, unknown>;
}

/** What each client's requests must say, beyond decoding and re-encoding exactly. */
export function checkMeaning(apiName: string, body: Record<string, unknown>): void {
  switch (apiName) {
    case 'Produce': {
      // By name up to v12, by the id the metadata gave from v13 (KIP-516).
      const topics = body['topicData'] as { name?: string; topicId?: string; partitionData: { records: Buffer | null }[] }[];
      assert.deepEqual(topics.map((t) => (t.topicId === GOLDEN_TOPIC_ID ? GOLDEN_TOPIC : t.name)), [GOLDEN_TOPIC]);
      const records = topics[0]!.partitionData[0]!.records!;
      // Magic byte 2 at offset 16 of the first batch: a v2 record batch.
      assert.equal(records[16], 2);
      break;
    }
    case 'Metadata': {
      const topics = body['topics'] as { name: string | null }[] | null;
      if (topics !== null && topics.length > 0) assert.ok(topics.some((t) => t.name === GOLDEN_TOPIC));
      break;
    }
    case 'JoinGroup': {
      assert.equal(body['groupId'], GOLDEN_GROUP);
      assert.equal(body['protocolType'], 'consumer');
      const protocols = body['protocols'] as { name: string; metadata: Buffer }[];
      assert.ok(protocols.length > 0);
      for (const p of protocols) {
        const version = p.metadata.readInt16BE(0);
        const sub = ConsumerProtocolSubscription.decode(p.metadata.subarray(2), Math.min(version, ConsumerProtocolSubscription.highestVersion));
        assert.deepEqual(sub.topics, [GOLDEN_TOPIC], `${p.name} subscription names the topic`);
      }
      break;
    }
    case 'SyncGroup': case 'Heartbeat': case 'LeaveGroup': case 'OffsetFetch': case 'OffsetCommit':
      // OffsetFetch v8+ names its groups in a list instead of one groupId.
      assert.equal(body['groupId'] || (body['groups'] as { groupId: string }[] | undefined)?.[0]?.groupId, GOLDEN_GROUP);
      break;
    case 'FindCoordinator':
      assert.ok(body['key'] === GOLDEN_GROUP || (body['coordinatorKeys'] as string[]).includes(GOLDEN_GROUP));
      break;
    default:
      break;
  }
}
