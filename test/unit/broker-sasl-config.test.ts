/**
 * The SASL settings of a Kafka-style server.properties: `listener.name.<l>.<mechanism>.sasl.jaas.config`
 * (PLAIN's `user_NAME` options are users, beside the credential store's; SCRAM's is only
 * checked) and `sasl.mechanism.inter.broker.protocol` (checked, no effect), read from the
 * properties and refused at start when Kafka would refuse them. KafkaJS logging in with a
 * JAAS PLAIN user over SASL_SSL from a server.properties is in test/interop/broker-sasl-kafka-clients.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBrook } from '../support/brook.js';
import { parseProperties } from '../../src/util/java-properties.js';
import { configFromProperties } from '../../src/broker/broker-properties.js';
import { plainCredential } from '../../src/broker/sasl/plain-password.js';
import { Admin, AuthenticationError } from '../../src/index.js';
import type { Broker } from '../../src/broker/broker.js';

const PLAIN_MODULE = 'org.apache.kafka.common.security.plain.PlainLoginModule';
const SCRAM_MODULE = 'org.apache.kafka.common.security.scram.ScramLoginModule';

test('server.properties: the per-listener JAAS settings and sasl.mechanism.inter.broker.protocol are read', () => {
  const config = configFromProperties(parseProperties([
    'listeners=SASL_PLAINTEXT://127.0.0.1:0',
    'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-512',
    'sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512',
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=${PLAIN_MODULE} required \\`,
    '    username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";',
    `listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=${SCRAM_MODULE} required;`,
  ].join('\n')));
  assert.equal(config.saslMechanismInterBrokerProtocol, 'SCRAM-SHA-512');
  assert.deepEqual(config.listenerSaslJaasConfig, {
    SASL_PLAINTEXT: {
      PLAIN: `${PLAIN_MODULE} required username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";`,
      'SCRAM-SHA-512': `${SCRAM_MODULE} required;`,
    },
  });
  // Kafka names only these three per-listener JAAS mechanisms Brook serves; others stay unknown.
  assert.throws(() => configFromProperties(parseProperties(`listener.name.sasl_plaintext.gssapi.sasl.jaas.config=${PLAIN_MODULE} required;`)),
    /unknown broker properties: listener\.name\.sasl_plaintext\.gssapi\.sasl\.jaas\.config/);
});

test('bad JAAS settings and an unknown inter-broker mechanism fail the start with the property named', { timeout: 20_000 }, async () => {
  const base = { listeners: 'SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'PLAIN' };
  const jaas = (text: string) => ({ ...base, listenerSaslJaasConfig: { SASL_PLAINTEXT: { PLAIN: text } } });
  await assert.rejects(startBrook(jaas(`${PLAIN_MODULE} required user_a="x"; ${PLAIN_MODULE} required;`)),
    /listener\.name\.sasl_plaintext\.plain\.sasl\.jaas\.config: JAAS config property contains 2 login modules, should be 1 module/);
  await assert.rejects(startBrook(jaas(`${PLAIN_MODULE} required user_a="x"`)), /plain\.sasl\.jaas\.config: JAAS config entry not terminated by semi-colon/);
  await assert.rejects(startBrook(jaas('com.example.Login required;')), /plain\.sasl\.jaas\.config: login module com\.example\.Login is not supported/);
  await assert.rejects(startBrook({ ...base, saslMechanismInterBrokerProtocol: 'SCRAM-SHA-1' }),
    /sasl\.mechanism\.inter\.broker\.protocol names unknown SASL mechanism SCRAM-SHA-1/);
  // Kafka's default (GSSAPI) is a name Kafka knows: accepted, it has no effect on a single broker.
  const broker = await startBrook({ ...base, saslMechanismInterBrokerProtocol: 'GSSAPI' });
  await broker.stop();
});

async function login(broker: Broker, username: string, password: string): Promise<string> {
  const port = broker.listeners.find((l) => l.securityProtocol === 'SASL_PLAINTEXT')!.port;
  try {
    const admin = await Admin.connect({ bootstrapServers: `127.0.0.1:${port}`, securityProtocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username, password } });
    await admin.close();
    return 'ok';
  } catch (err) {
    if (err instanceof AuthenticationError) return err.message;
    throw err;
  }
}

test('PLAIN: the JAAS setting\'s users log in, beside the store\'s; a JAAS user\'s password is the JAAS one', { timeout: 30_000 }, async (t) => {
  const broker = await startBrook({
    listeners: 'SASL_PLAINTEXT://127.0.0.1:0', saslEnabledMechanisms: 'PLAIN',
    listenerSaslJaasConfig: { SASL_PLAINTEXT: { PLAIN: `${PLAIN_MODULE} required user_alice="alice-secret" user_carol='c;a"rol';` } },
  });
  t.after(() => broker.stop());
  broker.context.credentials.apply([
    { op: 'setPlain', user: 'bob', credential: await plainCredential('bob-secret') },
    { op: 'setPlain', user: 'alice', credential: await plainCredential('store-password') },
  ]);
  assert.equal(await login(broker, 'alice', 'alice-secret'), 'ok');
  assert.equal(await login(broker, 'carol', 'c;a"rol'), 'ok');
  assert.equal(await login(broker, 'bob', 'bob-secret'), 'ok');
  assert.match(await login(broker, 'alice', 'store-password'), /Invalid username or password/);
  assert.match(await login(broker, 'alice', 'wrong'), /Invalid username or password/);
});
