import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { createServer, type AddressInfo } from 'node:net';
import { FrameReader } from '../../src/protocol/frame-reader.js';
import { FrameTooLargeError } from '../../src/protocol/frame.js';
import { ConnectionError, KafkaConnection } from '../../src/client/connection.js';

function frameStream(frames: readonly Buffer[]): Buffer {
  return Buffer.concat(frames.flatMap((f) => {
    const size = Buffer.alloc(4);
    size.writeInt32BE(f.length);
    return [size, f];
  }));
}

/** Feeds `stream` through a reader in reads of the given sizes (each capped by what the reader offers). */
function readAll(reader: FrameReader, stream: Buffer, readSizes: readonly number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < stream.length; i++) {
    const target = reader.readBuffer();
    assert.ok(target.length > 0, 'the read buffer is never empty');
    const n = Math.min(target.length, stream.length - at, readSizes.length > 0 ? readSizes[i % readSizes.length]! : Infinity);
    stream.copy(target, 0, at, at + n);
    at += n;
    out.push(...reader.received(n));
  }
  return out;
}

const frameArb = fc.oneof(
  fc.integer({ min: 0, max: 100 }),
  fc.integer({ min: 1_000, max: 20_000 }),
  fc.integer({ min: 60_000, max: 300_000 }),
).chain((size) => fc.integer({ min: 0, max: 255 }).map((fill) => Buffer.alloc(size, fill)));

test('frame reader: any sequence of frames and read sizes gives the frames back, and earlier frames stay intact', () => {
  fc.assert(fc.property(
    fc.array(frameArb, { minLength: 1, maxLength: 25 }),
    fc.array(fc.integer({ min: 1, max: 200_000 }), { maxLength: 10 }),
    (frames, readSizes) => {
      const out = readAll(new FrameReader(), frameStream(frames), readSizes);
      // Compared only at the end: a frame handed out early must not have been overwritten since.
      assert.equal(out.length, frames.length);
      for (let i = 0; i < frames.length; i++) assert.ok(out[i]!.equals(frames[i]!), `frame ${i} (${frames[i]!.length} bytes) differs`);
    },
  ), { numRuns: 200 });
});

test('frame reader: a large frame is read straight into the buffer it is handed out in', () => {
  const body = Buffer.alloc(1_000_000, 7);
  const stream = frameStream([body]);
  const reader = new FrameReader();
  let target = reader.readBuffer();
  stream.copy(target, 0, 0, 100);
  assert.deepEqual(reader.received(100), []);
  target = reader.readBuffer();
  assert.equal(target.length, body.length - 96, 'the next read is offered exactly the rest of the frame');
  stream.copy(target, 0, 100);
  const [frame] = reader.received(stream.length - 100);
  assert.ok(frame!.equals(body));
  assert.equal(frame!.buffer, target.buffer, 'no copy after the size prefix');
});

test('frame reader rejects an oversized or negative size, after the frames before it', () => {
  const reader = new FrameReader(1_000);
  const stream = Buffer.concat([frameStream([Buffer.from('ok')]), Buffer.from('000003e9', 'hex')]);
  stream.copy(reader.readBuffer());
  assert.throws(() => reader.received(stream.length), (err: unknown) => {
    assert.ok(err instanceof FrameTooLargeError);
    assert.deepEqual(err.frames, [Buffer.from('ok')]);
    return true;
  });
  const negative = new FrameReader();
  Buffer.from('ffffffff', 'hex').copy(negative.readBuffer());
  assert.throws(() => negative.received(4), FrameTooLargeError);
});

test('a client connection to a server that is not Kafka (it speaks first) fails with a clear error', async () => {
  const server = createServer((socket) => socket.write('SSH-2.0-OpenSSH_9.2\r\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    await assert.rejects(KafkaConnection.connect({ host: '127.0.0.1', port, requestTimeoutMs: 5_000 }), (err: unknown) => {
      assert.ok(err instanceof ConnectionError);
      assert.match(err.message, /bad frame .* exceeds the limit/);
      return true;
    });
  } finally {
    server.close();
  }
});
