/**
 * Brook's reading of `listeners`, `advertised.listeners` and `listener.security.protocol.map`
 * (src/broker/listener-config.ts) against Apache Kafka 4.4's own (KafkaConfig.fromProps, then
 * the wildcard host resolution of BrokerServer), through test/support/kafka/ListenersOracle.java:
 * the same endpoints, the same advertised host for an empty host (this machine's canonical
 * host name), the same errors. Brook's two deliberate differences are asserted as such: SSL
 * and SASL listeners are refused (not served yet), and a listener bound to 0.0.0.0 without
 * advertised.listeners advertises the canonical host name where Kafka refuses to start.
 *
 * Then kcat (librdkafka) reads Metadata from a broker whose advertised name resolves nowhere:
 * it prints that name, with the port the OS chose.
 *
 * Needs Java 17 and Kafka's classpath (test/support/kafka/build.sh), and kcat.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Broker, silentLogger } from '../../src/index.js';
import { brokerConfig } from '../../src/broker/config.js';
import { isWildcardHost, planListeners, type Endpoint } from '../../src/broker/listener-config.js';
import { canonicalHostName } from '../../src/broker/listeners.js';
import { runProcess } from '../support/clients/run.js';
import { kafkaAvailable, kafkaClasspath } from '../support/kafka/kafka-broker.js';
import { projectRoot, tempDir } from '../support/brook.js';

const ORACLE = join(projectRoot, 'test', 'support', 'kafka', 'ListenersOracle.java');

type Row = [name: string, protocol: string, host: string | null, port: number];
type Outcome = { listeners: Row[]; advertised: Row[] } | { error: string };

interface Case {
  readonly name: string;
  readonly props: Readonly<Record<string, string>>;
  /** Kafka's inter.broker.listener.name (Brook has no inter-broker listener): the oracle needs one that is advertised. */
  readonly interBroker?: string;
}

const CASES: readonly Case[] = [
  { name: 'an empty host', props: { listeners: 'PLAINTEXT://:9092' } },
  { name: 'an address', props: { listeners: 'PLAINTEXT://127.0.0.1:9092' } },
  { name: 'a lower-case name, a host name, port 0', props: { listeners: 'plaintext://localhost:0' } },
  { name: 'an IPv6 address in brackets', props: { listeners: 'PLAINTEXT://[::1]:9092' } },
  { name: 'spaces around the commas, two names in the map', props: { listeners: ' INTERNAL://127.0.0.1:9092 ,  EXTERNAL://:9093 ', 'listener.security.protocol.map': 'INTERNAL:PLAINTEXT , EXTERNAL : plaintext' }, interBroker: 'INTERNAL' },
  { name: 'advertised.listeners naming another host', props: { listeners: 'PLAINTEXT://0.0.0.0:9092', 'advertised.listeners': 'PLAINTEXT://broker-a.example:19092' } },
  { name: 'advertised.listeners with an empty host', props: { listeners: 'PLAINTEXT://127.0.0.1:9092', 'advertised.listeners': 'PLAINTEXT://:9092' } },
  { name: 'advertised.listeners naming some listeners only', props: { listeners: 'INTERNAL://127.0.0.1:9092,EXTERNAL://:9093', 'advertised.listeners': 'EXTERNAL://broker-a.example:9093', 'listener.security.protocol.map': 'INTERNAL:PLAINTEXT,EXTERNAL:PLAINTEXT' }, interBroker: 'EXTERNAL' },
  { name: 'two listeners on one port, IPv4 and IPv6', props: { listeners: 'PLAINTEXT://127.0.0.1:9092,V6://[::1]:9092', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,V6:PLAINTEXT' } },
  { name: 'two listeners on one port', props: { listeners: 'PLAINTEXT://:9092,SSL://:9092' } },
  { name: 'two listeners on one port, one of them on 0.0.0.0', props: { listeners: 'PLAINTEXT://0.0.0.0:9092,SSL://:9092' } },
  { name: 'two IPv4 listeners on one port', props: { listeners: 'PLAINTEXT://127.0.0.1:9092,OTHER://127.0.0.2:9092', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT' } },
  { name: 'one name twice', props: { listeners: 'PLAINTEXT://:9092,PLAINTEXT://:9093' } },
  { name: 'no port', props: { listeners: 'PLAINTEXT://localhost' } },
  { name: 'no name', props: { listeners: 'localhost:9092' } },
  { name: 'a name with no security protocol', props: { listeners: 'EXTERNAL://:9092' }, interBroker: 'EXTERNAL' },
  { name: 'a map without PLAINTEXT', props: { listeners: 'PLAINTEXT://:9092', 'listener.security.protocol.map': 'EXTERNAL:PLAINTEXT' } },
  { name: 'an unknown security protocol in the map', props: { listeners: 'EXTERNAL://:9092', 'listener.security.protocol.map': 'EXTERNAL:PLAINTEXTS' }, interBroker: 'EXTERNAL' },
  { name: 'an advertised name that is no listener', props: { listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'PLAINTEXT://a:9092,OTHER://b:9093', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,OTHER:PLAINTEXT' } },
  { name: 'advertised.listeners on 0.0.0.0', props: { listeners: 'PLAINTEXT://:9092', 'advertised.listeners': 'PLAINTEXT://0.0.0.0:9092' } },
  { name: 'an SSL listener', props: { listeners: 'PLAINTEXT://127.0.0.1:9092,SSL://:9093' } },
  { name: 'a SASL_SSL listener under another name', props: { listeners: 'PLAINTEXT://127.0.0.1:9092,SECURE://:9093', 'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SECURE:SASL_SSL' } },
  { name: 'a listener on 0.0.0.0 without advertised.listeners', props: { listeners: 'PLAINTEXT://0.0.0.0:9092' } },
];

async function kafka(cases: readonly Case[]): Promise<Outcome[]> {
  const dir = tempDir('brook-listeners-');
  try {
    const files = cases.map((c, i) => {
      const file = join(dir.path, `${i}.properties`);
      const props = { ...c.props, ...(c.interBroker !== undefined ? { 'inter.broker.listener.name': c.interBroker } : {}) };
      // Written escaped as java.util.Properties reads it: the values are ASCII.
      writeFileSync(file, Object.entries(props).map(([k, v]) => `${k}=${v.replace(/\\/g, '\\\\').replace(/^ /, '\\ ')}`).join('\n') + '\n', 'latin1');
      return file;
    });
    const result = await runProcess('java', ['-cp', kafkaClasspath(), ORACLE, ...files], { timeoutMs: 120_000 });
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Outcome);
  } finally {
    dir.remove();
  }
}

async function brook(c: Case): Promise<Outcome> {
  const row = (e: Endpoint, host = e.host): Row => [e.name, e.securityProtocol, host, e.port];
  try {
    const plan = planListeners(brokerConfig({
      listeners: c.props['listeners'], advertisedListeners: c.props['advertised.listeners'], listenerSecurityProtocolMap: c.props['listener.security.protocol.map'],
    }));
    const advertised: Row[] = [];
    for (const a of plan.advertised.values()) advertised.push(row(a, isWildcardHost(a.host) ? await canonicalHostName() : a.host));
    return { listeners: plan.listeners.map((l) => row(l)), advertised };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

test('listeners, advertised.listeners and listener.security.protocol.map read as Kafka 4.4 reads them', { timeout: 180_000, skip: kafkaAvailable() ? false : 'needs Java 17+ and the Kafka classpath (BROOK_KAFKA=0 or missing)' }, async (t) => {
  const expected = await kafka(CASES);
  const canonical = await kafka([{ name: 'an empty host', props: { listeners: 'PLAINTEXT://:9092' } }]);
  const kafkaCanonicalHost = 'advertised' in canonical[0]! ? canonical[0].advertised[0]![2] : null;
  for (const [i, c] of CASES.entries()) {
    const k = expected[i]!;
    const b = await brook(c);
    if ('error' in k && /nonroutable meta-address 0\.0\.0\.0/.test(k.error) && c.props['advertised.listeners'] === undefined) {
      // Deliberate: Kafka refuses to start; Brook advertises what Kafka advertises for an empty host.
      assert.ok('advertised' in b, `${c.name}: Brook starts\n  brook: ${JSON.stringify(b)}`);
      assert.deepEqual(b.advertised.map((r) => r[2]), [kafkaCanonicalHost], `${c.name}: the canonical host name`);
    } else if ('error' in k) {
      // Kafka wraps some of its messages (Scala's require: "requirement failed: ..."); Brook's carry Kafka's text.
      const message = k.error.replace(/^requirement failed: /, '');
      assert.ok('error' in b && b.error.includes(message), `${c.name}\n  kafka: ${message}\n  brook: ${JSON.stringify(b)}`);
    } else {
      assert.deepEqual(b, k, c.name);
    }
    t.diagnostic(`${c.name}: ${JSON.stringify(k)}`);
  }
});

test('kcat -L against listeners=PLAINTEXT://0.0.0.0:0, advertised.listeners=PLAINTEXT://brook-advertised.invalid:0: Metadata names the advertised host and the bound port', { timeout: 30_000 }, async (t) => {
  const broker = await Broker.start({ dataDir: null, log: silentLogger, listeners: 'PLAINTEXT://0.0.0.0:0', advertisedListeners: 'PLAINTEXT://brook-advertised.invalid:0' });
  t.after(() => broker.stop());
  const port = broker.listeners[0]!.port;
  const result = await runProcess('kcat', ['-L', '-b', `127.0.0.1:${port}`, '-m', '10'], { timeoutMs: 20_000 });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, new RegExp(`^\\s*broker 1 at brook-advertised\\.invalid:${port} \\(controller\\)$`, 'm'), result.stdout);
});
