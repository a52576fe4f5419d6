/**
 * The socket thread (num.network.threads above 0): a worker thread that holds the plaintext
 * listeners' sockets and does their reads and writes, as Kafka's network threads do, while
 * the event loop decodes, handles and encodes requests. A socket's system calls cost about
 * as much as a small request's handling (a heartbeat: about 12 of its 30 us on the event loop
 * go to its answer's write), so with many connections the thread takes half the event loop's
 * work off it, and the scheduler sees two busy threads instead of one.
 *
 * Each side sends one message per turn of its event loop (socket-thread-protocol.ts). Bytes
 * cross once: what the thread reads is transferred; what a connection writes in one turn goes
 * as is when it lies in shared memory (a Fetch's reads, read-buffer-pool.ts), the rest
 * copied into one buffer of its own and transferred. A write's callback runs once the thread
 * says the kernel has its bytes, as a socket's does.
 * A WorkerSocket stands for one of the thread's connections on the event loop, with what a
 * Connection uses of a net.Socket (connection-socket.ts): its writableLength counts the bytes
 * the kernel has not taken yet, here or on the thread, so the Connection's limits hold as
 * they do on a socket of its own.
 */
import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { ConnectionSocket } from './connection-socket.js';
import { FromSockets, ToSockets, type SocketThreadMessage, type WritePart } from './socket-thread-protocol.js';
import type { Logger } from '../util/log.js';

const WORKER_URL = new URL('./socket-thread-worker.js', import.meta.url);

/** net.Socket's writableHighWaterMark: past it, write returns false and 'drain' follows. */
const HIGH_WATER_MARK = 16 * 1024;

type WriteCallback = (err?: Error | null) => void;

/** A connection of the socket thread, as the event loop's Connection sees it. */
export class WorkerSocket extends EventEmitter implements ConnectionSocket {
  bytesRead = 0;
  bytesWritten = 0;
  writableLength = 0;
  /** Bytes written this turn, not yet sent to the thread. */
  pending: Uint8Array[] = [];
  /** Write callbacks, each with the bytesWritten its bytes end at, run as the kernel takes them. */
  callbacks: { readonly until: number; readonly callback: WriteCallback }[] = [];
  /** Bytes received and not yet reported taken (the thread's read credit). */
  untaken = 0;
  /** Paused by the Connection: what arrives is held, not taken, until it resumes. */
  paused = false;
  private needDrain = false;
  private ended = false;
  private endCallback: (() => void) | null = null;
  destroyed = false;

  constructor(
    private readonly thread: SocketThread,
    readonly id: number,
    readonly remoteAddress: string | undefined,
    readonly remotePort: number | undefined,
  ) {
    super();
  }

  setNoDelay(): this {
    // The thread sets TCP_NODELAY on every connection.
    return this;
  }

  cork(): void {
    // Writes of one turn go out together anyway.
  }

  uncork(): void {}

  write(chunk: Uint8Array, callback?: WriteCallback): boolean {
    if (this.destroyed || this.ended) {
      if (callback !== undefined) queueMicrotask(() => callback(new Error('write after the connection ended')));
      return false;
    }
    this.thread.queueWrite(this, chunk);
    this.bytesWritten += chunk.byteLength;
    this.writableLength += chunk.byteLength;
    if (callback !== undefined) this.callbacks.push({ until: this.bytesWritten, callback });
    if (this.writableLength < HIGH_WATER_MARK) return true;
    this.needDrain = true;
    return false;
  }

  pause(): this {
    if (this.paused || this.destroyed) return this;
    this.paused = true;
    this.thread.command(this, ToSockets.PAUSE);
    return this;
  }

  resume(): this {
    if (!this.paused || this.destroyed) return this;
    this.paused = false;
    this.thread.command(this, ToSockets.RESUME);
    this.thread.taken(this);
    return this;
  }

  end(callback?: () => void): this {
    if (this.destroyed || this.ended) return this;
    this.ended = true;
    this.endCallback = callback ?? null;
    this.thread.command(this, ToSockets.END);
    return this;
  }

  destroy(): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    this.thread.dropPending(this);
    // The callbacks wait for CLOSED: until then the thread may still be writing their bytes
    // (a Fetch's read buffers, which must not go back to their pool before).
    this.thread.command(this, ToSockets.DESTROY);
    return this;
  }

  /** @internal The thread's news about this connection. */
  written(bytes: number): void {
    this.writableLength -= bytes;
    // What the kernel has taken.
    const sent = this.bytesWritten - this.writableLength;
    let done = 0;
    while (done < this.callbacks.length && this.callbacks[done]!.until <= sent) done++;
    if (done > 0) for (const { callback } of this.callbacks.splice(0, done)) callback();
    if (this.needDrain && this.writableLength === 0) {
      this.needDrain = false;
      this.emit('drain');
    }
  }

  /** @internal */
  finished(): void {
    const callback = this.endCallback;
    this.endCallback = null;
    callback?.();
  }

  /** @internal Writes that will never reach the kernel: their callbacks hear so (a fetch's lease is released). */
  failCallbacks(): void {
    const callbacks = this.callbacks;
    this.callbacks = [];
    const err = new Error('connection closed');
    for (const { callback } of callbacks) queueMicrotask(() => callback(err));
  }

  /** @internal */
  failed(message: string): void {
    if (this.listenerCount('error') > 0) this.emit('error', new Error(message));
  }

  /** @internal */
  closed(hadError: boolean): void {
    this.destroyed = true;
    this.thread.dropPending(this);
    this.failCallbacks();
    this.emit('close', hadError);
  }
}

/** A listener the socket thread has bound: emits 'connection' with a WorkerSocket, and 'error'. */
export class WorkerListener extends EventEmitter {
  private closeCallbacks: (() => void)[] | null = null;
  private closed = false;

  constructor(private readonly thread: SocketThread, readonly id: number, private readonly bound: { port: number; family: string | null; host: string | null }) {
    super();
  }

  address(): { port: number; family: string; address: string } {
    return { port: this.bound.port, family: this.bound.family ?? 'IPv4', address: this.bound.host ?? '::' };
  }

  /** Stops accepting; `callback` once the listener's connections are all closed (as net.Server's close). */
  close(callback?: () => void): this {
    if (this.closed) {
      // Closed already (its thread exited): nothing to wait for.
      if (callback !== undefined) queueMicrotask(callback);
      return this;
    }
    if (this.closeCallbacks !== null) {
      if (callback !== undefined) this.closeCallbacks.push(callback);
      return this;
    }
    this.closeCallbacks = callback === undefined ? [] : [callback];
    // A thread that is gone took its listeners with it.
    if (!this.thread.closeListener(this.id)) queueMicrotask(() => this.listenerClosed());
    return this;
  }

  /** @internal */
  listenerClosed(): void {
    this.closed = true;
    const callbacks = this.closeCallbacks ?? [];
    this.closeCallbacks = [];
    for (const callback of callbacks) callback();
  }
}

interface PendingListen {
  resolve(listener: WorkerListener): void;
  reject(err: Error): void;
  host: string | null;
}

export class SocketThread {
  private readonly worker: Worker;
  private readonly sockets = new Map<number, WorkerSocket>();
  private readonly listeners = new Map<number, WorkerListener>();
  private readonly listening = new Map<number, PendingListen>();
  private nextListenerId = 1;
  private outgoing: SocketThreadMessage = [];
  private transfers: ArrayBuffer[] = [];
  /** Sockets with bytes written this turn. */
  private dirty: WorkerSocket[] = [];
  private flushScheduled = false;
  private exited = false;
  private stopping = false;

  constructor(
    private readonly log: Logger,
    /** The thread ended before `stop` (it failed): the broker has lost its plaintext listeners. */
    private readonly failed: (err: Error) => void = () => undefined,
  ) {
    this.worker = new Worker(WORKER_URL, { name: 'brook-sockets', execArgv: [] });
    this.worker.on('message', (message: SocketThreadMessage) => this.receive(message));
    this.worker.on('error', (err) => log.error('socket thread failed', { err }));
    this.worker.on('exit', (code) => this.onExit(code));
  }

  /** Binds a listener on the thread (host null: every interface). */
  listen(host: string | null, port: number, backlog: number): Promise<WorkerListener> {
    const id = this.nextListenerId++;
    return new Promise<WorkerListener>((resolve, reject) => {
      this.listening.set(id, { resolve, reject, host });
      this.send(ToSockets.LISTEN, id, [host, port, backlog]);
    });
  }

  /** Ends the thread (its listeners and connections closed before). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.exited) return;
    await this.worker.terminate();
  }

  /** @internal */
  queueWrite(socket: WorkerSocket, chunk: Uint8Array): void {
    if (socket.pending.length === 0) this.dirty.push(socket);
    socket.pending.push(chunk);
    this.scheduleFlush();
  }

  /** @internal A command to one connection, after the bytes it wrote before. */
  command(socket: WorkerSocket, op: ToSockets): void {
    this.takePending(socket);
    this.send(op, socket.id, null);
  }

  /** @internal A destroyed connection writes nothing more. */
  dropPending(socket: WorkerSocket): void {
    socket.pending = [];
  }

  /** @internal The bytes `socket` received are taken (unless it is paused): the thread may read on. */
  taken(socket: WorkerSocket): void {
    if (socket.paused || socket.untaken === 0 || socket.destroyed) return;
    this.send(ToSockets.TAKEN, socket.id, socket.untaken);
    socket.untaken = 0;
  }

  /** @internal False when the thread is gone (nothing to close). */
  closeListener(id: number): boolean {
    if (this.exited) return false;
    this.send(ToSockets.CLOSE_LISTENER, id, null);
    return true;
  }

  private send(op: ToSockets, id: number, arg: unknown): void {
    this.outgoing.push(op, id, arg);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  /**
   * A connection's bytes of this turn, in order: views of shared memory as they are, runs of
   * other chunks copied into one buffer each (transferred).
   */
  private takePending(socket: WorkerSocket): void {
    const chunks = socket.pending;
    if (chunks.length === 0) return;
    socket.pending = [];
    const parts: WritePart[] = [];
    let run: Uint8Array[] = [];
    let runBytes = 0;
    const endRun = (): void => {
      if (run.length === 0) return;
      const bytes = new Uint8Array(runBytes);
      let at = 0;
      for (const chunk of run) {
        bytes.set(chunk, at);
        at += chunk.byteLength;
      }
      parts.push(bytes.buffer);
      this.transfers.push(bytes.buffer);
      run = [];
      runBytes = 0;
    };
    for (const chunk of chunks) {
      if (chunk.buffer instanceof SharedArrayBuffer) {
        endRun();
        parts.push([chunk.buffer, chunk.byteOffset, chunk.byteLength]);
      } else {
        run.push(chunk);
        runBytes += chunk.byteLength;
      }
    }
    endRun();
    this.outgoing.push(ToSockets.WRITE, socket.id, parts);
  }

  private flush(): void {
    this.flushScheduled = false;
    for (const socket of this.dirty) this.takePending(socket);
    this.dirty = [];
    if (this.outgoing.length === 0 || this.exited) return;
    const message = this.outgoing;
    const transfers = this.transfers;
    this.outgoing = [];
    this.transfers = [];
    this.worker.postMessage(message, transfers);
  }

  private receive(message: SocketThreadMessage): void {
    for (let i = 0; i < message.length; i += 3) {
      const op = message[i] as FromSockets;
      const id = message[i + 1] as number;
      const arg = message[i + 2];
      switch (op) {
        case FromSockets.DATA: {
          const socket = this.sockets.get(id);
          if (socket === undefined || socket.destroyed) break;
          const chunk = Buffer.from(arg as ArrayBuffer);
          socket.bytesRead += chunk.length;
          socket.untaken += chunk.length;
          socket.emit('data', chunk);
          this.taken(socket);
          break;
        }
        case FromSockets.WRITTEN: this.sockets.get(id)?.written(arg as number); break;
        case FromSockets.ACCEPTED: this.accepted(id, arg as [number, string | null, number]); break;
        case FromSockets.CLOSED: {
          const socket = this.sockets.get(id);
          this.sockets.delete(id);
          socket?.closed(arg as boolean);
          break;
        }
        case FromSockets.ERROR: this.sockets.get(id)?.failed(arg as string); break;
        case FromSockets.FINISHED: this.sockets.get(id)?.finished(); break;
        case FromSockets.LISTENING: this.bound(id, arg as [number, string | null]); break;
        case FromSockets.LISTEN_FAILED: {
          const [text, code] = arg as [string, string | null];
          const pending = this.listening.get(id);
          this.listening.delete(id);
          pending?.reject(Object.assign(new Error(text), code === null ? {} : { code }));
          break;
        }
        case FromSockets.LISTENER_CLOSED: {
          const listener = this.listeners.get(id);
          this.listeners.delete(id);
          listener?.listenerClosed();
          break;
        }
        case FromSockets.LISTENER_ERROR: {
          const listener = this.listeners.get(id);
          if (listener !== undefined && listener.listenerCount('error') > 0) listener.emit('error', new Error(arg as string));
          break;
        }
      }
    }
  }

  private accepted(id: number, [listenerId, address, port]: [number, string | null, number]): void {
    const socket = new WorkerSocket(this, id, address ?? undefined, port);
    this.sockets.set(id, socket);
    const listener = this.listeners.get(listenerId);
    if (listener === undefined) socket.destroy();
    else listener.emit('connection', socket);
  }

  private bound(id: number, [port, family]: [number, string | null]): void {
    const pending = this.listening.get(id);
    this.listening.delete(id);
    if (pending === undefined) return;
    const listener = new WorkerListener(this, id, { port, family, host: pending.host });
    this.listeners.set(id, listener);
    pending.resolve(listener);
  }

  /** The thread ended: at stop, or because it failed (its connections are gone then). */
  private onExit(code: number): void {
    this.exited = true;
    const unexpected = !this.stopping;
    if (unexpected) this.log.error('socket thread exited', { code, connections: this.sockets.size, listeners: this.listeners.size });
    for (const pending of this.listening.values()) pending.reject(new Error(`socket thread exited with code ${code}`));
    this.listening.clear();
    const sockets = [...this.sockets.values()];
    this.sockets.clear();
    for (const socket of sockets) socket.closed(true);
    const listeners = [...this.listeners.values()];
    this.listeners.clear();
    for (const listener of listeners) listener.listenerClosed();
    if (unexpected) this.failed(new Error(`socket thread exited with code ${code}`));
  }
}
