/**
 * What the broker's event loop and its socket thread (socket-thread.ts) tell each other.
 * Each side sends one message per turn of its event loop: a flat array of triples
 * (operation, id, argument), with the byte buffers in it transferred, not copied, so a turn
 * that moves a thousand requests costs one message and no per-request allocation beyond the
 * requests' own bytes.
 */

/** From the socket thread to the event loop; the id is a connection's, or a listener's for LISTENING..LISTENER_ERROR. */
export const enum FromSockets {
  /** A connection was accepted; argument: [listener id, remote address, remote port]. */
  ACCEPTED = 1,
  /** Bytes read; argument: an ArrayBuffer holding them, transferred. */
  DATA = 2,
  /** The kernel took this many more of the bytes written; argument: the count. */
  WRITTEN = 3,
  /** The connection closed; argument: whether it closed because of an error. */
  CLOSED = 4,
  /** A socket error (the close follows); argument: its message. */
  ERROR = 5,
  /** `end` wrote everything and sent FIN; argument unused. */
  FINISHED = 6,
  /** A listener is bound; argument: [port, address family]. */
  LISTENING = 7,
  /** A listener could not bind; argument: [message, error code]. */
  LISTEN_FAILED = 8,
  /** A closed listener has no connections left; argument unused. */
  LISTENER_CLOSED = 9,
  /** A listener's error after it was bound; argument: its message. */
  LISTENER_ERROR = 10,
}

/** From the event loop to the socket thread; the id is a connection's, or a listener's for LISTEN and CLOSE_LISTENER. */
export const enum ToSockets {
  /** Bytes to write; argument: their parts, in order (WritePart). */
  WRITE = 1,
  PAUSE = 2,
  RESUME = 3,
  /** Write what is pending, then FIN (answered with FINISHED). */
  END = 4,
  DESTROY = 5,
  /** Bind a listener; argument: [host or null for every interface, port, backlog]. */
  LISTEN = 6,
  /** Stop accepting (answered with LISTENER_CLOSED once its connections are gone). */
  CLOSE_LISTENER = 7,
  /** The event loop took this many more of the bytes read (see READ_CREDIT_BYTES); argument: the count. */
  TAKEN = 8,
}

/**
 * How far the thread reads ahead of the event loop on one connection: once this many bytes
 * it sent are not yet taken (TAKEN), it stops reading until they are. A connection the
 * event loop pauses takes nothing, so what it holds beyond what it held when it paused is
 * bounded by this plus one read, as it would be on a socket of its own.
 */
export const READ_CREDIT_BYTES = 128 * 1024;

/** Bytes of a WRITE: an ArrayBuffer of their own (transferred), or a view of shared memory (buffer, offset, length). */
export type WritePart = ArrayBuffer | readonly [SharedArrayBuffer, number, number];

/** One turn's messages: operation, id, argument, operation, id, argument, ... */
export type SocketThreadMessage = unknown[];
