/**
 * What `createCluster()` returns. KafkaJS's Cluster is internal (broker pool, metadata
 * cache, connections); brook/kafkajs has none of it in its public API. This object carries
 * the connection options (turned into `new Kafka({...})` by the shims) and implements the
 * Cluster methods the specs call where brook/kafkajs's public admin client can answer them;
 * the others throw "not available through brook/kafkajs: internal API".
 */
const { Kafka } = require('brook/kafkajs')
const { loggerOptions } = require('./logger')

const internal = name => () => {
  throw new Error(`cluster.${name}: not available through brook/kafkajs: internal API of KafkaJS`)
}

class ClusterShim {
  constructor(options) {
    this.options = options
    this.targetTopics = new Set()
    this.metadata = new Map()
    this.admin = null
    this.connected = false
  }

  /** The `new Kafka(...)` configuration these connection options stand for. */
  kafkaConfig(logger = this.options.logger) {
    const o = this.options
    return {
      clientId: o.clientId,
      brokers: o.brokers,
      ...(o.ssl !== undefined ? { ssl: o.ssl } : {}),
      ...(o.sasl !== undefined ? { sasl: o.sasl } : {}),
      connectionTimeout: o.connectionTimeout,
      requestTimeout: o.requestTimeout,
      ...(o.retry !== undefined ? { retry: o.retry } : {}),
      ...loggerOptions(logger),
    }
  }

  /** Options of the cluster that KafkaJS's clients read from it (metadata age, isolation level, auto creation). */
  clientOptions() {
    const o = this.options
    const out = {}
    if (o.metadataMaxAge !== undefined) out.metadataMaxAge = o.metadataMaxAge
    if (o.allowAutoTopicCreation !== undefined) out.allowAutoTopicCreation = o.allowAutoTopicCreation
    if (o.isolationLevel !== undefined) out.readUncommitted = o.isolationLevel === 0
    return out
  }

  kafka(logger) {
    return new Kafka(this.kafkaConfig(logger))
  }

  async adminClient() {
    if (!this.admin) {
      this.admin = this.kafka().admin()
      await this.admin.connect()
    }
    return this.admin
  }

  async connect() {
    await this.adminClient()
    this.connected = true
  }

  async disconnect() {
    const admin = this.admin
    this.admin = null
    this.connected = false
    if (admin) await admin.disconnect()
  }

  isConnected() {
    return this.connected
  }

  async addTargetTopic(topic) {
    return this.addMultipleTargetTopics([topic])
  }

  async addMultipleTargetTopics(topics) {
    for (const topic of topics) this.targetTopics.add(topic)
    await this.refreshMetadata()
  }

  async refreshMetadata() {
    const admin = await this.adminClient()
    const topics = [...this.targetTopics]
    if (topics.length === 0) return
    const { topics: described } = await admin.fetchTopicMetadata({ topics })
    for (const t of described) this.metadata.set(t.name, t.partitions)
  }

  async refreshMetadataIfNecessary() {
    return this.refreshMetadata()
  }

  findTopicPartitionMetadata(topic) {
    return this.metadata.get(topic) || []
  }

  /** KafkaJS's shape: [{ topic, partitions: [{ partition, offset }] }], offsets of the latest (or earliest with fromBeginning). */
  async fetchTopicsOffset(topics) {
    const admin = await this.adminClient()
    return Promise.all(
      topics.map(async ({ topic, partitions, fromBeginning, fromTimestamp }) => {
        const wanted = new Set(partitions.map(p => p.partition))
        const offsets =
          fromTimestamp !== undefined && fromTimestamp !== null
            ? await admin.fetchTopicOffsetsByTimestamp(topic, fromTimestamp)
            : await admin.fetchTopicOffsets(topic)
        return {
          topic,
          partitions: offsets
            .filter(o => wanted.has(o.partition))
            .map(o => ({ partition: o.partition, offset: fromBeginning ? o.low : o.offset })),
        }
      })
    )
  }
}

for (const name of [
  'findBroker',
  'findControllerBroker',
  'findGroupCoordinator',
  'findGroupCoordinatorMetadata',
  'findLeaderForPartitions',
  'committedOffsets',
  'markOffsetAsCommitted',
  'getNodeIds',
  'defaultOffset',
  'isolationLevel',
]) {
  ClusterShim.prototype[name] = internal(name)
}
Object.defineProperty(ClusterShim.prototype, 'brokerPool', {
  get: internal('brokerPool'),
})

/**
 * The cluster a shim builds on: KafkaJS's factories do not touch their cluster until the
 * network is needed, and some specs pass none, or `{}`, to check arguments only; those get
 * the test cluster's default options.
 */
const usableCluster = (cluster, defaults) => (cluster instanceof ClusterShim ? cluster : new ClusterShim(defaults()))

module.exports = { ClusterShim, usableCluster }
