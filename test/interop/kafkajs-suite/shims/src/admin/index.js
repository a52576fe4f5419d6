/**
 * KafkaJS's internal `createAdmin({ cluster, logger, retry, instrumentationEmitter })`,
 * as brook/kafkajs's public `new Kafka({...}).admin({ retry })`. (fetchTopicOffsets.spec.js's
 * first test makes one with `cluster` still undefined and checks only argument validation:
 * see usableCluster.)
 */
const { usableCluster } = require('../../testHelpers/cluster')
const { connectionOpts, plainTextBrokers } = require('testHelpers')

module.exports = ({ cluster, logger, retry }) =>
  usableCluster(cluster, () => ({ ...connectionOpts(), brokers: plainTextBrokers() }))
    .kafka(logger)
    .admin(retry !== undefined ? { retry } : {})
