/**
 * Brook's CLI next to kcat (librdkafka) on Brook's broker: records kcat produced with
 * headers, keys and a tombstone print the same through `brook consume -f TEMPLATE` as
 * through `kcat -C -f TEMPLATE`; records `brook produce` sent with --header, --partition
 * and --tombstone read back the same through kcat; `brook cluster info` prints kcat -L's
 * broker and topic lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { projectRoot, startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { kcatAvailable } from '../support/clients/kcat.js';

const BIN = join(projectRoot, 'bin', 'brook');
/** Key, value, value length, partition, offset, headers; -Z makes kcat print nulls as "NULL", so keep to non-null keys. */
const TEMPLATE = '%k|%s|%S|%p|%o|%h\\n';

async function kcat(args: readonly string[], input?: string) {
  const r = await runProcess('kcat', args, { input, timeoutMs: 30_000 });
  assert.equal(r.code, 0, `kcat ${args.join(' ')}: ${r.stderr}`);
  return r;
}

async function brook(args: readonly string[], input?: string) {
  const r = await runProcess(process.execPath, [BIN, ...args], { input, timeoutMs: 30_000 });
  assert.equal(r.code, 0, `brook ${args.join(' ')}: ${r.stderr}`);
  return r;
}

const sorted = (text: string): string[] => text.split('\n').filter((l) => l !== '').sort();

test('brook consume -f and kcat -C -f print the same for records with keys, headers and a tombstone, both ways round', { timeout: 120_000 }, async (t) => {
  assert.ok(kcatAvailable(), 'kcat is needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook();
  cleanup.add('stop broker', () => broker.stop());
  const b = broker.bootstrap;
  await brook(['topics', 'create', 'by-kcat', '--partitions', '2', '-b', b]);
  await brook(['topics', 'create', 'by-brook', '--partitions', '2', '-b', b]);

  // kcat -P: key:value lines, two headers on every record, -Z: the empty value is a tombstone.
  await kcat(['-b', b, '-P', '-t', 'by-kcat', '-K:', '-Z', '-H', 'src=kcat', '-H', 'n=1', '-p', '1'], 'k1:v1\nk2:\nk3:vä3\n');
  const kcatOut = await kcat(['-b', b, '-C', '-t', 'by-kcat', '-o', 'beginning', '-e', '-q', '-f', TEMPLATE]);
  const brookOut = await brook(['consume', 'by-kcat', '-o', 'earliest', '-e', '-f', TEMPLATE, '-b', b]);
  assert.deepEqual(sorted(brookOut.stdout), sorted(kcatOut.stdout));
  assert.ok(brookOut.stdout.includes('k2||-1|1|1|src=kcat,n=1'), `the tombstone: ${brookOut.stdout}`);

  // brook produce: the same through Brook's CLI, read by kcat.
  await brook(['produce', 'by-brook', '--key-separator', ':', '--tombstone', '-H', 'src=kcat', '-H', 'n=1', '-p', '1', '-b', b], 'k1:v1\nk2:\nk3:vä3\n');
  const kcatReads = await kcat(['-b', b, '-C', '-t', 'by-brook', '-o', 'beginning', '-e', '-q', '-f', TEMPLATE]);
  assert.deepEqual(sorted(kcatReads.stdout), sorted(kcatOut.stdout), 'kcat reads what brook produced as what it produced itself');

  // The tail: -o -2 on partition 1, both tools.
  const kcatTail = await kcat(['-b', b, '-C', '-t', 'by-kcat', '-p', '1', '-o', '-2', '-e', '-q', '-f', '%o %k\\n']);
  const brookTail = await brook(['consume', 'by-kcat', '-p', '1', '-o', '-2', '-e', '-f', '%o %k\\n', '-b', b]);
  assert.equal(brookTail.stdout, kcatTail.stdout);

  // cluster info: after its first line, kcat -L's lines (topics in Brook's order: by name).
  const kcatL = await kcat(['-b', b, '-L']);
  const info = await brook(['cluster', 'info', '-b', b]);
  const blocks = (text: string): string[] => text.split(/\n(?= {2}topic )/).map((x) => x.trim()).sort();
  const [, ...brookLines] = info.stdout.trim().split('\n');
  const [, ...kcatLines] = kcatL.stdout.trim().split('\n');
  assert.deepEqual(blocks(brookLines.join('\n')), blocks(kcatLines.join('\n')));
});
