/**
 * KafkaJS's internal `createAdmin({ cluster, logger, retry, instrumentationEmitter })`,
 * as brook/kafkajs's public `new Kafka({...}).admin({ retry })`.
 */
module.exports = ({ cluster, logger, retry }) =>
  cluster.kafka(logger).admin(retry !== undefined ? { retry } : {})
