/**
 * `.properties` files as Java's java.util.Properties.load reads them (Kafka reads
 * server.properties and its tools' client properties with it). Values come out as text: how
 * Kafka's ConfigDef then parses them is up to the broker and the CLI.
 *
 * The grammar (Properties.load's documentation):
 * - Natural lines end at \n, \r or \r\n. A natural line ending in an odd number of
 *   backslashes continues on the next one: that backslash, the line terminator and the next
 *   line's leading whitespace (space, \t, \f) are dropped.
 * - A line whose first non-whitespace character is # or ! is a comment, and is never
 *   continued; blank lines are skipped.
 * - The key runs from the first non-whitespace character to the first unescaped =, : or
 *   whitespace; whitespace, then one = or :, then whitespace separate it from the value, which
 *   is the rest of the line, trailing whitespace included. A line with a key alone has the
 *   value "".
 * - In keys and values, \t \n \r \f and \uXXXX are escapes; a backslash before any other
 *   character stands for that character (\= \: \  \# \\).
 *
 * One difference: Kafka reads the file as ISO-8859-1 (Properties.load(InputStream)); Brook
 * reads UTF-8, so a non-ASCII character written as itself means the same as its \uXXXX.
 */

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\f';

/** The line number of offset `at` (for error messages; \r\n is one line end). */
function lineNumberAt(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at; i++) {
    const c = text[i];
    if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line++;
  }
  return line;
}

/**
 * Logical lines, continuations joined, comments and blank lines dropped, escapes kept: Java's
 * Properties.LineReader.readLine (JDK 9 and later), step by step, so the corner cases come
 * out the same. A comment is recognised where a logical line has no character yet (after a
 * continuation that left it empty too); a continuation at the very end of the text gives its
 * line without the backslash, even an empty one.
 */
function logicalLines(text: string): { line: string; at: number }[] {
  const out: { line: string; at: number }[] = [];
  const limit = text.length;
  let off = 0;
  for (;;) {
    let buf = '';
    let at = off;
    let skipWhitespace = true;
    let appendedLineBegin = false;
    let precedingBackslash = false;
    let line: string | null = null;
    for (;;) {
      if (off >= limit) {
        line = buf.length === 0 ? null : precedingBackslash ? buf.slice(0, -1) : buf;
        break;
      }
      const c = text[off++]!;
      if (skipWhitespace) {
        if (isWhitespace(c)) continue;
        if (!appendedLineBegin && (c === '\r' || c === '\n')) continue;
        skipWhitespace = false;
        appendedLineBegin = false;
      }
      if (buf.length === 0 && (c === '#' || c === '!')) {
        // A comment: everything up to the line end, backslashes included.
        let ended = false;
        while (off < limit) {
          const d = text[off++];
          if (d === '\r' || d === '\n') {
            ended = true;
            break;
          }
        }
        if (!ended) break;
        skipWhitespace = true;
        continue;
      }
      if (c !== '\n' && c !== '\r') {
        if (buf.length === 0) at = off - 1;
        buf += c;
        precedingBackslash = c === '\\' ? !precedingBackslash : false;
        continue;
      }
      if (buf.length === 0) {
        skipWhitespace = true;
        continue;
      }
      if (off >= limit) {
        line = precedingBackslash ? buf.slice(0, -1) : buf;
        break;
      }
      if (!precedingBackslash) {
        line = buf;
        break;
      }
      // A continuation: drop the backslash; the next line's leading whitespace is skipped.
      buf = buf.slice(0, -1);
      skipWhitespace = true;
      appendedLineBegin = true;
      precedingBackslash = false;
      if (c === '\r' && text[off] === '\n') off++;
    }
    if (line === null) return out;
    out.push({ line, at });
  }
}

/** Resolves the escapes of a key or value (Properties.loadConvert). */
function unescape(s: string, lineNumber: () => number): string {
  if (!s.includes('\\')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    let c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      c = s[++i]!;
      if (c === 'u') {
        const hex = s.slice(i + 1, i + 5);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new Error(`line ${lineNumber()}: Malformed \\uxxxx encoding.`);
        out += String.fromCharCode(parseInt(hex, 16));
        i += 4;
        continue;
      }
      c = c === 't' ? '\t' : c === 'r' ? '\r' : c === 'n' ? '\n' : c === 'f' ? '\f' : c;
    }
    out += c;
  }
  return out;
}

/** The properties of a `.properties` text, as java.util.Properties.load reads them (a later key wins). */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const { line, at } of logicalLines(text)) {
    const lineNumber = (): number => lineNumberAt(text, at);
    let keyLength = 0;
    let valueStart = line.length;
    let hasSeparator = false;
    let precedingBackslash = false;
    while (keyLength < line.length) {
      const c = line[keyLength]!;
      if ((c === '=' || c === ':') && !precedingBackslash) {
        valueStart = keyLength + 1;
        hasSeparator = true;
        break;
      }
      if (isWhitespace(c) && !precedingBackslash) {
        valueStart = keyLength + 1;
        break;
      }
      precedingBackslash = c === '\\' ? !precedingBackslash : false;
      keyLength++;
    }
    while (valueStart < line.length) {
      const c = line[valueStart]!;
      if (!isWhitespace(c)) {
        if (!hasSeparator && (c === '=' || c === ':')) hasSeparator = true;
        else break;
      }
      valueStart++;
    }
    out.set(unescape(line.slice(0, keyLength), lineNumber), unescape(line.slice(valueStart), lineNumber));
  }
  return out;
}

/** Java's String.trim: every character up to U+0020 off both ends (JavaScript's trim takes others). */
export function javaTrim(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
}
