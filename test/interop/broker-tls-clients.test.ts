/**
 * Third-party clients on Brook's SSL listeners: KafkaJS (node:tls under its own
 * configuration) produces and consumes in a group; kcat (librdkafka, OpenSSL) reads metadata
 * and consumes, with and without a client certificate when the broker requires one; a
 * plaintext kcat on the TLS port fails while the others keep being served. The PKI comes
 * from openssl (test/support/tls-certs.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Kafka, logLevel } from 'kafkajs';
import { startBrook } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { kcatAvailable } from '../support/clients/kcat.js';
import { makeTestPki, opensslMissing, type TestPki } from '../support/tls-certs.js';
import type { Broker } from '../../src/broker/broker.js';

const skip = opensslMissing() ?? false;

function sslPort(broker: Broker): number {
  return broker.listeners.find((l) => l.securityProtocol === 'SSL')!.port;
}

async function sslBroker(pki: TestPki, clientAuth: 'required' | 'none'): Promise<Broker & { bootstrap: string }> {
  return startBrook({
    listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
    ssl: { keystoreType: 'PEM', keystoreLocation: pki.serverKeystore, truststoreType: 'PEM', truststoreLocation: pki.ca, clientAuth },
  });
}

function kafkaJsOverTls(bootstrap: string, pki: TestPki, withCert: boolean): Kafka {
  return new Kafka({
    clientId: 'brook-tls-kafkajs',
    brokers: [bootstrap],
    logLevel: process.env['BROOK_TEST_LOG'] ? logLevel.INFO : logLevel.NOTHING,
    connectionTimeout: 3_000,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1_000 },
    ssl: {
      ca: [pki.caPem],
      ...(withCert ? { cert: readFileSync(pki.client.cert, 'utf8'), key: readFileSync(pki.client.key, 'utf8') } : {}),
    },
  });
}

function kcat(args: readonly string[], timeoutMs = 30_000) {
  return runProcess('kcat', args, { timeoutMs });
}

test('KafkaJS produces and consumes in a group over Brook\'s SSL listener', { timeout: 90_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const broker = await sslBroker(pki, 'none');
  cleanup.add('stop broker', () => broker.stop());
  const kafka = kafkaJsOverTls(`localhost:${sslPort(broker)}`, pki, false);
  const admin = kafka.admin();
  await admin.connect();
  cleanup.add('disconnect admin', () => admin.disconnect());
  await admin.createTopics({ topics: [{ topic: 'kjs-tls', numPartitions: 3 }], waitForLeaders: true });
  const producer = kafka.producer();
  await producer.connect();
  cleanup.add('disconnect producer', () => producer.disconnect());
  const values = Array.from({ length: 30 }, (_, i) => `m${i}`);
  await producer.send({ topic: 'kjs-tls', messages: values.map((value) => ({ value })) });
  const consumer = kafka.consumer({ groupId: 'kjs-tls-group', heartbeatInterval: 500 });
  await consumer.connect();
  cleanup.add('disconnect consumer', () => consumer.disconnect());
  await consumer.subscribe({ topic: 'kjs-tls', fromBeginning: true });
  const seen: string[] = [];
  const all = new Promise<void>((resolve) => {
    void consumer.run({
      eachMessage: async ({ message }) => {
        seen.push(message.value!.toString());
        if (seen.length === values.length) resolve();
      },
    });
  });
  await all;
  assert.deepEqual(seen.sort(), [...values].sort());
  const groups = await admin.describeGroups(['kjs-tls-group']);
  assert.equal(groups.groups[0]!.state, 'Stable');
  assert.ok(broker.connectionInfo().every((c) => c.listener === 'SSL'));
});

test('kcat lists metadata and consumes over SSL; a plaintext kcat on the SSL port fails and the broker keeps serving', { timeout: 90_000, skip }, async (t) => {
  assert.ok(kcatAvailable(), 'kcat is needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const broker = await sslBroker(pki, 'none');
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = `127.0.0.1:${sslPort(broker)}`;
  const tls = ['-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${pki.ca}`];
  const produced = await runProcess('kcat', ['-b', bootstrap, ...tls, '-P', '-t', 'kcat-tls', '-X', 'acks=all'], { input: 'one\ntwo\nthree\n', timeoutMs: 30_000 });
  assert.equal(produced.code, 0, produced.stderr);
  const metadata = await kcat(['-b', bootstrap, ...tls, '-L', '-J']);
  assert.equal(metadata.code, 0, metadata.stderr);
  const m = JSON.parse(metadata.stdout) as { brokers: { name: string }[]; topics: { topic: string }[] };
  assert.deepEqual(m.brokers.map((b) => b.name), [`127.0.0.1:${sslPort(broker)}`]);
  assert.ok(m.topics.some((x) => x.topic === 'kcat-tls'));
  const consumed = await kcat(['-b', bootstrap, ...tls, '-C', '-t', 'kcat-tls', '-o', 'beginning', '-e', '-q']);
  assert.equal(consumed.code, 0, consumed.stderr);
  assert.deepEqual(consumed.stdout.trim().split('\n'), ['one', 'two', 'three']);

  // Plaintext on the TLS port: kcat cannot get metadata; the broker counts a failed handshake.
  const plaintext = await kcat(['-b', bootstrap, '-L', '-m', '3']);
  assert.notEqual(plaintext.code, 0);
  assert.ok(broker.stats.connections.failedAuthentication >= 1);
  const again = await kcat(['-b', bootstrap, ...tls, '-L', '-J']);
  assert.equal(again.code, 0, again.stderr);
  const viaPlaintextListener = await kcat(['-b', broker.bootstrap, '-L', '-J']);
  assert.equal(viaPlaintextListener.code, 0, viaPlaintextListener.stderr);
});

test('ssl.client.auth=required: kcat and KafkaJS without a certificate are refused, with one they work as User:<subject>', { timeout: 90_000, skip }, async (t) => {
  assert.ok(kcatAvailable(), 'kcat is needed for the interop suite');
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const broker = await sslBroker(pki, 'required');
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = `127.0.0.1:${sslPort(broker)}`;
  const tls = ['-X', 'security.protocol=ssl', '-X', `ssl.ca.location=${pki.ca}`];
  const withoutCert = await kcat(['-b', bootstrap, ...tls, '-L', '-m', '3']);
  assert.notEqual(withoutCert.code, 0);
  const refusedSoFar = broker.stats.connections.failedAuthentication;
  assert.ok(refusedSoFar >= 1);
  const withCert = await kcat(['-b', bootstrap, ...tls, '-X', `ssl.certificate.location=${pki.client.cert}`, '-X', `ssl.key.location=${pki.client.key}`, '-L', '-J']);
  assert.equal(withCert.code, 0, withCert.stderr);

  const refused = kafkaJsOverTls(bootstrap, pki, false).admin();
  await assert.rejects(refused.connect());
  assert.ok(broker.stats.connections.failedAuthentication > refusedSoFar);
  const admin = kafkaJsOverTls(bootstrap, pki, true).admin();
  await admin.connect();
  cleanup.add('disconnect admin', () => admin.disconnect());
  await admin.listTopics();
  const principals = new Set(broker.connectionInfo().map((c) => c.principal));
  // openssl's RFC 2253 rendering of the client's subject is the oracle.
  assert.deepEqual([...principals], [`User:${pki.client.subjectRfc2253}`]);
});
