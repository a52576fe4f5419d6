/**
 * Live capture: kcat (librdkafka), KafkaJS and Apache Kafka's Java client talk to the
 * capture server; every request they send must decode to what they meant and re-encode
 * byte for byte. Needs: kcat (Debian package), Java 17 + Maven.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startCaptureServer, type CaptureServer } from '../support/capture-server.js';
import { captureKcat, captureKafkaJs, captureJava } from '../support/capture-clients.js';
import { checkFrame, checkMeaning, checkVersionProbe, newerThanBrook } from '../support/golden.js';
import { javaCommand } from '../support/java-oracle.js';

async function capture(driver: (s: CaptureServer) => Promise<void>, expected: string[]): Promise<void> {
  const server = await startCaptureServer();
  try {
    await driver(server);
  } finally {
    await server.close();
  }
  assert.deepEqual(server.errors, [], 'the capture server answered every request');
  const seen = new Set(server.frames.map((f) => f.apiName));
  for (const api of expected) assert.ok(seen.has(api), `client sent ${api} (saw ${[...seen].join(', ')})`);
  server.frames.forEach((f, i) => {
    // A version Brook's codecs do not have (a client newer than Kafka 4.4 opening with its
    // ApiVersions): checked as the KIP-511 probe it is, header only (see checkVersionProbe).
    if (newerThanBrook(f)) {
      checkVersionProbe(server.frames, i);
      return;
    }
    const body = checkFrame(f.frame, f.apiName, f.apiVersion);
    checkMeaning(f.apiName, body);
  });
}

const GROUP_FLOW = ['ApiVersions', 'Metadata', 'Produce', 'FindCoordinator', 'JoinGroup', 'SyncGroup'];

test('kcat (librdkafka) requests decode and re-encode exactly', { timeout: 60_000 }, async () => {
  await capture(captureKcat, GROUP_FLOW);
});

test('KafkaJS requests decode and re-encode exactly', { timeout: 60_000 }, async () => {
  await capture(captureKafkaJs, [...GROUP_FLOW, 'OffsetFetch', 'LeaveGroup']);
});

test('Java client requests decode and re-encode exactly', { timeout: 120_000 }, async () => {
  const command = javaCommand('brook.conformance.ClientTraffic');
  await capture((s) => captureJava(s, command), [...GROUP_FLOW, 'InitProducerId', 'LeaveGroup']);
});
