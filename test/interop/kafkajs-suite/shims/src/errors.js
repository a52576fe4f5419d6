/** KafkaJS's error classes: brook/kafkajs exports every one by name. */
const kafkajs = require('brook/kafkajs')

const CLIENTS = new Set(['KafkaJSProducer', 'KafkaJSConsumer', 'KafkaJSAdmin', 'KafkaJSTransaction'])

module.exports = Object.fromEntries(
  Object.entries(kafkajs).filter(([name, value]) => name.startsWith('KafkaJS') && !CLIENTS.has(name) && typeof value === 'function')
)
