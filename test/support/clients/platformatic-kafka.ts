/**
 * @platformatic/kafka, the major this Node supports: 2.x (the current one, what users of Node
 * 22 and 24 install) needs Node 22.22 or newer (its `engines`); older Node gets 1.35
 * (`platformatic-kafka-1`, an npm alias). Both are dev dependencies, so a run on Node 24
 * proves 2.x against Brook and a run on Node 20 proves 1.x; the tests name the version they ran.
 *
 * Typed as 2.x: the tests use the part of the API both majors share (Admin, Producer,
 * Consumer.fetch and consume()), so a call 2.x dropped fails to compile.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

type PlatformaticKafka = typeof import('@platformatic/kafka');

/** Whether this Node satisfies @platformatic/kafka 2.x's `engines` (">= 22.22.0 || >= 24.6.0"). */
export function supportsPlatformaticKafka2(version: string = process.versions.node): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major > 22 || (major === 22 && minor >= 22);
}

const PACKAGE = supportsPlatformaticKafka2() ? '@platformatic/kafka' : 'platformatic-kafka-1';

/** The module itself. */
export const platformaticKafka = await import(PACKAGE) as PlatformaticKafka;

/** Its version, e.g. "2.12.1", for test names and diagnostics. */
export const platformaticKafkaVersion: string = (JSON.parse(
  // Its `exports` hide package.json; the entry point is dist/index.js.
  readFileSync(join(dirname(createRequire(import.meta.url).resolve(PACKAGE)), '..', 'package.json'), 'utf8'),
) as { version: string }).version;

/** "@platformatic/kafka 2.12.1": how test names say which one ran. */
export const PLATFORMATIC_KAFKA = `@platformatic/kafka ${platformaticKafkaVersion}`;
