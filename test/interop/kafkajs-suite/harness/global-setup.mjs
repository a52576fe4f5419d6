/**
 * Brook's embedded broker where KafkaJS's tests expect their cluster: PLAINTEXT
 * localhost:9092, SSL 9093, SASL_SSL 9094 (or free ports harness/run.mjs picked when these
 * are taken, KAFKAJS_SUITE_PORTS) (PLAIN test/testtest; SCRAM testscram with
 * testtestscram=256 / testtestscram=512), with the settings of KafkaJS's
 * docker-compose.2_4.yml that matter on one node: auto topic creation, 2 partitions for
 * auto-created topics, group.initial.rebalance.delay.ms=0, an ACL authorizer that allows
 * what no ACL denies. The TLS certificate is made with openssl into
 * ./testHelpers/certs (KafkaJS's helpers read ./testHelpers/certs/cert-signed).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

function makeCertificate(dir) {
  mkdirSync(dir, { recursive: true })
  const openssl = (args) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', '/CN=kafkajs-suite-ca', '-keyout', 'ca.key', '-out', 'ca.pem'])
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=localhost', '-keyout', 'server.key', '-out', 'server.csr'])
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n')
  openssl(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2', '-extfile', 'server.ext', '-out', 'cert-signed'])
  const keystore = join(dir, 'server-keystore.pem')
  writeFileSync(keystore, readFileSync(join(dir, 'cert-signed'), 'utf8') + readFileSync(join(dir, 'server.key'), 'utf8'))
  return keystore
}

export default async function globalSetup() {
  const brookRoot = process.env.BROOK_ROOT
  const { Broker, Admin, silentLogger } = await import(pathToFileURL(join(brookRoot, 'dist', 'src', 'index.js')).href)
  const keystore = makeCertificate(join(process.cwd(), 'testHelpers', 'certs'))
  // KafkaJS's ports, or the free ones harness/run.mjs picked (plaintext, SSL and SASL_SSL
  // seed lists of three; Brook listens on the first of each).
  const ports = (process.env.KAFKAJS_SUITE_PORTS || '9092,9095,9098,9093,9096,9099,9094,9097,9100').split(',').map(Number)
  const [plain, ssl, saslSsl] = [ports[0], ports[3], ports[6]]
  const broker = await Broker.start({
    dataDir: null,
    log: silentLogger,
    listeners: `PLAINTEXT://localhost:${plain},SSL://localhost:${ssl},SASL_SSL://localhost:${saslSsl}`,
    ssl: { keystoreType: 'PEM', keystoreLocation: keystore },
    saslEnabledMechanisms: 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    listenerSaslJaasConfig: {
      SASL_SSL: {
        // KafkaJS's testHelpers/kafka/server-jaas.conf: test, plus bob and alice for the ACL tests.
        PLAIN: 'org.apache.kafka.common.security.plain.PlainLoginModule required user_test="testtest" user_bob="bobbob" user_alice="alicealice";',
        'SCRAM-SHA-256': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
        'SCRAM-SHA-512': 'org.apache.kafka.common.security.scram.ScramLoginModule required;',
      },
    },
    autoCreateTopics: true,
    numPartitions: 2,
    groupInitialRebalanceDelayMs: 0,
    authorizerClassName: 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    allowEveryoneIfNoAclFound: true,
  })
  globalThis.__kafkajsSuiteBroker = broker
  const admin = await Admin.connect({ bootstrapServers: `localhost:${plain}` })
  try {
    // One request per credential: Kafka refuses a user altered twice in one request.
    await admin.alterUserScramCredentials([{ op: 'upsert', user: 'testscram', mechanism: 'SCRAM-SHA-256', password: 'testtestscram=256' }])
    await admin.alterUserScramCredentials([{ op: 'upsert', user: 'testscram', mechanism: 'SCRAM-SHA-512', password: 'testtestscram=512' }])
  } finally {
    admin.close()
  }
}
