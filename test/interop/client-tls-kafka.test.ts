/**
 * Brook's clients over TLS against Apache Kafka 4.4 with an SSL listener and a PEM keystore
 * (certificate chain then an unencrypted PKCS#8 key), the PKI made by openssl: the producer, a
 * consumer group and the admin client, and `bin/brook topics list --command-config`.
 * Kafka's TLS stack (the JDK's SSLEngine) is the oracle that Brook's client side speaks TLS
 * as a Kafka client must.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { kafkaAvailable, startKafka } from '../support/kafka/kafka-broker.js';
import { makeTestPki, opensslMissing } from '../support/tls-certs.js';
import { Admin, Consumer, Producer } from '../../src/index.js';

const skip = opensslMissing() ?? (kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath (BROOK_KAFKA=0 or missing)');

test('Brook\'s producer, consumer group, admin client and CLI over SSL against Apache Kafka 4.4 with a PEM keystore', { timeout: 180_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const kafka = await startKafka({
    sslListener: true,
    config: {
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': pki.serverEncryptedKeystore,
      'ssl.key.password': pki.serverKeyPassword,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': pki.ca,
      'num.partitions': '2',
    },
  });
  cleanup.add('stop kafka', () => kafka.stop());
  const bootstrap = `127.0.0.1:${kafka.sslPort!}`;
  const ssl = { ca: pki.caPem };

  const producer = new Producer({ bootstrapServers: bootstrap, securityProtocol: 'SSL', ssl });
  cleanup.add('close producer', () => producer.close());
  const values = Array.from({ length: 40 }, (_, i) => `k${i}`);
  await Promise.all(values.map((v) => producer.send({ topic: 'tls-kafka', key: v, value: v })));

  const consumer = new Consumer({
    bootstrapServers: bootstrap, securityProtocol: 'SSL', ssl, groupId: 'tls-kafka-group',
    autoOffsetReset: 'earliest', fetchMaxWaitMs: 100,
  });
  cleanup.add('close consumer', () => consumer.close());
  consumer.subscribe(['tls-kafka']);
  const seen: string[] = [];
  const deadline = Date.now() + 60_000;
  while (seen.length < values.length && Date.now() < deadline) {
    for (const r of await consumer.poll({ timeoutMs: 200 })) seen.push(r.value!.toString());
  }
  assert.deepEqual(seen.sort(), [...values].sort());
  assert.deepEqual(await consumer.poll({ timeoutMs: 0 }), []);
  await consumer.commitSync();

  const admin = await Admin.connect({ bootstrapServers: bootstrap, securityProtocol: 'SSL', ssl });
  cleanup.add('close admin', () => admin.close());
  const group = await admin.describeGroup('tls-kafka-group');
  assert.equal(group.state, 'Stable');
  assert.equal(group.members.length, 1);
  // The host name check is on: a name Kafka's certificate does not carry is refused.
  await assert.rejects(Admin.connect({ bootstrapServers: bootstrap, securityProtocol: 'SSL', ssl: { ...ssl, servername: 'kafka.example' }, defaultApiTimeoutMs: 5_000 }));

  const props = join(pki.dir, 'client.properties');
  writeFileSync(props, `security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=${pki.ca}\n`);
  const listed = await runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), 'topics', 'list', '-b', bootstrap, '--command-config', props], { timeoutMs: 30_000 });
  assert.equal(listed.code, 0, listed.stderr);
  assert.ok(listed.stdout.split('\n').includes('tls-kafka'), listed.stdout);
});
