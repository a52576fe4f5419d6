/**
 * KafkaJS's internal `createProducer({ cluster, logger, createPartitioner, retry, idempotent,
 * transactionalId, transactionTimeout, maxInFlightRequests, instrumentationEmitter })`, as
 * brook/kafkajs's public `new Kafka({...}).producer({...})`. The cluster's metadataMaxAge
 * and allowAutoTopicCreation (KafkaJS's Kafka passes them to its Cluster) go to the producer.
 */
const { usableCluster } = require('../../testHelpers/cluster')
const { connectionOpts, plainTextBrokers } = require('testHelpers')

module.exports = ({ cluster: given, logger, instrumentationEmitter: _emitter, ...config }) => {
  const cluster = usableCluster(given, () => ({ ...connectionOpts(), brokers: plainTextBrokers() }))
  const { readUncommitted: _isolation, ...fromCluster } = cluster.clientOptions()
  const options = { ...fromCluster }
  for (const [key, value] of Object.entries(config)) if (value !== undefined) options[key] = value
  return cluster.kafka(logger).producer(options)
}
