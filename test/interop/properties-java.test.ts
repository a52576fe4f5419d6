/**
 * Brook's .properties parser (src/util/java-properties.ts) against Java's own java.util.Properties,
 * which Kafka reads server.properties with: the tricky cases of
 * test/support/properties/cases.ts, then a few hundred random texts made of the characters
 * the grammar cares about. One JVM reads them all (test/support/properties/PropertiesOracle.java,
 * run as a single-file program).
 *
 * Needs Java 11+.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runProcess } from '../support/clients/run.js';
import { tempDir } from '../support/brook.js';
import { PROPERTIES_CASES } from '../support/properties/cases.js';
import { parseProperties } from '../../src/util/java-properties.js';

const ORACLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'test', 'support', 'properties', 'PropertiesOracle.java');

type Outcome = { entries: [string, string][] } | { error: string };

function brook(text: string): Outcome {
  try {
    return { entries: [...parseProperties(text)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Java's outcome for each text (written as ISO-8859-1: the texts are ASCII, any \u escapes stay escapes). */
async function java(texts: readonly string[]): Promise<Outcome[]> {
  const dir = tempDir('brook-properties-');
  try {
    const files = texts.map((text, i) => {
      const file = join(dir.path, `${i}.properties`);
      writeFileSync(file, text, 'latin1');
      return file;
    });
    const result = await runProcess('java', [ORACLE, ...files], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Outcome);
  } finally {
    dir.remove();
  }
}

/** Errors are compared by kind: both sides throw, with Java's message inside Brook's. */
function same(b: Outcome, j: Outcome): boolean {
  if ('error' in j) return 'error' in b && b.error.includes(j.error);
  return 'entries' in b && JSON.stringify(b.entries) === JSON.stringify(j.entries);
}

test('the tricky .properties cases parse as java.util.Properties parses them', { timeout: 120_000 }, async () => {
  const outcomes = await java(PROPERTIES_CASES.map((c) => c.text));
  PROPERTIES_CASES.forEach((c, i) => {
    const b = brook(c.text);
    assert.ok(same(b, outcomes[i]!), `${c.name}\n  java:  ${JSON.stringify(outcomes[i])}\n  brook: ${JSON.stringify(b)}`);
  });
});

test('400 random texts of separators, escapes, comments, whitespace and line ends parse as java.util.Properties parses them', { timeout: 120_000 }, async () => {
  // Deterministic (xorshift32), so a failure can be replayed; fragments rather than single
  // characters, so that escapes, \r\n and \u sequences come up often.
  const fragments = ['a', 'b', 'k', '=', ':', ' ', '  ', '\t', '\f', '\\', '\\\\', '\\\n', '\n', '\r', '\r\n', '#', '!', '\\u0041', '\\u00', '\\t', '\\n', '\\=', '\\ ', 'x\\\n  y', '0', 'u', 'F'];
  let x = 0x9e3779b9;
  const random = (n: number): number => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
  const texts = Array.from({ length: 400 }, () => Array.from({ length: 1 + random(30) }, () => fragments[random(fragments.length)]!).join(''));
  const outcomes = await java(texts);
  const differing = texts.flatMap((text, i) => {
    const b = brook(text);
    return same(b, outcomes[i]!) ? [] : [`${JSON.stringify(text)}\n  java:  ${JSON.stringify(outcomes[i])}\n  brook: ${JSON.stringify(b)}`];
  });
  assert.deepEqual(differing, []);
  assert.ok(outcomes.some((o) => 'error' in o) && outcomes.some((o) => 'entries' in o && o.entries.length > 1), 'the texts exercise both errors and several entries');
});
