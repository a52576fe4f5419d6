/**
 * Brook's client against a broker older than its newest ApiVersions version: Kafka 3.x knows
 * ApiVersions up to v3 and Kafka 4.0-4.3 up to v4, and such a broker answers the client's v5 at
 * version 0 with UNSUPPORTED_VERSION and its own ApiVersions range (Kafka's RequestContext and
 * ApiVersionsRequest.getErrorResponse). The client reads that v0 answer, as Kafka's
 * ApiVersionsResponse.parse falls back to, and asks again at the broker's version.
 *
 * The fake broker's first answer is written byte by byte from the v0 layout (error_code
 * int16, api_keys int32 count then api_key/min_version/max_version int16 each: no throttle
 * time, no tagged fields), not by Brook's codecs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { KafkaConnection } from '../../src/client/connection.js';
import { Api } from '../../src/protocol/messages/index.js';
import { decodeRequestHeader, encodeResponse } from '../../src/protocol/frame.js';

/** The answer of a broker whose ApiVersions stops at `max`, to a version it does not know. */
function unsupportedVersionV0(correlationId: number, max: number): Buffer {
  const body = Buffer.alloc(4 + 2 + 4 + 6);
  body.writeInt32BE(correlationId, 0);
  body.writeInt16BE(35, 4); // UNSUPPORTED_VERSION
  body.writeInt32BE(1, 6); // one api key: ApiVersions' own range
  body.writeInt16BE(18, 10);
  body.writeInt16BE(0, 12);
  body.writeInt16BE(max, 14);
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** Frames out of a socket's bytes (size-prefixed). */
function onFrames(socket: Socket, handle: (frame: Buffer) => void): void {
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const size = pending.readInt32BE(0);
      handle(pending.subarray(4, 4 + size));
      pending = pending.subarray(4 + size);
    }
  });
}

for (const brokerMax of [3, 4]) {
  test(`a broker whose ApiVersions stops at v${brokerMax} answers v${Api.ApiVersions.request.highestVersion} at v0: the client reads it and negotiates at v${brokerMax}`, { timeout: 10_000 }, async () => {
    const asked: number[] = [];
    const server = createServer((socket) => {
      onFrames(socket, (frame) => {
        const { header } = decodeRequestHeader(frame);
        asked.push(header.requestApiVersion);
        if (header.requestApiVersion > brokerMax) {
          socket.write(unsupportedVersionV0(header.correlationId, brokerMax));
          return;
        }
        const apiKeys = [
          { apiKey: Api.ApiVersions.apiKey, minVersion: 0, maxVersion: brokerMax },
          { apiKey: Api.Metadata.apiKey, minVersion: 0, maxVersion: 12 },
        ];
        for (const b of encodeResponse(Api.ApiVersions, header.requestApiVersion, header.correlationId, { errorCode: 0, apiKeys, throttleTimeMs: 0 })) socket.write(b);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    try {
      const connection = await KafkaConnection.connect({ host: '127.0.0.1', port, requestTimeoutMs: 5_000 });
      try {
        assert.deepEqual(asked, [Api.ApiVersions.request.highestVersion, brokerMax]);
        assert.equal(connection.supportedVersion(Api.Metadata), 12);
        assert.equal(connection.supportedVersion(Api.ApiVersions), brokerMax);
      } finally {
        connection.close();
      }
    } finally {
      server.close();
    }
  });
}
