/**
 * What a Connection needs of its socket: a net.Socket or tls.TLSSocket on the event loop,
 * or a connection the socket thread holds (socket-thread.ts), which behaves the same.
 */
export interface ConnectionSocket {
  readonly remoteAddress?: string | undefined;
  readonly remotePort?: number | undefined;
  /** Bytes written and not yet taken by the kernel. */
  readonly writableLength: number;
  readonly bytesRead: number;
  /** Bytes given to `write` (including the ones still in writableLength). */
  readonly bytesWritten: number;
  setNoDelay(noDelay?: boolean): unknown;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'drain', listener: () => void): unknown;
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(event: 'close', listener: (hadError: boolean) => void): unknown;
  pause(): unknown;
  resume(): unknown;
  cork(): void;
  uncork(): void;
  /** `callback` runs once the bytes are the kernel's or (socket thread) the thread's, whose copy they are. */
  write(chunk: Uint8Array, callback?: (err?: Error | null) => void): boolean;
  /** Writes what is pending, then FIN; `callback` once done. */
  end(callback?: () => void): unknown;
  destroy(): unknown;
}
