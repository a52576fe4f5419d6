/** KafkaJS's legacy partitioner factory: brook/kafkajs's public Partitioners.LegacyPartitioner. */
module.exports = require('brook/kafkajs').Partitioners.LegacyPartitioner
