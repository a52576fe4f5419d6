/**
 * KafkaJS's internal `createConsumer({ cluster, groupId, logger, isolationLevel, ... })`, as
 * brook/kafkajs's public `new Kafka({...}).consumer({...})`: `isolationLevel` (KafkaJS's
 * Kafka makes it from `readUncommitted`) becomes `readUncommitted` again; the cluster's
 * metadataMaxAge and allowAutoTopicCreation go to the consumer.
 */
const READ_UNCOMMITTED = 0

const { usableCluster } = require('../../testHelpers/cluster')
const { connectionOpts, plainTextBrokers } = require('testHelpers')

module.exports = ({ cluster: given, logger, instrumentationEmitter: _emitter, isolationLevel, ...config }) => {
  const cluster = usableCluster(given, () => ({ ...connectionOpts(), brokers: plainTextBrokers() }))
  const options = { ...cluster.clientOptions() }
  for (const [key, value] of Object.entries(config)) if (value !== undefined) options[key] = value
  if (isolationLevel !== undefined) options.readUncommitted = isolationLevel === READ_UNCOMMITTED
  return cluster.kafka(logger).consumer(options)
}
