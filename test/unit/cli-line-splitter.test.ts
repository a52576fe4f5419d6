/**
 * LineSplitter (brook produce's stdin reader) splits lines exactly as node:readline does —
 * "\n", "\r\n" and lone "\r" end a line, a last unterminated line counts — however the
 * input is cut into chunks, multi-byte characters included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { LineSplitter } from '../../src/cli/line-splitter.js';

async function readlineLines(bytes: Buffer): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: Readable.from([bytes]), crlfDelay: Infinity })) lines.push(line);
  return lines;
}

function splitterLines(bytes: Buffer, cuts: number[]): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((line) => lines.push(line));
  let from = 0;
  for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
    splitter.push(bytes.subarray(from, cut));
    from = cut;
  }
  splitter.push(bytes.subarray(from));
  splitter.end();
  return lines;
}

test('LineSplitter: hand cases', () => {
  assert.deepEqual(splitterLines(Buffer.from('a\nb\n'), []), ['a', 'b']);
  assert.deepEqual(splitterLines(Buffer.from('a\n\nb'), []), ['a', '', 'b']);
  assert.deepEqual(splitterLines(Buffer.from('a\r\nb\rc'), []), ['a', 'b', 'c']);
  assert.deepEqual(splitterLines(Buffer.from('a\r\nb'), [2]), ['a', 'b'], 'a CRLF cut between its bytes is one line end');
  assert.deepEqual(splitterLines(Buffer.from('héllo\nwörld'), [2, 8]), ['héllo', 'wörld'], 'a character cut between chunks');
  assert.deepEqual(splitterLines(Buffer.from(''), []), []);
});

test('LineSplitter: the same lines as readline for any input and chunking', async () => {
  const piece = fc.constantFrom('a', 'key:value', 'é', '€', '\n', '\r', '\r\n', '\n\n', ' ');
  await fc.assert(fc.asyncProperty(fc.array(piece, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 6 }), async (pieces, cuts) => {
    const bytes = Buffer.from(pieces.join(''), 'utf8');
    assert.deepEqual(splitterLines(bytes, cuts), await readlineLines(bytes));
  }), { numRuns: 300, seed: 7 });
});
