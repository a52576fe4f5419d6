/**
 * `brook consume`'s formatters write JSON and numbers piece by piece into the output
 * buffer; what they write must be what JSON.stringify and String() write (the oracle),
 * for keys and values that need escaping, are not valid UTF-8, or are binary.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import type { RawRecord } from '../../src/client/consumer/record-decoding.js';
import { BufferedOutput } from '../../src/cli/output.js';
import { recordFormatter, type Encoding } from '../../src/cli/record-format.js';

function collector(): { out: BufferedOutput; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, cb) { chunks.push(Buffer.from(chunk)); cb(); } });
  return { out: new BufferedOutput(stream), text: () => Buffer.concat(chunks).toString() };
}

test('BufferedOutput.integer() writes what String() does', async () => {
  const { out, text } = collector();
  const numbers = [0, 7, 10, 99, 100, -1, -10, 123_456_789, 1_796_177_820_267, 2 ** 53 - 1, -(2 ** 53 - 1), 1e16, 2 ** 60, 0.5];
  for (const n of numbers) { out.integer(n); out.ascii(' '); }
  await out.flush();
  assert.equal(text(), numbers.map((n) => `${String(n)} `).join(''));
});

test('--format json writes what JSON.stringify does, for every encoding and awkward bytes', async () => {
  const values = ['plain', '', 'quo"te', 'back\\slash', 'ctl\x01\x1f', 'tab\t', 'ünï', '\x7f', 'emoji 😀'].map((s) => Buffer.from(s));
  values.push(Buffer.from([0xff, 0xfe, 0x41]));
  for (const enc of ['utf8', 'hex', 'base64'] as Encoding[]) {
    const { out, text } = collector();
    const format = recordFormatter('json', { key: enc, value: enc });
    let expected = '';
    for (const [i, v] of values.entries()) {
      const buffer = Buffer.concat([Buffer.from('k"'), v, Buffer.from('yy')]);
      const record: RawRecord = {
        topic: 'tö"pic', partition: 3, offset: i * 1_000, buffer, keyStart: 0, keyLength: i % 2 === 1 ? -1 : 2,
        valueStart: 2, valueLength: v.length, headersStart: 0, headerCount: 0, timestamp: i - 1, timestampType: 'CreateTime', leaderEpoch: 0,
      };
      format(record, out);
      expected += `${JSON.stringify({
        topic: record.topic, partition: 3, offset: record.offset, key: i % 2 === 1 ? null : Buffer.from('k"').toString(enc), value: v.toString(enc), timestamp: record.timestamp,
      })}\n`;
    }
    await out.flush();
    assert.equal(text(), expected, enc);
  }
});
