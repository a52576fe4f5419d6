/**
 * The socket thread (see socket-thread.ts): owns the TCP listeners and connections of the
 * plaintext listeners, reads and writes them, and hands the bytes to and from the broker's
 * event loop. It knows nothing of Kafka: frames are cut, requests handled and limits kept by
 * the event loop's Connection, which pauses and resumes reading here as it would a socket.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { parentPort } from 'node:worker_threads';
import { FromSockets, READ_CREDIT_BYTES, ToSockets, type SocketThreadMessage, type WritePart } from './socket-thread-protocol.js';

if (parentPort === null) throw new Error('socket-thread-worker.js runs as a worker thread');
const port = parentPort;

/** A connection: its socket, and why reading stopped (the event loop's pause, or the read credit). */
interface Held {
  readonly socket: Socket;
  /** Bytes sent to the event loop and not yet taken. */
  untaken: number;
  pausedByLoop: boolean;
  pausedForCredit: boolean;
}

const sockets = new Map<number, Held>();
const listeners = new Map<number, Server>();
let nextConnectionId = 1;

let outgoing: SocketThreadMessage = [];
let transfers: ArrayBuffer[] = [];
let flushScheduled = false;

/** Everything said this turn goes in one message, after the turn's reads (the check phase follows the poll phase). */
function send(op: FromSockets, id: number, arg: unknown): void {
  outgoing.push(op, id, arg);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flush);
  }
}

function flush(): void {
  flushScheduled = false;
  const message = outgoing;
  const transferList = transfers;
  outgoing = [];
  transfers = [];
  port.postMessage(message, transferList);
}

/**
 * The bytes of a read as an ArrayBuffer this thread may give away: a socket read normally
 * gets a buffer of its own (transferred as is); a view into a shared one is copied.
 */
function ownBytes(chunk: Buffer): ArrayBuffer {
  const whole = chunk.buffer;
  if (chunk.byteOffset === 0 && chunk.byteLength === whole.byteLength && whole instanceof ArrayBuffer) return whole;
  const copy = new Uint8Array(chunk.byteLength);
  copy.set(chunk);
  return copy.buffer;
}

function adopt(socket: Socket, listenerId: number): void {
  const id = nextConnectionId++;
  const held: Held = { socket, untaken: 0, pausedByLoop: false, pausedForCredit: false };
  sockets.set(id, held);
  socket.setNoDelay(true);
  send(FromSockets.ACCEPTED, id, [listenerId, socket.remoteAddress ?? null, socket.remotePort ?? 0]);
  socket.on('data', (chunk: Buffer) => {
    const bytes = ownBytes(chunk);
    transfers.push(bytes);
    send(FromSockets.DATA, id, bytes);
    held.untaken += bytes.byteLength;
    if (held.untaken >= READ_CREDIT_BYTES && !held.pausedForCredit) {
      held.pausedForCredit = true;
      socket.pause();
    }
  });
  socket.on('error', (err) => send(FromSockets.ERROR, id, err.message));
  socket.on('close', (hadError) => {
    sockets.delete(id);
    send(FromSockets.CLOSED, id, hadError);
  });
}

function listen(id: number, host: string | null, portNumber: number, backlog: number): void {
  const server = createServer({ noDelay: true });
  const failed = (err: NodeJS.ErrnoException): void => send(FromSockets.LISTEN_FAILED, id, [err.message, err.code ?? null]);
  server.once('error', failed);
  server.listen({ port: portNumber, host: host ?? undefined, backlog }, () => {
    server.off('error', failed);
    server.on('error', (err) => send(FromSockets.LISTENER_ERROR, id, err.message));
    listeners.set(id, server);
    const address = server.address();
    send(FromSockets.LISTENING, id, typeof address === 'object' && address !== null ? [address.port, address.family] : [portNumber, null]);
  });
  server.on('connection', (socket: Socket) => adopt(socket, id));
}

/** The write of one turn to one connection: once the kernel has it all, the event loop hears how much. */
function write(id: number, socket: Socket, parts: readonly WritePart[]): void {
  let length = 0;
  socket.cork();
  for (const [i, part] of parts.entries()) {
    const bytes = part instanceof ArrayBuffer ? Buffer.from(part) : Buffer.from(part[0], part[1], part[2]);
    length += bytes.length;
    if (i < parts.length - 1) socket.write(bytes);
    else {
      const total = length;
      socket.write(bytes, (err) => {
        if (err == null) send(FromSockets.WRITTEN, id, total);
      });
    }
  }
  socket.uncork();
}

port.on('message', (message: SocketThreadMessage) => {
  for (let i = 0; i < message.length; i += 3) {
    const op = message[i] as ToSockets;
    const id = message[i + 1] as number;
    const arg = message[i + 2];
    if (op === ToSockets.LISTEN) {
      const [host, portNumber, backlog] = arg as [string | null, number, number];
      listen(id, host, portNumber, backlog);
      continue;
    }
    if (op === ToSockets.CLOSE_LISTENER) {
      const server = listeners.get(id);
      listeners.delete(id);
      if (server === undefined) send(FromSockets.LISTENER_CLOSED, id, null);
      else server.close(() => send(FromSockets.LISTENER_CLOSED, id, null));
      continue;
    }
    const held = sockets.get(id);
    // Closed meanwhile: its CLOSED is on its way to the event loop.
    if (held === undefined) continue;
    const socket = held.socket;
    switch (op) {
      case ToSockets.WRITE: write(id, socket, arg as WritePart[]); break;
      case ToSockets.PAUSE:
        held.pausedByLoop = true;
        socket.pause();
        break;
      case ToSockets.RESUME:
        held.pausedByLoop = false;
        if (!held.pausedForCredit) socket.resume();
        break;
      case ToSockets.TAKEN:
        held.untaken -= arg as number;
        if (held.pausedForCredit && held.untaken < READ_CREDIT_BYTES) {
          held.pausedForCredit = false;
          if (!held.pausedByLoop) socket.resume();
        }
        break;
      case ToSockets.END: socket.end(() => send(FromSockets.FINISHED, id, null)); break;
      case ToSockets.DESTROY: socket.destroy(); break;
    }
  }
});
