/** KafkaJS's retrier (createRetry) is internal: brook/kafkajs retries inside Brook's client. */
module.exports = () => {
  throw new Error('createRetry: not available through brook/kafkajs: internal API of KafkaJS')
}
