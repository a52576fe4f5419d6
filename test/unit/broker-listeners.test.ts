/**
 * The broker's listeners as Kafka names them (`listeners`, `advertised.listeners`,
 * `listener.security.protocol.map`): what clients are told in Metadata, FindCoordinator and
 * DescribeCluster, per listener; the same settings in a `--config` file and as flags; SSL and
 * SASL listeners without their settings refused at start; a start that cannot bind every listener leaves nothing
 * open. Kafka's own parsing and messages are compared in test/interop/broker-listeners-kafka.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Broker, silentLogger, type BrokerOptions } from '../../src/index.js';
import { LOCK_FILE } from '../../src/storage/dir-lock.js';
import { kafkaJs } from '../support/clients/kafkajs.js';
import { Cleanup } from '../support/clients/cleanup.js';
import { runProcess } from '../support/clients/run.js';
import { RawConnection } from '../support/kafka/raw-client.js';
import { projectRoot, spawnBrook, tempDir } from '../support/brook.js';

const quiet = { log: silentLogger, groupInitialRebalanceDelayMs: 0, dataDir: null } as const;

/** What KafkaJS, bootstrapped at `bootstrap`, reads about the cluster's brokers (Metadata). */
async function kafkaJsBrokers(bootstrap: string): Promise<string[]> {
  const admin = kafkaJs(bootstrap, 'listeners-admin').admin();
  await admin.connect();
  try {
    return (await admin.describeCluster()).brokers.map((b) => `${b.host}:${b.port}`);
  } finally {
    await admin.disconnect();
  }
}

/** FindCoordinator's and DescribeCluster's answers on a connection to host:port. */
async function coordinatorAndCluster(host: string, port: number): Promise<{ coordinator: string; cluster: string[] }> {
  const conn = await RawConnection.connect(host, port, { clientId: 'listeners-raw' });
  try {
    const found = await conn.request('FindCoordinator', 4, { keyType: 0, coordinatorKeys: ['some-group'] });
    const c = found.coordinators![0]!;
    assert.equal(c.errorCode, 0);
    const described = await conn.request('DescribeCluster', 1, { includeClusterAuthorizedOperations: false, endpointType: 1 });
    return { coordinator: `${c.host}:${c.port}`, cluster: described.brokers.map((b) => `${b.host}:${b.port}`) };
  } finally {
    conn.close();
  }
}

test('listeners=PLAINTEXT://0.0.0.0:0, advertised.listeners=PLAINTEXT://localhost:0: bound on every address, clients are told the advertised name and the bound port', { timeout: 20_000 }, async (t) => {
  const broker = await Broker.start({ ...quiet, listeners: 'PLAINTEXT://0.0.0.0:0', advertisedListeners: 'PLAINTEXT://localhost:0' });
  t.after(() => broker.stop());
  const [listener] = broker.listeners;
  assert.equal(listener!.host, '0.0.0.0');
  assert.ok(listener!.port > 0);
  const advertised = `localhost:${listener!.port}`;
  assert.equal(broker.bootstrapServers, advertised);
  // Bootstrapped at 127.0.0.1, clients are told the name (KafkaJS then connects to it: it must
  // resolve; test/interop/broker-listeners-kafka.test.ts shows one that does not with kcat -L).
  assert.deepEqual(await kafkaJsBrokers(`127.0.0.1:${listener!.port}`), [advertised]);
  assert.deepEqual(await coordinatorAndCluster('127.0.0.1', listener!.port), { coordinator: advertised, cluster: [advertised] });
});

test('two PLAINTEXT listeners (listener.security.protocol.map): each tells its own clients its own advertised address; both serve the same data', { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const broker = await Broker.start({
    ...quiet,
    listeners: ['INTERNAL://127.0.0.1:0', 'EXTERNAL://localhost:0'],
    listenerSecurityProtocolMap: 'INTERNAL:PLAINTEXT, EXTERNAL:PLAINTEXT',
    advertisedListeners: 'INTERNAL://127.0.0.1:0,EXTERNAL://localhost:0',
  });
  cleanup.add('stop broker', () => broker.stop());
  const [internal, external] = broker.listeners;
  assert.deepEqual([internal!.name, external!.name], ['INTERNAL', 'EXTERNAL']);
  assert.notEqual(internal!.port, external!.port);
  assert.deepEqual(await kafkaJsBrokers(`127.0.0.1:${internal!.port}`), [`127.0.0.1:${internal!.port}`]);
  assert.deepEqual(await kafkaJsBrokers(`localhost:${external!.port}`), [`localhost:${external!.port}`]);
  assert.deepEqual(await coordinatorAndCluster('localhost', external!.port), { coordinator: `localhost:${external!.port}`, cluster: [`localhost:${external!.port}`] });

  const producer = kafkaJs(`localhost:${external!.port}`, 'external-producer').producer();
  await producer.connect();
  cleanup.add('disconnect producer', () => producer.disconnect());
  await producer.send({ topic: 'through-both', acks: -1, messages: [{ key: 'k', value: 'sent through EXTERNAL' }] });
  const consumer = kafkaJs(`127.0.0.1:${internal!.port}`, 'internal-consumer').consumer({ groupId: 'internal-group', heartbeatInterval: 100, maxWaitTimeInMs: 100 });
  await consumer.connect();
  cleanup.add('disconnect consumer', () => consumer.disconnect());
  await consumer.subscribe({ topic: 'through-both', fromBeginning: true });
  const value = await new Promise<string>((resolve) => {
    void consumer.run({ eachMessage: async ({ message }) => resolve(message.value!.toString()) });
  });
  assert.equal(value, 'sent through EXTERNAL');

  // DescribeConfigs reports both, bound and advertised.
  const conn = await RawConnection.connect('127.0.0.1', internal!.port, { clientId: 'listeners-configs' });
  cleanup.add('close connection', () => conn.close());
  const res = await conn.request('DescribeConfigs', 4, {
    resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['listeners', 'advertised.listeners'] }], includeSynonyms: false, includeDocumentation: false,
  });
  assert.deepEqual(Object.fromEntries(res.results[0]!.configs.map((c) => [c.name, c.value])), {
    'listeners': `INTERNAL://127.0.0.1:${internal!.port},EXTERNAL://localhost:${external!.port}`,
    'advertised.listeners': `INTERNAL://127.0.0.1:${internal!.port},EXTERNAL://localhost:${external!.port}`,
  });
});

test('--host 0.0.0.0 (and a listener on 0.0.0.0 without advertised.listeners) advertises a name clients reach, not 0.0.0.0', { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  for (const options of [{ host: '0.0.0.0', port: 0 }, { listeners: 'PLAINTEXT://0.0.0.0:0' }, { listeners: 'PLAINTEXT://:0' }] satisfies BrokerOptions[]) {
    const broker = await Broker.start({ ...quiet, ...options });
    cleanup.add('stop broker', () => broker.stop());
    assert.ok(!['0.0.0.0', '::', ''].includes(broker.host), `${JSON.stringify(options)}: advertises ${broker.host}`);
    // KafkaJS bootstraps at 127.0.0.1, then produces to the advertised address (the partition leader's).
    const producer = kafkaJs(`127.0.0.1:${broker.port}`, 'wildcard-producer').producer();
    await producer.connect();
    const [result] = await producer.send({ topic: 'wildcard', acks: -1, messages: [{ value: 'v' }] });
    assert.equal(result!.errorCode, 0);
    await producer.disconnect();
  }
});

test('--config FILE with listeners and advertised.listeners: they replace --host/--port; the ready line names the first listener\'s advertised address', { timeout: 30_000 }, async (t) => {
  const cleanup = new Cleanup();
  t.after(() => cleanup.run());
  const dir = tempDir();
  cleanup.add('remove dir', () => dir.remove());
  const file = join(dir.path, 'server.properties');
  writeFileSync(file, 'listeners=PLAINTEXT://0.0.0.0:0\nadvertised.listeners=PLAINTEXT://localhost:0\n');
  // 192.0.2.1 (TEST-NET-1) is no address of this machine: binding it would fail.
  const brook = await spawnBrook(['--host', '192.0.2.1', '--port', '1', '--data-dir', join(dir.path, 'data'), '--config', file]);
  cleanup.add('kill broker', () => brook.kill());
  assert.equal(brook.host, 'localhost');
  assert.deepEqual(await kafkaJsBrokers(`127.0.0.1:${brook.port}`), [`localhost:${brook.port}`]);
  assert.equal(await brook.stop(), 0);

  // The flags do the same.
  const flagged = await spawnBrook(['--listeners', 'PLAINTEXT://127.0.0.1:0', '--advertised-listeners', 'PLAINTEXT://localhost:0', '--data-dir', join(dir.path, 'data')]);
  cleanup.add('kill flagged broker', () => flagged.kill());
  assert.equal(flagged.host, 'localhost');
  assert.deepEqual(await kafkaJsBrokers(`127.0.0.1:${flagged.port}`), [`localhost:${flagged.port}`]);
  assert.equal(await flagged.stop(), 0);
});

test('a SASL listener without sasl.enabled.mechanisms is refused at start, saying so, as is an SSL or SASL_SSL one without a keystore; nothing is left open (the data dir is not locked)', { timeout: 30_000 }, async (t) => {
  const dir = tempDir();
  t.after(() => dir.remove());
  await assert.rejects(Broker.start({ ...quiet, dataDir: dir.path, listeners: 'SASL_PLAINTEXT://127.0.0.1:0' }), /listener SASL_PLAINTEXT is SASL_PLAINTEXT but sasl\.enabled\.mechanisms is not set/);
  assert.equal(existsSync(join(dir.path, LOCK_FILE)), false);
  await assert.rejects(Broker.start({ ...quiet, dataDir: dir.path, listeners: 'PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0', saslEnabledMechanisms: 'PLAIN' }), /listener SASL_SSL is SSL but has no keystore/);
  assert.equal(existsSync(join(dir.path, LOCK_FILE)), false);
  // A listener name mapped to SSL needs a keystore like one named SSL.
  await assert.rejects(Broker.start({ ...quiet, dataDir: dir.path, listeners: 'SECURE://127.0.0.1:0', listenerSecurityProtocolMap: { SECURE: 'SSL' } }), /listener SECURE is SSL but has no keystore/);
  assert.equal(existsSync(join(dir.path, LOCK_FILE)), false);
  // The command line: exit 1, the reason on stderr.
  const cli = await runProcess(process.execPath, [join(projectRoot, 'bin', 'brook'), 'broker', '--data-dir', dir.path, '--listeners', 'SASL_PLAINTEXT://127.0.0.1:0'], { timeoutMs: 20_000 });
  assert.equal(cli.code, 1);
  assert.match(cli.stderr, /sasl\.enabled\.mechanisms is not set/);
  // The same data dir then starts.
  const broker = await Broker.start({ ...quiet, dataDir: dir.path, listeners: 'PLAINTEXT://127.0.0.1:0' });
  await broker.stop();
});

test('a start whose second listener\'s port is taken rejects, closing the first listener and the storage; the same start then works in this process', { timeout: 30_000 }, async (t) => {
  const dir = tempDir();
  t.after(() => dir.remove());
  const listen = async (port: number): Promise<Server> => {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return server;
  };
  const close = (server: Server): Promise<void> => new Promise((resolve) => server.close(() => resolve()));
  const taken = await listen(0);
  const takenPort = (taken.address() as AddressInfo).port;
  // A port free a moment ago, for the first listener: whether it is free again shows that the failed start closed it.
  const probe = await listen(0);
  const firstPort = (probe.address() as AddressInfo).port;
  await close(probe);
  const options: BrokerOptions = {
    ...quiet, dataDir: dir.path, listeners: `PLAINTEXT://127.0.0.1:${firstPort},SECOND://127.0.0.1:${takenPort}`, listenerSecurityProtocolMap: 'PLAINTEXT:PLAINTEXT,SECOND:PLAINTEXT',
  };
  await assert.rejects(Broker.start(options), /EADDRINUSE/);
  assert.equal(existsSync(join(dir.path, LOCK_FILE)), false, 'the data directory is unlocked');
  await close(await listen(firstPort));
  await close(taken);
  const broker = await Broker.start(options);
  assert.deepEqual(broker.listeners.map((l) => `${l.name}:${l.port}`), [`PLAINTEXT:${firstPort}`, `SECOND:${takenPort}`]);
  await broker.stop();
});
