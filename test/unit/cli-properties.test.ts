/**
 * `brook broker --config FILE`: the file is read as java.util.Properties reads Kafka's
 * server.properties (the tricky cases of test/support/properties/cases.ts; the interop test
 * properties-java.test.ts checks them against Java itself), and values are parsed as Kafka's
 * ConfigDef parses them: trimmed, booleans in any case, integers as Java's parseInt. Also
 * the ssl.* broker properties and `--command-config`'s client properties.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROPERTIES_CASES } from '../support/properties/cases.js';
import { parseProperties } from '../../src/util/java-properties.js';
import { configFromProperties } from '../../src/broker/broker-properties.js';
import { clientSecurityFromProperties } from '../../src/cli/client-config.js';

const byKey = ([a]: readonly [string, string], [b]: readonly [string, string]): number => (a < b ? -1 : a > b ? 1 : 0);

for (const c of PROPERTIES_CASES) {
  test(`.properties grammar: ${c.name}`, { timeout: 5_000 }, () => {
    if ('error' in c.expected) {
      assert.throws(() => parseProperties(c.text), c.expected.error);
    } else {
      assert.deepEqual([...parseProperties(c.text)].sort(byKey), c.expected);
    }
  });
}

test('a malformed escape is reported with its line number', { timeout: 5_000 }, () => {
  assert.throws(() => parseProperties('a=1\r\n# x\n\nb=\\\n  \\uZZZZ\n'), /^Error: line 4: Malformed \\uxxxx encoding\.$/);
});

const config = (text: string): ReturnType<typeof configFromProperties> => configFromProperties(parseProperties(text));

test('booleans are read as Kafka reads them: true or false in any case, surrounding whitespace ignored; anything else is refused', { timeout: 5_000 }, () => {
  assert.deepEqual(config('auto.create.topics.enable=TRUE\nlog.cleaner.enable=False'), { autoCreateTopics: true, logCleanerEnable: false });
  assert.deepEqual(config('auto.create.topics.enable = tRuE   \nlog.cleaner.enable:\tfalse\t'), { autoCreateTopics: true, logCleanerEnable: false });
  for (const bad of ['yes', '1', '', 'truee']) {
    assert.throws(() => config(`auto.create.topics.enable=${bad}`), new RegExp(`^Error: Invalid value ${bad} for configuration auto.create.topics.enable: Expected value to be either true or false$`));
  }
});

test('numbers are read as Java\'s Integer.parseInt and Long.parseLong read them, after trimming', { timeout: 5_000 }, () => {
  assert.deepEqual(config('port = +9093 \nnode.id=-1\nconnections.max.idle.ms=-1\nmax.connections=0\nsocket.listen.backlog.size=50'), {
    port: 9093, nodeId: -1, connectionsMaxIdleMs: -1, maxConnections: 0, listenBacklog: 50,
  });
  // What Number() would take and Java refuses: empty, exponent, hex, fraction, beyond 32 bits.
  for (const bad of ['', '1e3', '0x10', '1.5', '2147483648', '9 0']) {
    assert.throws(() => config(`port=${bad}`), new RegExp(`^Error: Invalid value ${bad} for configuration port: Not a number of type INT$`), `port=${bad}`);
  }
  assert.throws(() => config('connections.max.idle.ms=1e3'), /Not a number of type LONG/);
  assert.throws(() => config('max.connections=-1'), /Invalid value -1 for configuration max.connections: Value must be at least 0/);
  assert.throws(() => config('socket.listen.backlog.size=0'), /Value must be at least 1/);
  assert.deepEqual(config('metrics.port = 9404'), { metricsPort: 9404 });
  assert.throws(() => config('metrics.port=-1'), /Invalid value -1 for configuration metrics.port: Value must be at least 0/);
});

test('string values are trimmed as Kafka trims them; a continued line and escapes make a value', { timeout: 5_000 }, () => {
  assert.deepEqual(config('host =   10.0.0.1   \nlog.dirs=/data/one,\\\n    /data/two\nadvertised.host.name=broker\\u002dA'), {
    host: '10.0.0.1', dataDir: '/data/one', advertisedHost: 'broker-A',
  });
  assert.deepEqual(config('log.retention.hours = 48 '), { topicDefaults: { 'retention.ms': String(48 * 3_600_000) } });
});

test('listeners, advertised.listeners and listener.security.protocol.map are taken as Kafka writes them (checked when the broker starts)', { timeout: 5_000 }, () => {
  assert.deepEqual(config('listeners = PLAINTEXT://0.0.0.0:9092, LOCAL://127.0.0.1:9093\nadvertised.listeners=PLAINTEXT://broker-a:9092,LOCAL://127.0.0.1:9093\nlistener.security.protocol.map=PLAINTEXT:PLAINTEXT,LOCAL:PLAINTEXT'), {
    listeners: 'PLAINTEXT://0.0.0.0:9092, LOCAL://127.0.0.1:9093',
    advertisedListeners: 'PLAINTEXT://broker-a:9092,LOCAL://127.0.0.1:9093',
    listenerSecurityProtocolMap: 'PLAINTEXT:PLAINTEXT,LOCAL:PLAINTEXT',
  });
});

test('ssl.* and listener.name.<name>.ssl.* broker properties become the broker\'s ssl and listenerSsl settings', { timeout: 5_000 }, () => {
  const config = configFromProperties(parseProperties([
    'ssl.keystore.type=PEM', 'ssl.keystore.location=/k.pem', 'ssl.key.password = secret ', 'ssl.truststore.location=/ca.pem',
    'ssl.client.auth=REQUESTED', 'listener.name.external.ssl.client.auth=required', 'ssl.endpoint.identification.algorithm=',
  ].join('\n')));
  assert.deepEqual(config.ssl, { keystoreType: 'PEM', keystoreLocation: '/k.pem', keyPassword: 'secret', truststoreLocation: '/ca.pem', clientAuth: 'requested' });
  assert.deepEqual(config.listenerSsl, { EXTERNAL: { clientAuth: 'required' } });
  assert.throws(() => configFromProperties(parseProperties('ssl.client.auth=sometimes')), /Invalid value sometimes for configuration ssl.client.auth/);
  assert.throws(() => configFromProperties(parseProperties('ssl.cipher.suites=X')), /unknown broker properties: ssl.cipher.suites/);
});

test('--command-config: Kafka\'s client properties become securityProtocol and ssl; other protocols and store types are refused', { timeout: 5_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'brook-client-config-'));
  try {
    const keystore = join(dir, 'client.pem');
    writeFileSync(keystore, '-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----\n-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----\n');
    const warnings: string[] = [];
    const read = (text: string) => clientSecurityFromProperties(parseProperties(text), (m) => warnings.push(m));
    assert.deepEqual(read('security.protocol=PLAINTEXT'), {});
    assert.deepEqual(read(''), {});
    const ssl = read(`security.protocol=ssl\nssl.truststore.type=PEM\nssl.truststore.certificates=CA\nssl.keystore.type=PEM\nssl.keystore.location=${keystore}\nssl.key.password=pw\nssl.endpoint.identification.algorithm=\nclient.id=x`);
    assert.deepEqual(ssl, {
      securityProtocol: 'SSL',
      ssl: {
        ca: 'CA', cert: '-----BEGIN CERTIFICATE-----\nQ0VSVA==\n-----END CERTIFICATE-----', key: '-----BEGIN PRIVATE KEY-----\nS0VZ\n-----END PRIVATE KEY-----',
        passphrase: 'pw', endpointIdentificationAlgorithm: '',
      },
    });
    assert.deepEqual(warnings, ['these client properties are not used by brook: client.id']);
    assert.throws(() => read('security.protocol=SASL_SSL'), /sasl.mechanism=GSSAPI \(Kafka's default when sasl.mechanism is not set\) is not supported/);
    assert.throws(() => read('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=OAUTHBEARER'), /sasl.mechanism=OAUTHBEARER is not supported/);
    assert.throws(() => read('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN'), /needs a login: sasl.jaas.config/);
    assert.throws(() => read('security.protocol=KERBEROS'), /security.protocol=KERBEROS is not supported/);
    assert.throws(() => read('security.protocol=SSL\nssl.truststore.type=JKS'), /ssl.truststore.type=JKS is not supported/);
    assert.throws(() => read(`security.protocol=SSL\nssl.keystore.location=${join(dir, 'missing.pem')}`), /ssl.keystore.location: cannot read/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--command-config: SASL settings from sasl.jaas.config (Java JAAS quoting) or librdkafka\'s sasl.username and sasl.password', { timeout: 5_000 }, () => {
  const read = (text: string) => clientSecurityFromProperties(parseProperties(text));
  const plain = 'org.apache.kafka.common.security.plain.PlainLoginModule';
  const scram = 'org.apache.kafka.common.security.scram.ScramLoginModule';
  assert.deepEqual(read(`security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=${plain} required username="alice" password="alice-secret";`), {
    securityProtocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'PLAIN', username: 'alice', password: 'alice-secret' },
  });
  // In .properties a backslash escapes too: \\" in the file is \" in the value, a quote inside the JAAS string.
  const quoted = read(String.raw`security.protocol=sasl_ssl
sasl.mechanism=SCRAM-SHA-512
ssl.truststore.certificates=CA
sasl.jaas.config=${scram} REQUIRED \
  username='o\\'hara' /* the admin */ password="p;a=s\\"s";`);
  assert.deepEqual(quoted, {
    securityProtocol: 'SASL_SSL', sasl: { mechanism: 'SCRAM-SHA-512', username: "o'hara", password: 'p;a=s"s' },
    ssl: { ca: 'CA', endpointIdentificationAlgorithm: 'https' },
  });
  assert.deepEqual(read('security.protocol=SASL_PLAINTEXT\nsasl.mechanism=SCRAM-SHA-256\nsasl.username=bob\nsasl.password=pw'), {
    securityProtocol: 'SASL_PLAINTEXT', sasl: { mechanism: 'SCRAM-SHA-256', username: 'bob', password: 'pw' },
  });
  const sasl = 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\nsasl.jaas.config=';
  assert.throws(() => read(`${sasl}${plain} required username="a" password="b"`), /not terminated by semi-colon/);
  assert.throws(() => read(`${sasl}${plain} required username= ;`), /Value not specified for key 'username'/);
  assert.throws(() => read(`${sasl}${plain} always username="a";`), /Invalid login module control flag 'always'/);
  assert.throws(() => read(`${sasl}${plain} required username="a" password="b"; ${plain} required username="a" password="b";`), /contains 2 login modules, should be 1/);
  assert.throws(() => read(`${sasl}com.sun.security.auth.module.Krb5LoginModule required useKeyTab=true;`), /login module com.sun.security.auth.module.Krb5LoginModule is not supported/);
  assert.throws(() => read(`${sasl}${scram} required username="a" password="b" tokenauth="true";`), /tokenauth/);
  assert.throws(() => read(`${sasl}${plain} required username="a" password="b";\nsasl.username=c\nsasl.password=b`), /name different logins/);
});
