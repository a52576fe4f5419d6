/**
 * Kafka's regular expressions are RE2/J patterns matched against whole names
 * (`matcher(name).matches()`): consumer-group topic subscriptions (KIP-848) and
 * ListTransactions' TransactionalIdPattern (KIP-1152). Brook runs them as JavaScript RegExps
 * anchored as `^(?:re)$`, after refusing what RE2 refuses (look-arounds, backreferences) and
 * taking RE2's leading flag group (`(?i)`, `(?s)`, `(?m)`) as RegExp flags and `(?P<name>`
 * as a named group. Where the two still differ: RE2 accepts inline flags elsewhere than at
 * the start, POSIX classes (`[[:alpha:]]`), `\Q...\E`, `\pL` without braces and `\z`, which
 * RegExp refuses; RegExp accepts a few forms RE2 refuses (e.g. `\cX`, octal escapes); and
 * RegExp's `\w`, `\d` and `.` are ASCII/UTF-16 where RE2's are byte/UTF-8 based, which topic
 * names and transactional ids rarely show.
 */

/** A pattern RE2 (as Brook approximates it) refuses; the message says why. */
export class InvalidPatternError extends Error {
  readonly code = 'ERR_INVALID_PATTERN' as const;
}

const LOOK_AROUND = /\(\?<?[=!]/;
const BACKREFERENCE = /\\(?:[1-9]|k<)/;

/** The pattern as a RegExp matching whole strings; throws InvalidPatternError. */
export function compileRe2Pattern(pattern: string): RegExp {
  // Escaped backslashes first, so that `\\1` is not read as a backreference.
  const unescaped = pattern.replace(/\\\\/g, '');
  if (LOOK_AROUND.test(unescaped)) throw new InvalidPatternError('look-around is not supported');
  if (BACKREFERENCE.test(unescaped)) throw new InvalidPatternError('backreferences are not supported');
  let body = pattern;
  let flags = '';
  const leading = /^\(\?([ims]+)\)/.exec(body);
  if (leading !== null) {
    flags = [...new Set(leading[1])].join('');
    body = body.slice(leading[0].length);
  }
  body = body.replace(/\(\?P</g, '(?<');
  try {
    return new RegExp(`^(?:${body})$`, flags);
  } catch (err) {
    throw new InvalidPatternError(err instanceof Error ? err.message : String(err));
  }
}
