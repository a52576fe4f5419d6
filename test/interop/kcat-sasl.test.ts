/**
 * kcat (librdkafka before 2.6.1, e.g. Debian's 2.0.2) and SCRAM: such a librdkafka writes the
 * SCRAM client-final-message's nonce as its own nonce followed by the server's, although
 * the server's nonce (RFC 5802) already starts with the client's, so the client's nonce
 * comes twice. Kafka 4.x compares the nonce strictly, as RFC 5802 requires (Kafka 3.8.1 to
 * 3.9 let it pass), and so does Brook: both refuse the login with the same
 * SASL_AUTHENTICATION_FAILED, which kcat reports the same way. The test records the
 * client-final-message kcat sends (through a forwarding proxy) to show the doubled nonce;
 * kcat's PLAIN logs in to both. With a librdkafka of 2.6.1 or later the SCRAM login
 * succeeds, and the test says so instead of passing silently.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, connect, type Server } from 'node:net';
import { startBrook, tempDir } from '../support/brook.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess, type RunResult } from '../support/clients/run.js';
import { brookCli } from '../support/admin-fixture.js';
import { kcatAvailable } from '../support/clients/kcat.js';
import { kafkaAvailable, startKafka } from '../support/kafka/kafka-broker.js';

const PLAIN_JAAS = 'org.apache.kafka.common.security.plain.PlainLoginModule required user_carol="carol-secret";';
const SCRAM_JAAS = 'org.apache.kafka.common.security.scram.ScramLoginModule required;';
const skip = !kcatAvailable() ? 'needs kcat' : kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath';

/** A TCP proxy to `port` that keeps every byte the clients send. */
async function recordingProxy(port: number): Promise<{ server: Server; port: number; sent: () => string }> {
  const chunks: Buffer[] = [];
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port });
    client.on('data', (d: Buffer) => { chunks.push(d); upstream.write(d); });
    upstream.on('data', (d: Buffer) => client.write(d));
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, sent: () => Buffer.concat(chunks).toString('latin1') };
}

function kcatList(bootstrap: string, mechanism: string, user: string, password: string): Promise<RunResult> {
  return runProcess('kcat', ['-b', bootstrap, '-L', '-m', '5', '-X', 'security.protocol=SASL_PLAINTEXT', '-X', `sasl.mechanism=${mechanism}`,
    '-X', `sasl.username=${user}`, '-X', `sasl.password=${password}`], { timeoutMs: 30_000 });
}

/** kcat's SASL failure line, without the timings and addresses that differ between runs. */
function saslError(r: RunResult): string {
  const m = /SASL authentication error: ([^(\n]*)/.exec(r.stderr);
  return m === null ? `(no SASL error; exit ${r.code}: ${r.stderr.slice(-500)})` : m[1]!.trim();
}

test('kcat (librdkafka < 2.6.1) SCRAM: the doubled client nonce refused alike by Kafka 4.4.0 and Brook; kcat PLAIN logs in to both', { timeout: 180_000, skip }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const version = (await runProcess('kcat', ['-V'])).stdout;
  const librdkafka = /librdkafka (\d+)\.(\d+)\.(\d+)/.exec(version);
  assert.ok(librdkafka !== null, version);
  const [major, minor, patch] = librdkafka.slice(1).map(Number) as [number, number, number];
  const fixed = major > 2 || (major === 2 && (minor > 6 || (minor === 6 && patch >= 1)));

  const kafka = await startKafka({
    saslListeners: ['SASL_PLAINTEXT'],
    formatArgs: ['--add-scram', 'SCRAM-SHA-512=[name=alice,password=alice-secret]'],
    config: {
      'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'SCRAM-SHA-512,PLAIN',
      'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config': SCRAM_JAAS,
      'listener.name.sasl_plaintext.plain.sasl.jaas.config': PLAIN_JAAS,
    },
  });
  cleanup.add('stop kafka', () => kafka.stop());
  const dir = tempDir();
  cleanup.add('remove data dir', () => dir.remove());
  assert.equal((await brookCli(['users', 'add', 'alice', '--mechanism', 'SCRAM-SHA-512', '--password', 'alice-secret', '--data-dir', dir.path])).code, 0);
  const brook = await startBrook({
    dataDir: dir.path, listeners: 'SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'SCRAM-SHA-512,PLAIN',
    listenerSaslJaasConfig: { SASL_PLAINTEXT: { 'SCRAM-SHA-512': SCRAM_JAAS, PLAIN: PLAIN_JAAS } },
  });
  cleanup.add('stop brook', () => brook.stop());
  const proxy = await recordingProxy(brook.port);
  cleanup.add('close proxy', () => new Promise<void>((resolve) => proxy.server.close(() => resolve())));
  const kafkaBootstrap = `127.0.0.1:${kafka.listenerPorts['SASL_PLAINTEXT']!}`;
  const brookBootstrap = `127.0.0.1:${proxy.port}`;

  const [onKafka, onBrook] = await Promise.all([
    kcatList(kafkaBootstrap, 'SCRAM-SHA-512', 'alice', 'alice-secret'),
    kcatList(brookBootstrap, 'SCRAM-SHA-512', 'alice', 'alice-secret'),
  ]);
  if (fixed) {
    t.diagnostic(`kcat uses librdkafka ${major}.${minor}.${patch}, which sends RFC 5802's nonce: SCRAM must log in`);
    assert.equal(onKafka.code, 0, onKafka.stderr);
    assert.equal(onBrook.code, 0, onBrook.stderr);
  } else {
    // What kcat sent: client-first "n,,n=alice,r=CNONCE", then client-final "c=biws,r=NONCE,p=...".
    const sent = proxy.sent();
    const clientNonce = /n,,n=alice,r=([!-+\--~]+)/.exec(sent)?.[1];
    const finalNonce = /c=biws,r=([!-+\--~]+),p=/.exec(sent)?.[1];
    assert.ok(clientNonce !== undefined && finalNonce !== undefined, `no SCRAM exchange recorded: ${JSON.stringify(sent.slice(-400))}`);
    t.diagnostic(`client nonce ${clientNonce}; client-final nonce ${finalNonce}; Kafka: ${saslError(onKafka)}`);
    assert.ok(finalNonce.startsWith(clientNonce + clientNonce), `the client-final nonce repeats the client nonce: ${clientNonce} / ${finalNonce}`);
    assert.notEqual(onKafka.code, 0, 'Kafka 4.4.0 refuses the doubled nonce');
    assert.equal(saslError(onKafka), 'Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512');
    assert.notEqual(onBrook.code, 0);
    assert.equal(saslError(onBrook), saslError(onKafka));
  }

  for (const bootstrap of [kafkaBootstrap, brookBootstrap]) {
    const plain = await kcatList(bootstrap, 'PLAIN', 'carol', 'carol-secret');
    assert.equal(plain.code, 0, `${bootstrap}: ${plain.stderr}`);
    assert.match(plain.stdout, /1 brokers:/);
  }
});
