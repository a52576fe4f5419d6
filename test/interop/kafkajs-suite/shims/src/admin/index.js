/**
 * KafkaJS's internal `createAdmin({ cluster, logger, retry, instrumentationEmitter })`,
 * as brook/kafkajs's public `new Kafka({...}).admin({ retry })`. KafkaJS's admin does not
 * touch its cluster until a call needs the network (fetchTopicOffsets.spec.js's first
 * test makes one with `cluster` still undefined and checks only argument validation):
 * without a cluster, the test cluster's default options are used.
 */
module.exports = ({ cluster, logger, retry }) =>
  (cluster || require('testHelpers').createCluster()).kafka(logger).admin(retry !== undefined ? { retry } : {})
