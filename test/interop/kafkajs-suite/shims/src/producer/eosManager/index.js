/**
 * KafkaJS's transaction state machine (eosManager) is internal: brook/kafkajs's producer runs
 * Brook's. The spec mocks this module to spy on it; nothing here calls it.
 */
module.exports = () => {
  throw new Error('eosManager: not available through brook/kafkajs: internal API of KafkaJS')
}
