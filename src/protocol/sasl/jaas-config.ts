/**
 * Kafka's `sasl.jaas.config` value: `<LoginModuleClass> <controlFlag> (<key>=<value>)*;`,
 * tokenized as Kafka's JaasConfig does with java.io.StreamTokenizer: whitespace is 0-32;
 * `;` and `=` stand alone; `"` and `'` quote, with Java's backslash escapes inside (`\"`,
 * `\\`, `\n`, octal...) and a line end ending the quote; `/` starts a comment (`//`, `/* *\/`,
 * and a lone `/` to the line's end); every other character up to 255 builds words, and so
 * does every character above it.
 */

export interface JaasEntry {
  readonly loginModule: string;
  readonly controlFlag: 'REQUIRED' | 'REQUISITE' | 'SUFFICIENT' | 'OPTIONAL';
  readonly options: ReadonlyMap<string, string>;
}

const EOF = -1;

interface Token {
  /** The character of an ordinary token or a quote, 'w' for a word, or EOF. */
  readonly type: string | typeof EOF;
  /** The text of a word or quoted string; null for ordinary characters. */
  readonly sval: string | null;
}

const isWhitespace = (c: number): boolean => c <= 32;
const isWordChar = (c: number): boolean =>
  c > 255 || ((c >= 33 && c <= 128) || (c >= 160 && c <= 255)) && c !== 59 /* ; */ && c !== 61 /* = */ && c !== 47 /* / */ && c !== 34 && c !== 39;

class Tokenizer {
  private i = 0;

  constructor(private readonly text: string) {}

  private skipToLineEnd(): void {
    while (this.i < this.text.length && this.text[this.i] !== '\n' && this.text[this.i] !== '\r') this.i++;
  }

  next(): Token {
    const s = this.text;
    for (;;) {
      while (this.i < s.length && isWhitespace(s.charCodeAt(this.i))) this.i++;
      if (this.i >= s.length) return { type: EOF, sval: null };
      const c = s.charCodeAt(this.i);
      if (isWordChar(c)) {
        const start = this.i;
        while (this.i < s.length && isWordChar(s.charCodeAt(this.i))) this.i++;
        return { type: 'w', sval: s.slice(start, this.i) };
      }
      if (c === 34 || c === 39) return this.quoted(s[this.i++]!);
      if (c === 47) {
        this.i++;
        if (s[this.i] === '*') {
          const end = s.indexOf('*/', this.i + 1);
          // An unterminated /* comment runs to the end (StreamTokenizer answers EOF).
          this.i = end < 0 ? s.length : end + 2;
        } else {
          this.skipToLineEnd();
        }
        continue;
      }
      this.i++;
      return { type: String.fromCharCode(c), sval: null };
    }
  }

  /** A quoted string, as StreamTokenizer reads one: escapes resolved, ended by the quote, a line end or the text's end. */
  private quoted(quote: string): Token {
    const s = this.text;
    let out = '';
    while (this.i < s.length) {
      const ch = s[this.i]!;
      if (ch === quote) {
        this.i++;
        break;
      }
      if (ch === '\n' || ch === '\r') break;
      this.i++;
      if (ch !== '\\' || this.i >= s.length) {
        out += ch;
        continue;
      }
      const e = s[this.i++]!;
      if (e >= '0' && e <= '7') {
        // Up to three octal digits, the first at most 3 when there are three.
        let value = e.charCodeAt(0) - 48;
        const limit = e <= '3' ? 2 : 1;
        for (let k = 0; k < limit && this.i < s.length && s[this.i]! >= '0' && s[this.i]! <= '7'; k++) value = value * 8 + s.charCodeAt(this.i++) - 48;
        out += String.fromCharCode(value);
        continue;
      }
      out += ({ a: '\u0007', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\u000b' } as Record<string, string>)[e] ?? e;
    }
    return { type: quote, sval: out };
  }
}

function controlFlag(flag: string | null): JaasEntry['controlFlag'] {
  if (flag === null) throw new Error('Login module control flag is not available in the JAAS config');
  const upper = flag.toUpperCase();
  if (upper === 'REQUIRED' || upper === 'REQUISITE' || upper === 'SUFFICIENT' || upper === 'OPTIONAL') return upper;
  throw new Error(`Invalid login module control flag '${flag}' in JAAS config`);
}

/** The entries of a sasl.jaas.config value; throws with Kafka's message where Kafka refuses it. */
export function parseJaasConfig(text: string): JaasEntry[] {
  const tokens = new Tokenizer(text);
  const entries: JaasEntry[] = [];
  for (let t = tokens.next(); t.type !== EOF; t = tokens.next()) {
    const loginModule = t.sval;
    const flagToken = tokens.next();
    if (flagToken.type === EOF) throw new Error('Login module control flag not specified in JAAS config');
    const flag = controlFlag(flagToken.sval);
    const options = new Map<string, string>();
    let token = tokens.next();
    while (token.type !== EOF && token.type !== ';') {
      const key = token.sval;
      const eq = tokens.next();
      const value = eq.type === '=' ? tokens.next() : null;
      if (value === null || value.type === EOF || value.sval === null) throw new Error(`Value not specified for key '${key}' in JAAS config`);
      options.set(key ?? 'null', value.sval);
      token = tokens.next();
    }
    if (token.type !== ';') throw new Error('JAAS config entry not terminated by semi-colon');
    entries.push({ loginModule: loginModule ?? 'null', controlFlag: flag, options });
  }
  if (entries.length === 0) throw new Error('Login module not specified in JAAS config');
  return entries;
}

/** Kafka's login modules that carry a username and password, for PLAIN and SCRAM alike (either serves both, as in Kafka). */
export const PASSWORD_LOGIN_MODULES: ReadonlySet<string> = new Set([
  'org.apache.kafka.common.security.plain.PlainLoginModule',
  'org.apache.kafka.common.security.scram.ScramLoginModule',
]);

/**
 * The one entry of a `sasl.jaas.config` value (a client's, or a broker's
 * `listener.name.<l>.<mechanism>.sasl.jaas.config`), which must be one of
 * PASSWORD_LOGIN_MODULES; throws with Kafka's message for several entries.
 */
export function passwordLoginEntry(text: string): JaasEntry {
  const entries = parseJaasConfig(text);
  if (entries.length !== 1) throw new Error(`JAAS config property contains ${entries.length} login modules, should be 1 module`);
  const entry = entries[0]!;
  if (!PASSWORD_LOGIN_MODULES.has(entry.loginModule)) {
    throw new Error(`login module ${entry.loginModule} is not supported (${[...PASSWORD_LOGIN_MODULES].join(' or ')})`);
  }
  if (entry.options.get('tokenauth')?.toLowerCase() === 'true') throw new Error('tokenauth (delegation tokens) is not supported');
  return entry;
}
