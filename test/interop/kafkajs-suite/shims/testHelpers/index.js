/**
 * KafkaJS's testHelpers, the same exported names, over brook/kafkajs: connection options
 * are KafkaJS's (ports 9092/9093/9094 of the broker jest's globalSetup started), and
 * `createCluster()` returns a ClusterShim that the shims of createAdmin, createProducer and
 * createConsumer turn into `new Kafka({...})` of brook/kafkajs.
 */
const crypto = require('crypto')
const uuid = require('uuid/v4')
const semver = require('semver')
const { Kafka, logLevel } = require('brook/kafkajs')
const { ClusterShim } = require('./cluster')
const { newLogger } = require('./logger')
const waitFor = require('../src/utils/waitFor')

const getHost = () => 'localhost'
const secureRandom = (length = 10) =>
  `${crypto.randomBytes(length).toString('hex')}-${process.pid}-${uuid()}`

// KafkaJS's ports (its seed lists name three brokers per listener; Brook is one node, the
// other two are closed ports), or the free ones harness/run.mjs picked when these are taken.
const PORTS = (process.env.KAFKAJS_SUITE_PORTS || '9092,9095,9098,9093,9096,9099,9094,9097,9100')
  .split(',')
  .map(Number)
const seeds = ports => (host = getHost()) => ports.map(port => `${host}:${port}`)
const plainTextBrokers = seeds(PORTS.slice(0, 3))
const sslBrokers = seeds(PORTS.slice(3, 6))
const saslBrokers = seeds(PORTS.slice(6, 9))

const connectionOpts = (opts = {}) => ({
  clientId: `test-${secureRandom()}`,
  connectionTimeout: 3000,
  requestTimeout: 30000,
  logger: newLogger(),
  host: getHost(),
  port: PORTS[0],
  ...opts,
})

const certificate = () => require('fs').readFileSync('./testHelpers/certs/cert-signed', 'utf-8')

const sslConnectionOpts = () =>
  Object.assign(connectionOpts(), {
    port: PORTS[3],
    ssl: { servername: 'localhost', rejectUnauthorized: false, ca: [certificate()] },
  })

const sasl = (mechanism, username, password) => () =>
  Object.assign(sslConnectionOpts(), { port: PORTS[6], sasl: { mechanism, username, password } })

const saslConnectionOpts = sasl('plain', 'test', 'testtest')
const saslWrongConnectionOpts = sasl('plain', 'wrong', 'wrong')
const saslSCRAM256ConnectionOpts = sasl('scram-sha-256', 'testscram', 'testtestscram=256')
const saslSCRAM256WrongConnectionOpts = sasl('scram-sha-256', 'wrong', 'wrong')
const saslSCRAM512ConnectionOpts = sasl('scram-sha-512', 'testscram', 'testtestscram=512')
const saslSCRAM512WrongConnectionOpts = sasl('scram-sha-512', 'wrong', 'wrong')

// An unsigned JWT ("alg": "none"), as KafkaJS's helper signs it with jsonwebtoken.
const unsignedJwt = claims => {
  const part = o => Buffer.from(JSON.stringify(o)).toString('base64url')
  return `${part({ alg: 'none', typ: 'JWT' })}.${part(claims)}.`
}
const saslOAuthBearerConnectionOpts = () =>
  Object.assign(sslConnectionOpts(), {
    port: PORTS[6],
    sasl: {
      mechanism: 'oauthbearer',
      oauthBearerProvider: () => {
        const now = Math.floor(Date.now() / 1000)
        return { value: unsignedJwt({ sub: 'test', iat: now, exp: now + 3600 }) }
      },
    },
  })

const saslEntries = []
if (process.env['OAUTHBEARER_ENABLED'] !== '1') {
  saslEntries.push({
    name: 'PLAIN',
    opts: saslConnectionOpts,
    wrongOpts: saslWrongConnectionOpts,
    expectedErr: /SASL PLAIN authentication failed/,
  })
  saslEntries.push({
    name: 'SCRAM 256',
    opts: saslSCRAM256ConnectionOpts,
    wrongOpts: saslSCRAM256WrongConnectionOpts,
    expectedErr: /SASL SCRAM SHA256 authentication failed/,
  })
  saslEntries.push({
    name: 'SCRAM 512',
    opts: saslSCRAM512ConnectionOpts,
    wrongOpts: saslSCRAM512WrongConnectionOpts,
    expectedErr: /SASL SCRAM SHA512 authentication failed/,
  })
} else {
  saslEntries.push({ name: 'OAUTHBEARER', opts: saslOAuthBearerConnectionOpts })
}

const internal = name => () => {
  throw new Error(`${name}: not available through brook/kafkajs: internal API of KafkaJS`)
}

const createCluster = (opts = {}, brokers = plainTextBrokers()) =>
  new ClusterShim(Object.assign(connectionOpts(), opts, { brokers }))

const createModPartitioner = () => ({ partitionMetadata, message }) => {
  const numPartitions = partitionMetadata.length
  const key = parseInt(message.key.replace(/[^\d]/g, ''), 10)
  return ((key || 0) % 3) % numPartitions
}

const testWaitFor = async (fn, opts = {}) => waitFor(fn, { ignoreTimeout: true, ...opts })

const retryProtocol = (errorType, fn) =>
  waitFor(
    async () => {
      try {
        return await fn()
      } catch (e) {
        if (e.type !== errorType) {
          throw e
        }
        return false
      }
    },
    { ignoreTimeout: true }
  )

const waitForMessages = (buffer, { number = 1, delay = 50 } = {}) =>
  waitFor(() => (buffer.length >= number ? buffer : false), { delay, ignoreTimeout: true })

const waitForNextEvent = (consumer, eventName, { maxWait = 10000 } = {}) =>
  new Promise((resolve, reject) => {
    const timeoutId = setTimeout(
      () => reject(new Error(`Timeout waiting for '${eventName}'`)),
      maxWait
    )
    consumer.on(eventName, event => {
      clearTimeout(timeoutId)
      resolve(event)
    })
    consumer.on(consumer.events.CRASH, event => {
      clearTimeout(timeoutId)
      reject(event.payload.error)
    })
  })

const waitForConsumerToJoinGroup = (consumer, { maxWait = 10000, label = '' } = {}) =>
  new Promise((resolve, reject) => {
    const timeoutId = setTimeout(() => {
      consumer.disconnect().then(() => {
        reject(new Error(`Timeout ${label}`.trim()))
      })
    }, maxWait)
    consumer.on(consumer.events.GROUP_JOIN, event => {
      clearTimeout(timeoutId)
      resolve(event)
    })
    consumer.on(consumer.events.CRASH, event => {
      clearTimeout(timeoutId)
      consumer.disconnect().then(() => {
        reject(event.payload.error)
      })
    })
  })

const createTopic = async ({ topic, partitions = 1, replicas = 1, config = [] }) => {
  const kafka = new Kafka({ clientId: 'testHelpers', brokers: plainTextBrokers().slice(0, 1), logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    await admin.connect()
    await admin.createTopics({
      waitForLeaders: true,
      topics: [{ topic, numPartitions: partitions, replicationFactor: replicas, configEntries: config }],
    })
  } finally {
    if (admin) await admin.disconnect()
  }
}

// KafkaJS runs Kafka's kafka-topics.sh; here the partitions are added through the admin API.
const addPartitions = async ({ topic, partitions }) => {
  const kafka = new Kafka({ clientId: 'testHelpers', brokers: plainTextBrokers().slice(0, 1), logLevel: logLevel.NOTHING })
  const admin = kafka.admin()
  try {
    await admin.connect()
    await admin.createPartitions({ topicPartitions: [{ topic, count: partitions }] })
  } finally {
    await admin.disconnect()
  }
}

const testIfKafkaVersion = (version, versionComparator) => {
  const scopedTest = (description, callback, testFn = test) => {
    return versionComparator(semver.coerce(process.env.KAFKA_VERSION), semver.coerce(version))
      ? testFn(description, callback)
      : test.skip(description, callback)
  }
  scopedTest.only = (description, callback) => scopedTest(description, callback, test.only)
  return scopedTest
}

const testIfKafkaVersionLTE = version => testIfKafkaVersion(version, semver.lte)
const testIfKafkaVersionGTE = version => testIfKafkaVersion(version, semver.gte)

const testIfKafkaAtMost_0_10 = testIfKafkaVersionLTE('0.10')
const testIfKafkaAtLeast_0_11 = testIfKafkaVersionGTE('0.11')
const testIfKafkaAtLeast_1_1_0 = testIfKafkaVersionGTE('1.1')

const flakyTest = (description, callback, testFn = test) =>
  testFn(`[flaky] ${description}`, callback)
flakyTest.skip = (description, callback) => flakyTest(description, callback, test.skip)
flakyTest.only = (description, callback) => flakyTest(description, callback, test.only)

const describeIfEnv = (key, value) => (description, callback, describeFn = describe) =>
  value === process.env[key] ? describeFn(description, callback) : describe.skip(description, callback)
const describeIfNotEnv = (key, value) => (description, callback, describeFn = describe) =>
  value !== process.env[key] ? describeFn(description, callback) : describe.skip(description, callback)

const describeIfOauthbearerEnabled = describeIfEnv('OAUTHBEARER_ENABLED', '1')
const describeIfOauthbearerDisabled = describeIfNotEnv('OAUTHBEARER_ENABLED', '1')

const unsupportedVersionResponse = () => Buffer.from({ type: 'Buffer', data: [0, 35, 0, 0, 0, 0] })
const unsupportedVersionResponseWithTimeout = () =>
  Buffer.from({ type: 'Buffer', data: [0, 0, 0, 0, 0, 35] })

const generateMessages = options => {
  const { prefix, number = 100 } = options || {}
  const prefixOrEmpty = prefix ? `-${prefix}` : ''
  return Array(number)
    .fill()
    .map((v, i) => {
      const value = secureRandom()
      return { key: `key${prefixOrEmpty}-${i}-${value}`, value: `value${prefixOrEmpty}-${i}-${value}` }
    })
}

module.exports = {
  secureRandom,
  connectionOpts,
  sslConnectionOpts,
  saslConnectionOpts,
  saslSCRAM256ConnectionOpts,
  saslSCRAM512ConnectionOpts,
  saslOAuthBearerConnectionOpts,
  saslEntries,
  createConnectionPool: internal('createConnectionPool'),
  createConnectionBuilder: internal('createConnectionBuilder'),
  createCluster,
  createModPartitioner,
  plainTextBrokers,
  sslBrokers,
  saslBrokers,
  newLogger,
  retryProtocol,
  createTopic,
  waitFor: testWaitFor,
  waitForMessages,
  waitForNextEvent,
  waitForConsumerToJoinGroup,
  testIfKafkaAtMost_0_10,
  testIfKafkaAtLeast_0_11,
  testIfKafkaAtLeast_1_1_0,
  flakyTest,
  describeIfOauthbearerEnabled,
  describeIfOauthbearerDisabled,
  addPartitions,
  unsupportedVersionResponse,
  generateMessages,
  unsupportedVersionResponseWithTimeout,
}
