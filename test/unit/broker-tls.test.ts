/**
 * SSL listeners end to end with Brook's own clients: a PKI made by openssl (test/support/
 * tls-certs.ts), a broker with PLAINTEXT and SSL listeners at once, producers and a consumer
 * group over TLS, host name verification, mTLS (ssl.client.auth=required|requested) with the
 * principal compared to openssl's RFC 2253 rendering of the client's subject, a plaintext or
 * silent client on the TLS port refused and counted while others keep working, encrypted
 * keys, and `brook topics list --command-config` over SSL. Third-party clients over SSL
 * (KafkaJS, kcat) are in test/interop/broker-tls-clients.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot, spawnBrook, startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { makeTestPki, opensslMissing, type TestPki } from '../support/tls-certs.js';
import { Admin, Consumer, Producer, type SslOptions } from '../../src/index.js';
import type { Broker } from '../../src/broker/broker.js';
import type { BrokerSslConfig } from '../../src/broker/ssl-config.js';

const skip = opensslMissing() ?? false;

function sslPort(broker: Broker): number {
  return broker.listeners.find((l) => l.securityProtocol === 'SSL')!.port;
}

async function sslBroker(pki: TestPki, ssl: BrokerSslConfig = {}, extra: Parameters<typeof startBrook>[0] = {}): Promise<Broker & { bootstrap: string }> {
  return startBrook({
    listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
    ssl: { keystoreType: 'PEM', keystoreLocation: pki.serverKeystore, truststoreType: 'PEM', truststoreLocation: pki.ca, ...ssl },
    ...extra,
  });
}

function clientSsl(pki: TestPki, withCert: boolean, extra: SslOptions = {}): SslOptions {
  return {
    ca: pki.caPem,
    ...(withCert ? { cert: readFileSync(pki.client.cert, 'utf8'), key: readFileSync(pki.client.key, 'utf8') } : {}),
    ...extra,
  };
}

async function listTopicsOver(bootstrapServers: string, ssl: SslOptions | null): Promise<string[]> {
  const admin = await Admin.connect({
    bootstrapServers, connectTimeoutMs: 3_000, requestTimeoutMs: 3_000, defaultApiTimeoutMs: 5_000,
    ...(ssl === null ? {} : { securityProtocol: 'SSL' as const, ssl }),
  });
  try {
    return await admin.listTopics();
  } finally {
    admin.close();
  }
}

test('Brook\'s producer and a consumer group work over an SSL listener, next to a PLAINTEXT one', { timeout: 60_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const broker = await sslBroker(pki);
  cleanup.add('stop broker', () => broker.stop());
  // The host name is checked: localhost and 127.0.0.1 are both in the certificate.
  const bootstrap = `localhost:${sslPort(broker)}`;
  const ssl = clientSsl(pki, false);
  const producer = new Producer({ bootstrapServers: bootstrap, securityProtocol: 'SSL', ssl });
  cleanup.add('close producer', () => producer.close());
  const values = Array.from({ length: 50 }, (_, i) => `v${i}`);
  for (const v of values) await producer.send({ topic: 'secure', value: v });
  const consumer = new Consumer({
    bootstrapServers: `127.0.0.1:${sslPort(broker)}`, securityProtocol: 'SSL', ssl, groupId: 'tls-group',
    autoOffsetReset: 'earliest', fetchMaxWaitMs: 100, heartbeatIntervalMs: 100,
  });
  cleanup.add('close consumer', () => consumer.close());
  consumer.subscribe(['secure']);
  const seen: string[] = [];
  const deadline = Date.now() + 30_000;
  while (seen.length < values.length && Date.now() < deadline) {
    for (const r of await consumer.poll({ timeoutMs: 200 })) seen.push(r.value!.toString());
  }
  assert.deepEqual(seen, values);
  // Polling again says the last batch is finished: commitSync() then commits all of it.
  assert.deepEqual(await consumer.poll({ timeoutMs: 0 }), []);
  await consumer.commitSync();
  // The same records over PLAINTEXT, committed by the group over TLS.
  const committed = await consumer.committed([{ topic: 'secure', partition: 0 }]);
  assert.equal(committed.get('secure:0'), BigInt(values.length));
  assert.ok((await listTopicsOver(broker.bootstrap, null)).includes('secure'));
  assert.ok(broker.connectionInfo().some((c) => c.listener === 'SSL' && c.principal === 'User:ANONYMOUS'));
  assert.equal(broker.stats.connections.failedAuthentication, 0);
});

test('clients check the broker\'s certificate and host name, as Kafka\'s do by default', { timeout: 60_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const broker = await sslBroker(pki);
  cleanup.add('stop broker', () => broker.stop());
  const port = sslPort(broker);
  // A CA the broker's certificate does not chain to.
  await assert.rejects(listTopicsOver(`127.0.0.1:${port}`, { ca: readFileSync(pki.otherCa, 'utf8') }), /certificate/i);
  // A name the certificate does not carry (127.0.0.1 dialled, another name expected).
  await assert.rejects(listTopicsOver(`127.0.0.1:${port}`, clientSsl(pki, false, { servername: 'broker.example' })), /broker\.example|altnames|Hostname/i);
  // ssl.endpoint.identification.algorithm= (empty): the chain is still checked, the name not.
  assert.deepEqual(await listTopicsOver(`127.0.0.1:${port}`, clientSsl(pki, false, { servername: 'broker.example', endpointIdentificationAlgorithm: '' })), []);
  // securityProtocol SSL without ssl options uses Node's CAs, which do not include the test CA.
  await assert.rejects(listTopicsOver(`127.0.0.1:${port}`, {}), /certificate/i);
});

test('ssl.client.auth=required: a client without a certificate is refused, one with a trusted certificate gets its subject as principal', { timeout: 60_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const broker = await sslBroker(pki, { clientAuth: 'required' });
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = `127.0.0.1:${sslPort(broker)}`;
  await assert.rejects(listTopicsOver(bootstrap, clientSsl(pki, false)));
  assert.equal(broker.stats.connections.failedAuthentication >= 1, true);
  const untrusted = { ca: pki.caPem, cert: readFileSync(pki.untrustedClient.cert, 'utf8'), key: readFileSync(pki.untrustedClient.key, 'utf8') };
  const before = broker.stats.connections.failedAuthentication;
  await assert.rejects(listTopicsOver(bootstrap, untrusted));
  assert.ok(broker.stats.connections.failedAuthentication > before, 'the untrusted certificate is counted');

  const admin = await Admin.connect({ bootstrapServers: bootstrap, securityProtocol: 'SSL', ssl: clientSsl(pki, true) });
  cleanup.add('close admin', () => admin.close());
  assert.deepEqual(await admin.listTopics(), []);
  const principals = broker.connectionInfo().filter((c) => c.listener === 'SSL').map((c) => c.principal);
  assert.ok(principals.length > 0);
  // openssl's RFC 2253 rendering of the subject is the oracle (CN=client,OU=eng,O=Brook).
  assert.equal(pki.client.subjectRfc2253, 'CN=client,OU=eng,O=Brook');
  for (const p of principals) assert.equal(p, `User:${pki.client.subjectRfc2253}`);
  // The PLAINTEXT listener is unaffected.
  assert.deepEqual(await listTopicsOver(broker.bootstrap, null), []);
});

test('ssl.client.auth=requested: no certificate is ANONYMOUS, an untrusted one is refused, a trusted one names the principal', { timeout: 60_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const broker = await sslBroker(pki, { clientAuth: 'requested' }, { listeners: 'SSL://127.0.0.1:0' });
  cleanup.add('stop broker', () => broker.stop());
  const bootstrap = `127.0.0.1:${sslPort(broker)}`;
  const anonymous = await Admin.connect({ bootstrapServers: bootstrap, securityProtocol: 'SSL', ssl: clientSsl(pki, false) });
  cleanup.add('close anonymous', () => anonymous.close());
  assert.deepEqual(broker.connectionInfo().map((c) => c.principal), ['User:ANONYMOUS']);
  anonymous.close();
  const untrusted = { ca: pki.caPem, cert: readFileSync(pki.untrustedClient.cert, 'utf8'), key: readFileSync(pki.untrustedClient.key, 'utf8') };
  await assert.rejects(listTopicsOver(bootstrap, untrusted));
  assert.ok(broker.stats.connections.failedAuthentication >= 1);
  const named = await Admin.connect({ bootstrapServers: bootstrap, securityProtocol: 'SSL', ssl: clientSsl(pki, true) });
  cleanup.add('close named', () => named.close());
  assert.ok(broker.connectionInfo().some((c) => c.principal === `User:${pki.client.subjectRfc2253}`));
});

test('a plaintext client or a silent one on the SSL port is refused and counted; the broker keeps serving', { timeout: 60_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  // connections.max.idle.ms bounds the handshake: a client that says nothing is closed.
  const broker = await sslBroker(pki, {}, { connectionsMaxIdleMs: 300 });
  cleanup.add('stop broker', () => broker.stop());
  const port = sslPort(broker);
  await assert.rejects(listTopicsOver(`127.0.0.1:${port}`, null));
  assert.ok(broker.stats.connections.failedAuthentication >= 1);
  assert.equal(broker.stats.connections.accepted, 0, 'a failed handshake is never an accepted connection');

  const before = broker.stats.connections.failedAuthentication;
  const silent = connect({ host: '127.0.0.1', port });
  silent.on('error', () => undefined);
  const closedAfter = await new Promise<number>((resolve) => {
    const started = Date.now();
    silent.on('close', () => resolve(Date.now() - started));
  });
  assert.ok(closedAfter < 10_000, `closed after ${closedAfter} ms`);
  assert.equal(broker.stats.connections.failedAuthentication, before + 1);
  // Others are served on both listeners.
  assert.deepEqual(await listTopicsOver(`127.0.0.1:${port}`, clientSsl(pki, false)), []);
  assert.deepEqual(await listTopicsOver(broker.bootstrap, null), []);
});

test('PEM keystores: an encrypted key with ssl.key.password, inline PEM, per-listener settings; bad ones fail the start', { timeout: 60_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const encrypted = await sslBroker(pki, { keystoreLocation: pki.serverEncryptedKeystore, keyPassword: pki.serverKeyPassword });
  cleanup.add('stop encrypted', () => encrypted.stop());
  assert.deepEqual(await listTopicsOver(`127.0.0.1:${sslPort(encrypted)}`, clientSsl(pki, false)), []);
  await assert.rejects(sslBroker(pki, { keystoreLocation: pki.serverEncryptedKeystore, keyPassword: 'wrong' }), /invalid keystore/);
  await assert.rejects(sslBroker(pki, { keystoreType: 'JKS' }), /ssl\.keystore\.type=JKS is not supported/);
  await assert.rejects(sslBroker(pki, { keystoreLocation: pki.ca }), /expected one private key, found 0/);
  await assert.rejects(sslBroker(pki, { clientAuth: 'required', truststoreLocation: undefined }), /needs a truststore/);
  await assert.rejects(sslBroker(pki, { clientAuth: 'always' as 'required' }), /Invalid value always for configuration ssl.client.auth/);

  const serverPem = readFileSync(pki.serverKeystore, 'utf8');
  const chain = serverPem.slice(0, serverPem.indexOf('-----BEGIN PRIVATE KEY-----'));
  const key = serverPem.slice(serverPem.indexOf('-----BEGIN PRIVATE KEY-----'));
  // Broker-wide settings point nowhere; the listener's own inline keystore wins.
  const perListener = await startBrook({
    listeners: 'INTERNAL://127.0.0.1:0', listenerSecurityProtocolMap: 'INTERNAL:SSL',
    ssl: { keystoreLocation: join(pki.dir, 'missing.pem') },
    listenerSsl: { internal: { keystoreLocation: undefined, keystoreCertificateChain: chain, keystoreKey: key } },
  });
  cleanup.add('stop per-listener', () => perListener.stop());
  assert.deepEqual(await listTopicsOver(`127.0.0.1:${sslPort(perListener)}`, clientSsl(pki, false)), []);
});

test('bin/brook broker --config with SSL properties, and client commands over SSL with --command-config', { timeout: 60_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const pki = makeTestPki();
  cleanup.add('remove pki', () => pki.remove());
  const dir = tempDir();
  cleanup.add('remove dir', () => dir.remove());
  const serverProps = join(dir.path, 'server.properties');
  writeFileSync(serverProps, [
    'listeners=SSL://127.0.0.1:0,PLAINTEXT://127.0.0.1:0',
    'ssl.keystore.type=PEM',
    `ssl.keystore.location=${pki.serverKeystore}`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${pki.ca}`,
    'listener.name.ssl.ssl.client.auth=required',
    `log.dirs=${join(dir.path, 'data')}`,
    '',
  ].join('\n'));
  const broker = await spawnBrook(['--config', serverProps]);
  cleanup.add('stop broker', () => broker.stop());
  const clientProps = join(dir.path, 'client.properties');
  writeFileSync(clientProps, [
    'security.protocol=SSL',
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${pki.ca}`,
    'ssl.keystore.type=PEM',
    `ssl.keystore.location=${pki.client.keystore}`,
    '',
  ].join('\n'));
  const brook = (args: string[]) => runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), ...args], { timeoutMs: 30_000 });
  const bootstrap = `127.0.0.1:${broker.port}`;
  const created = await brook(['topics', 'create', 'over-tls', '--partitions', '2', '-b', bootstrap, '--command-config', clientProps]);
  assert.equal(created.code, 0, created.stderr);
  const listed = await brook(['topics', 'list', '-b', bootstrap, '--command-config', clientProps]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.deepEqual(listed.stdout.trim().split('\n'), ['over-tls']);
  const produced = await runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), 'produce', 'over-tls', '-b', bootstrap, '--command-config', clientProps], { input: 'a\nb\n', timeoutMs: 30_000 });
  assert.equal(produced.code, 0, produced.stderr);
  const consumed = await brook(['consume', 'over-tls', '--from-beginning', '--max-messages', '2', '--format', 'value', '-b', bootstrap, '--command-config', clientProps]);
  assert.equal(consumed.code, 0, consumed.stderr);
  assert.deepEqual(consumed.stdout.trim().split('\n').sort(), ['a', 'b']);
  // Without the client certificate (mTLS required) and without --command-config: one-line errors, exit 1.
  const noCert = join(dir.path, 'no-cert.properties');
  writeFileSync(noCert, `security.protocol=SSL\nssl.truststore.type=PEM\nssl.truststore.location=${pki.ca}\n`);
  for (const extra of [['--command-config', noCert], []]) {
    const refused = await brook(['topics', 'list', '-b', bootstrap, ...extra]);
    assert.equal(refused.code, 1, refused.stdout);
    assert.equal(refused.stderr.trim().split('\n').length, 1, refused.stderr);
  }
});
