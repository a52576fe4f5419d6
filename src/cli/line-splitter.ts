/**
 * Splits a byte stream into UTF-8 lines, as readline does (and Java's BufferedReader, which
 * Kafka's console producer reads with): a line ends at "\n", "\r\n" or a lone "\r"; a last
 * line without a terminator still counts. Lines are decoded straight from the chunks (a
 * "\r" or "\n" byte is never inside a multi-byte character, so cutting there is safe);
 * readline's async iterator cost more than the producer per line.
 */
const LF = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  /** Bytes of a line that started in an earlier chunk. */
  private partial: Buffer[] = [];
  /** The previous chunk ended with "\r": a "\n" first in the next one belongs to it. */
  private skipLf = false;

  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    if (this.skipLf && chunk.length > 0) {
      if (chunk[0] === LF) start = 1;
      this.skipLf = false;
    }
    const end = chunk.length;
    if (chunk.indexOf(CR, start) < 0) {
      // No "\r" at all (the usual input): let indexOf find the line ends.
      for (let at = chunk.indexOf(LF, start); at >= 0; at = chunk.indexOf(LF, start)) {
        this.emit(chunk, start, at);
        start = at + 1;
      }
      if (start < end) this.partial.push(chunk.subarray(start, end));
      return;
    }
    let i = start;
    while (i < end) {
      const c = chunk[i]!;
      if (c !== LF && c !== CR) {
        i++;
        continue;
      }
      this.emit(chunk, start, i);
      i++;
      if (c === CR) {
        if (i === end) this.skipLf = true;
        else if (chunk[i] === LF) i++;
      }
      start = i;
    }
    if (start < end) this.partial.push(chunk.subarray(start, end));
  }

  /** The input ended: a last line without a terminator. */
  end(): void {
    if (this.partial.length > 0) {
      const rest = Buffer.concat(this.partial);
      this.partial = [];
      this.onLine(rest.toString('utf8'));
    }
  }

  private emit(chunk: Buffer, start: number, end: number): void {
    if (this.partial.length === 0) {
      this.onLine(chunk.toString('utf8', start, end));
      return;
    }
    this.partial.push(chunk.subarray(start, end));
    const line = Buffer.concat(this.partial);
    this.partial = [];
    this.onLine(line.toString('utf8'));
  }
}
