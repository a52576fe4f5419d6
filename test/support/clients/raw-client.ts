/**
 * A client speaking Kafka's wire protocol by hand, for broker tests that control exactly
 * which requests go out and when: each request is written as it is sent (pipelining is the
 * caller's choice), responses are taken in order as frames and decoded on demand.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { decodeResponse, encodeRequest, FrameDecoder } from '../../../src/protocol/frame.js';
import type { ApiCodecs } from '../../../src/protocol/messages/index.js';

export class RawClient {
  readonly socket: Socket;
  private readonly decoder = new FrameDecoder();
  private readonly frames: Buffer[] = [];
  private waiter: (() => void) | null = null;
  readonly closed: Promise<void>;
  private correlationId = 0;

  constructor(port: number) {
    this.socket = connect({ host: '127.0.0.1', port });
    this.socket.on('data', (chunk: Buffer) => {
      this.decoder.append(chunk);
      for (let f = this.decoder.next(); f !== null; f = this.decoder.next()) this.frames.push(f);
      this.waiter?.();
    });
    this.socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => this.socket.on('close', () => {
      this.waiter?.();
      resolve();
    }));
  }

  send<T>(api: ApiCodecs, apiVersion: number, body: T): void {
    for (const chunk of encodeRequest({ api, apiVersion, correlationId: ++this.correlationId, clientId: 'raw', body })) this.socket.write(chunk);
  }

  sendRaw(token: Buffer): void {
    const size = Buffer.alloc(4);
    size.writeInt32BE(token.length);
    this.socket.write(Buffer.concat([size, token]));
  }

  /** The next frame, or null when the connection closes first. */
  async frame(): Promise<Buffer | null> {
    while (this.frames.length === 0) {
      if (this.socket.destroyed || this.socket.readableEnded) return null;
      await new Promise<void>((resolve) => { this.waiter = resolve; });
      this.waiter = null;
    }
    return this.frames.shift()!;
  }

  async response<T>(api: ApiCodecs, apiVersion: number): Promise<T> {
    const frame = await this.frame();
    assert.ok(frame !== null, `no ${api.name} response: the connection closed`);
    return decodeResponse(frame, api, apiVersion).body as T;
  }
}
