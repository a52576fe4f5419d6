/**
 * A raw TCP client for malformed-input tests: writes bytes, then watches whether the broker
 * closes the connection (and what it sent before closing).
 */
import { connect, type Socket } from 'node:net';

export interface RawOutcome {
  /** The broker closed (or reset) the connection within the wait. */
  readonly closedByBroker: boolean;
  /** Bytes the broker sent before closing. */
  readonly received: Buffer;
  /** Time from the write to the close (or to the end of the wait). */
  readonly ms: number;
}

export function openRaw(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

/** Connects, writes `bytes`, waits up to `waitMs` for the broker to close the connection. */
export async function sendRaw(host: string, port: number, bytes: Buffer, waitMs = 5_000): Promise<RawOutcome> {
  const socket = await openRaw(host, port);
  const received: Buffer[] = [];
  socket.on('data', (d: Buffer) => received.push(d));
  socket.on('error', () => undefined); // ECONNRESET counts as closed
  const started = Date.now();
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
    socket.write(bytes);
  });
  const ms = Date.now() - started;
  socket.destroy();
  return { closedByBroker: closed, received: Buffer.concat(received), ms };
}

/** A size-prefixed frame around `body`. */
export function frame(body: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

/** A request header v1 (api key, version, correlation id, client id) followed by `body`. */
export function requestV1(apiKey: number, apiVersion: number, correlationId: number, body: Buffer = Buffer.alloc(0), clientId = 'garbage'): Buffer {
  const header = Buffer.alloc(10 + Buffer.byteLength(clientId));
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(correlationId, 4);
  header.writeInt16BE(Buffer.byteLength(clientId), 8);
  header.write(clientId, 10);
  return frame(Buffer.concat([header, body]));
}

/** Deterministic pseudo-random bytes (xorshift32), so a failure can be replayed. */
export function seededBytes(seed: number, length: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}
