/**
 * KafkaJS's internal `createProducer({ cluster, logger, createPartitioner, retry, idempotent,
 * transactionalId, transactionTimeout, maxInFlightRequests, instrumentationEmitter })`, as
 * brook/kafkajs's public `new Kafka({...}).producer({...})`. The cluster's metadataMaxAge
 * and allowAutoTopicCreation (KafkaJS's Kafka passes them to its Cluster) go to the producer.
 */
module.exports = ({ cluster, logger, instrumentationEmitter: _emitter, ...config }) => {
  const { readUncommitted: _isolation, ...fromCluster } = cluster.clientOptions()
  const options = { ...fromCluster }
  for (const [key, value] of Object.entries(config)) if (value !== undefined) options[key] = value
  return cluster.kafka(logger).producer(options)
}
