/**
 * Requests captured from real clients (kcat/librdkafka, KafkaJS, the Java client; see
 * test/support/capture-golden.ts) decode to what the client sent and re-encode byte for
 * byte. The interop suite recaptures them live from the installed clients.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readGolden, checkFrame, checkMeaning, checkVersionProbe, newerThanBrook } from '../support/golden.js';

const golden = readGolden();
const CLIENT_IDS: Record<string, RegExp> = { kcat: /^rdkafka$/, kafkajs: /^golden-kafkajs$/, java: /^golden-java-/ };

test('golden frames exist for kcat, KafkaJS and the Java client', () => {
  const clients = new Set(golden.map((g) => g.client));
  for (const c of ['kcat', 'kafkajs', 'java']) assert.ok(clients.has(c), `fixtures for ${c}`);
});

for (const g of golden) {
  test(`golden ${g.client}/${g.file}`, () => {
    const clientId = g.frame.toString('latin1', 10, 10 + g.frame.readInt16BE(8));
    assert.match(clientId, CLIENT_IDS[g.client]!);
    if (newerThanBrook(g)) {
      // A client newer than Brook's codecs opens with an ApiVersions they lack: a KIP-511
      // probe, checked from its header and the client's retry (checkVersionProbe).
      const frames = golden.filter((f) => f.client === g.client);
      checkVersionProbe(frames, frames.indexOf(g));
      return;
    }
    const body = checkFrame(g.frame, g.apiName, g.apiVersion);
    checkMeaning(g.apiName, body);
  });
}
