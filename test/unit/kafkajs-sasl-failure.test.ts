/**
 * A failed SASL login comes out of brook/kafkajs as KafkaJS 2.2.4 words it: a
 * KafkaJSSASLAuthenticationError whose message starts "SASL PLAIN authentication failed",
 * "SASL SCRAM SHA256 authentication failed" or "SASL SCRAM SHA512 authentication failed"
 * (applications and KafkaJS's own tests match on it). The real KafkaJS producer logs in with
 * the same wrong passwords first: the oracle for the error's name and its prefix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as real from 'kafkajs';
import { Kafka, logLevel } from '../../src/kafkajs/index.js';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';

const T = { timeout: 60_000 };

test('a failed SASL login (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512) is reported with KafkaJS\'s error and wording', T, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await startBrook({
    listeners: 'SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    listenerSaslJaasConfig: { SASL_PLAINTEXT: { PLAIN: 'org.apache.kafka.common.security.plain.PlainLoginModule required user_alice="alice-secret";' } },
  });
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = `127.0.0.1:${broker.listeners.find((l) => l.securityProtocol === 'SASL_PLAINTEXT')!.port}`;
  const failure = async (producer: { connect(): Promise<void>; disconnect(): Promise<void> }): Promise<[string, string]> => {
    try {
      await producer.connect();
      return ['connected', ''];
    } catch (err) {
      return [(err as Error).name, (err as Error).message];
    } finally {
      await producer.disconnect().catch(() => undefined);
    }
  };
  for (const [mechanism, prefix] of [['plain', 'SASL PLAIN authentication failed'], ['scram-sha-256', 'SASL SCRAM SHA256 authentication failed'], ['scram-sha-512', 'SASL SCRAM SHA512 authentication failed']] as const) {
    const sasl = { mechanism, username: 'alice', password: 'wrong' } as const;
    const [theirName, theirMessage] = await failure(new real.Kafka({ brokers: [bootstrap], sasl: sasl as real.SASLOptions, logLevel: real.logLevel.NOTHING, retry: { retries: 0 } }).producer({ createPartitioner: real.Partitioners.DefaultPartitioner }));
    assert.ok(theirMessage.startsWith(prefix), `KafkaJS says: ${theirMessage}`);
    const [ourName, ourMessage] = await failure(new Kafka({ brokers: [bootstrap], sasl, logLevel: logLevel.NOTHING, retry: { retries: 0 } }).producer());
    assert.equal(ourName, theirName, mechanism);
    assert.ok(ourMessage.startsWith(`${prefix}: `), `brook/kafkajs says: ${ourMessage}`);
  }
});
