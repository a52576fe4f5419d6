/**
 * Tricky `.properties` texts and what java.util.Properties.load makes of them (checked
 * against Java itself by test/interop/properties-java.test.ts; used without Java by
 * test/unit/cli-properties.test.ts).
 */
export interface PropertiesCase {
  readonly name: string;
  readonly text: string;
  /** The entries, sorted by key; or the error Java's load throws. */
  readonly expected: readonly (readonly [string, string])[] | { readonly error: RegExp };
}

export const PROPERTIES_CASES: readonly PropertiesCase[] = [
  {
    name: 'the three separators, whitespace around them, leading whitespace, trailing whitespace kept',
    text: 'equals=1\ncolon:2\nspace 3\n   indented = 4\nsep\t:\tvalue with : and = inside  \nboth =: 5\nspaces   6\n\f\tff=7\n',
    expected: [['both', ': 5'], ['colon', '2'], ['equals', '1'], ['ff', '7'], ['indented', '4'], ['sep', 'value with : and = inside  '], ['space', '3'], ['spaces', '6']],
  },
  {
    name: 'comments with # and !, indented, not continued by a trailing backslash; blank and whitespace-only lines',
    text: '# a comment\n! another\n   # indented comment\n#ends with a backslash \\\nnext=1\n\n   \t\nlast=2',
    expected: [['last', '2'], ['next', '1']],
  },
  {
    name: 'continuation lines: leading whitespace of the continued line dropped, # inside a continuation is text',
    text: 'list=first,\\\n        second,\\\n\t third\nhash=a\\\n#b\ntwo.backslashes=c:\\\\\\\\\nafter=x\nblank.after=y\\\n\nz=1\neof=last\\',
    expected: [['after', 'x'], ['blank.after', 'y'], ['eof', 'last'], ['hash', 'a#b'], ['list', 'first,second,third'], ['two.backslashes', 'c:\\\\'], ['z', '1']],
  },
  {
    name: 'escapes in keys and values: \\t \\n \\r \\f \\uXXXX, escaped separators and spaces, any other escaped character',
    text: 'tab=a\\tb\nnl=a\\nb\\rc\\fd\nuni=\\u0041\\u00e9\\u20AC\neq\\=key=v1\ncolon\\:key:v2\nspace\\ key v3\n\\#not.comment=v4\n\\!bang=v5\nother=\\q\\z\\"\nvalue.equals==x\n',
    expected: [['!bang', 'v5'], ['#not.comment', 'v4'], ['colon:key', 'v2'], ['eq=key', 'v1'], ['nl', 'a\nb\rc\fd'], ['other', 'qz"'], ['space key', 'v3'], ['tab', 'a\tb'], ['uni', 'Aé€'], ['value.equals', '=x']],
  },
  {
    name: 'a key alone has the empty value; an empty key; a later key wins',
    text: 'lonely\nlonely.spaces   \n=no key\ndup=1\ndup=2\n',
    expected: [['', 'no key'], ['dup', '2'], ['lonely', ''], ['lonely.spaces', '']],
  },
  {
    name: 'line ends: \\r\\n, a lone \\r, and a continuation across \\r\\n',
    text: 'a=1\r\nb=2\rc=3\r\ncont=x\\\r\n   y\r\n',
    expected: [['a', '1'], ['b', '2'], ['c', '3'], ['cont', 'xy']],
  },
  {
    name: 'a comment ending in a backslash before a line holding a backslash alone',
    text: '# c \\\n\\\nb : x \\\n   y\n',
    expected: [['b', 'x y']],
  },
  {
    name: 'a malformed \\uXXXX escape is an error',
    text: 'good=1\nbad=\\u12G4\n',
    expected: { error: /Malformed \\uxxxx encoding/ },
  },
  {
    name: 'a \\u escape cut short by the end of the line is an error',
    text: 'bad=\\u12\n',
    expected: { error: /Malformed \\uxxxx encoding/ },
  },
];
