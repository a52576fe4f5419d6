/**
 * Malformed input on some connections while kcat (librdkafka) works on others: the broker
 * closes the offending connections, keeps serving kcat, and loses nothing. Needs: kcat.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { startBrook } from '../support/brook.js';
import { kcatAvailable, kcatConsume, kcatProduce } from '../support/clients/kcat.js';

const GARBAGE: Buffer[] = [
  Buffer.from('7fffffff', 'hex'), // absurd size
  Buffer.from('fffffffe', 'hex'), // negative size
  Buffer.from('0000000a7fff0000000000010000', 'hex'), // unknown API key
  Buffer.from('0000000a000000630000000200000000', 'hex'), // Produce v99
  Buffer.from('0000000800030001000000', 'hex'), // truncated Metadata header
];

/** Opens a connection, writes bad bytes, resolves when the broker has closed it. */
function sendGarbage(port: number, bytes: Buffer): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port }, () => s.write(bytes));
    const timer = setTimeout(() => { s.destroy(); resolve(false); }, 5000);
    s.on('error', () => undefined);
    s.on('close', () => { clearTimeout(timer); resolve(true); });
  });
}

test('garbage on other connections does not disturb kcat producing and consuming', { timeout: 60_000 }, async () => {
  assert.ok(kcatAvailable(), 'kcat is needed (apt-get install kcat)');
  const broker = await startBrook();
  try {
    let closed = 0;
    let running = true;
    const attacker = (async () => {
      for (let i = 0; running; i++) {
        const bytes = i % 2 === 0 ? GARBAGE[(i / 2) % GARBAGE.length]! : Buffer.concat([Buffer.from('00000040', 'hex'), randomBytes(64)]);
        if (await sendGarbage(broker.port, bytes)) closed++;
      }
    })();
    const lines = Array.from({ length: 2000 }, (_, i) => `k${i % 17}:v${i}`);
    await kcatProduce(broker.bootstrap, 'steady', lines, ['-X', 'acks=all']);
    const read = await kcatConsume(broker.bootstrap, 'steady');
    running = false;
    await attacker;
    assert.equal(read.length, 2000, 'every record produced under attack is read back');
    assert.deepEqual(new Set(read.map((r) => r.value)), new Set(lines.map((l) => l.split(':')[1])));
    assert.ok(closed >= GARBAGE.length, `the broker closed ${closed} bad connections`);
  } finally {
    await broker.stop();
  }
});
