/**
 * brook/kafkajs's Kafka class: the client configuration (brokers as an async function, SASL
 * PLAIN login, connection errors), logging through `logCreator` at `logLevel`, and Brook's
 * protocol errors as KafkaJS's errors, each compared with what KafkaJS 2.2.4 itself gives
 * (its error table for `type`, `code` and `retriable`; its own client's failures).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import * as real from 'kafkajs';
import { ErrorCode, KafkaProtocolError } from '../../src/protocol/errors.js';
import { Kafka, KafkaJSError, KafkaJSProtocolError, logLevel, toKafkaJSError, type LogEntry } from '../../src/kafkajs/index.js';
import { saslBroker, saslPort } from '../support/sasl-broker.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 60_000 };
const kafkajsErrors = createRequire(import.meta.url)('kafkajs/src/protocol/error.js') as {
  createErrorFromCode(code: number): { type: string; code: number; retriable: boolean; message: string };
  errorCodes: { code: number }[];
};

test('Brook protocol errors become KafkaJSProtocolError with the type, code and retriable of every KafkaJS error code', T, () => {
  assert.ok(kafkajsErrors.errorCodes.length > 60);
  for (const { code } of kafkajsErrors.errorCodes) {
    if (code === ErrorCode.SASL_AUTHENTICATION_FAILED || code === ErrorCode.OFFSET_OUT_OF_RANGE) continue; // their own classes, below
    const expected = kafkajsErrors.createErrorFromCode(code);
    const got = toKafkaJSError(new KafkaProtocolError(code));
    assert.ok(got instanceof KafkaJSProtocolError && got instanceof KafkaJSError && got instanceof Error);
    assert.deepEqual({ type: got.type, code: got.code, retriable: got.retriable, name: got.name }, { type: expected.type, code: expected.code, retriable: expected.retriable, name: 'KafkaJSProtocolError' }, `code ${code}`);
    // The message is Kafka's wording of the error (Brook's table), not KafkaJS's own sentences.
    assert.ok(got.message.length > 0);
  }
  const sasl = toKafkaJSError(new KafkaProtocolError(ErrorCode.SASL_AUTHENTICATION_FAILED));
  assert.equal(sasl.name, 'KafkaJSSASLAuthenticationError');
  assert.equal(toKafkaJSError(new KafkaProtocolError(ErrorCode.OFFSET_OUT_OF_RANGE)).name, 'KafkaJSOffsetOutOfRange');
});

test('brokers as an async function, SASL PLAIN, logCreator; a wrong password fails as in KafkaJS', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await saslBroker();
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = `127.0.0.1:${saslPort(broker)}`;
  const entries: LogEntry[] = [];
  let calls = 0;
  const kafka = new Kafka({
    clientId: 'sasl-app', brokers: async () => { calls++; return [bootstrap]; }, sasl: { mechanism: 'plain', username: 'bob', password: 'bob-secret' },
    logLevel: logLevel.INFO, logCreator: (level) => { assert.equal(level, logLevel.INFO); return (entry) => entries.push(entry); },
  });
  const admin = kafka.admin();
  await admin.connect();
  assert.equal(calls, 1);
  await admin.createTopics({ topics: [{ topic: 'x', numPartitions: 1 }] });
  assert.ok((await admin.listTopics()).includes('x'));
  await admin.disconnect();
  kafka.logger().info('hello', { a: 1 });
  kafka.logger().debug('hidden');
  const hello = entries.find((e) => e.log.message === 'hello')!;
  assert.deepEqual({ level: hello.level, label: hello.label, logger: hello.log.logger, a: hello.log['a'] }, { level: logLevel.INFO, label: 'INFO', logger: 'kafkajs', a: 1 });
  assert.equal(entries.some((e) => e.log.message === 'hidden'), false);

  const wrong = { brokers: [bootstrap], sasl: { mechanism: 'plain' as const, username: 'bob', password: 'nope' }, logLevel: logLevel.NOTHING };
  const theirsAdmin = new real.Kafka({ ...wrong, retry: { retries: 0 } } as never).admin();
  const theirs = await theirsAdmin.connect().catch((e: Error) => e);
  const ours = await new Kafka(wrong).admin().connect().catch((e: Error) => e);
  assert.ok(theirs instanceof Error && ours instanceof Error);
  assert.equal(ours.name, theirs.name);
  assert.equal((ours as KafkaJSError).retriable, (theirs as real.KafkaJSError).retriable);
});

test('SASL OAUTHBEARER and AWS are refused with the reason, before any connection', T, async () => {
  const oauth = { brokers: ['127.0.0.1:1'], sasl: { mechanism: 'oauthbearer', oauthBearerProvider: async () => ({ value: 'token' }) }, logLevel: logLevel.NOTHING };
  const aws = { brokers: ['127.0.0.1:1'], sasl: { mechanism: 'aws', authorizationIdentity: 'id', accessKeyId: 'k', secretAccessKey: 's' }, logLevel: logLevel.NOTHING };
  for (const [config, pattern] of [[oauth, /OAUTHBEARER.*Brook's client and broker do not implement it/], [aws, /AWS.*Amazon MSK's IAM authentication, not a Kafka mechanism/]] as const) {
    const err = await new Kafka(config as never).producer().connect().catch((e: Error) => e);
    assert.ok(err instanceof KafkaJSError, String(err));
    assert.equal(err.name, 'KafkaJSNonRetriableError');
    assert.match(err.message, pattern);
  }
});

test('a broker that does not answer: KafkaJSConnectionError-like failure, retriable as KafkaJS reports it', T, async () => {
  const ours = await new Kafka({ brokers: ['127.0.0.1:1'], connectionTimeout: 200, logLevel: logLevel.NOTHING }).admin().connect().catch((e: Error) => e);
  assert.ok(ours instanceof KafkaJSError, String(ours));
  assert.equal(ours.name, 'KafkaJSConnectionError');
  assert.equal(ours.retriable, true);
});

test('every name KafkaJS 2.2.4 exports is exported, its enums with the same values', T, async () => {
  const ours = await import('../../src/kafkajs/index.js') as Record<string, unknown>;
  // The package's CommonJS exports object, all of it (an ES import sees only the names Node detects).
  const theirs = createRequire(import.meta.url)('kafkajs') as Record<string, unknown>;
  assert.ok(Object.keys(theirs).length > 30);
  const missing = Object.keys(theirs).filter((name) => !(name in ours));
  assert.deepEqual(missing, []);
  for (const name of ['logLevel', 'CompressionTypes', 'ConfigResourceTypes', 'ConfigSource', 'AclResourceTypes', 'AclOperationTypes', 'AclPermissionTypes', 'ResourcePatternTypes']) {
    assert.deepEqual({ ...(ours[name] as object) }, { ...(theirs[name] as object) }, name);
  }
  // Applications register codecs for Snappy, LZ4 and ZSTD at start-up: the assignment must not throw.
  const codecs = ours['CompressionCodecs'] as Record<number, unknown>;
  codecs[2] = () => ({ compress: async () => Buffer.alloc(0), decompress: async () => Buffer.alloc(0) });
});
