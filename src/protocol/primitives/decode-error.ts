/**
 * The one error every decoder throws for bad input: truncated data, negative or oversized
 * lengths, malformed varints, unknown versions. Callers (the broker's request loop, the
 * client's response loop) catch exactly this class to answer or close a connection
 * without crashing.
 */
export class ProtocolDecodeError extends Error {
  readonly code = 'ERR_PROTOCOL_DECODE' as const;
  /** Byte offset in the decoded buffer where the problem was found. */
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(`${message} (at byte ${offset})`);
    this.name = 'ProtocolDecodeError';
    this.offset = offset;
  }
}

/** Thrown when asked to encode something the chosen version cannot carry. */
export class ProtocolEncodeError extends Error {
  readonly code = 'ERR_PROTOCOL_ENCODE' as const;

  constructor(message: string) {
    super(message);
    this.name = 'ProtocolEncodeError';
  }
}
