/**
 * The librdkafka the Python peers (test/support/python, confluent-kafka) run with. The interop
 * tests that prove its KIP-848 consumer and its SASL/SCRAM login against Brook were written
 * against librdkafka 2.16 (the wheel of confluent-kafka 2.16.x bundles it; `.ci/run` pins
 * `confluent-kafka==2.16.*`): another one behaves differently in what they check (its
 * consumer protocol was Early Access from 2.4 and production-ready from 2.12 only), so they
 * refuse to run with it rather than quietly prove something else.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

/** The librdkafka minor the tests need ("2.16"). */
export const LIBRDKAFKA_MINOR = '2.16';

export interface ConfluentKafkaVersions {
  /** confluent_kafka.version(), e.g. "2.16.1". */
  readonly confluentKafka: string;
  /** confluent_kafka.libversion()[0], the bundled librdkafka, e.g. "2.16.0". */
  readonly librdkafka: string;
}

let cached: ConfluentKafkaVersions | Error | undefined;

/** The installed versions, or the error that says why python3 could not tell them. */
export function confluentKafkaVersions(): ConfluentKafkaVersions | Error {
  if (cached !== undefined) return cached;
  // version() is a (string, int) tuple in some releases and a string in others (2.16.1).
  const script = 'import json, confluent_kafka as c; v = c.version(); print(json.dumps([v[0] if isinstance(v, tuple) else v, c.libversion()[0]]))';
  const r = spawnSync('python3', ['-c', script], { encoding: 'utf8', timeout: 30_000 });
  if (r.error !== undefined || r.status !== 0) {
    cached = new Error(`python3 cannot import confluent_kafka (pip install 'confluent-kafka==${LIBRDKAFKA_MINOR}.*'): ${r.error?.message ?? r.stderr.trim()}`);
  } else {
    const [confluentKafka, librdkafka] = JSON.parse(r.stdout) as [string, string];
    cached = { confluentKafka, librdkafka };
  }
  return cached;
}

/** Fails, saying what is installed and what to install, unless librdkafka is 2.16.x. */
export function assertLibrdkafka216(): ConfluentKafkaVersions {
  const v = confluentKafkaVersions();
  if (v instanceof Error) throw v;
  assert.ok(v.librdkafka.startsWith(`${LIBRDKAFKA_MINOR}.`),
    `these tests need librdkafka ${LIBRDKAFKA_MINOR}.x; python3's confluent-kafka ${v.confluentKafka} bundles librdkafka ${v.librdkafka} (pip install 'confluent-kafka==${LIBRDKAFKA_MINOR}.*')`);
  return v;
}
