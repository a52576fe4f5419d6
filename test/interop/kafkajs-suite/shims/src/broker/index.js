/** KafkaJS's Broker (one connection to one broker) is internal: brook/kafkajs has no such class. */
module.exports = class Broker {
  constructor() {
    throw new Error('Broker: not available through brook/kafkajs: internal API of KafkaJS')
  }
}
