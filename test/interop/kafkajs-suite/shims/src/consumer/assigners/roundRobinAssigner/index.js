/** KafkaJS's RoundRobinAssigner factory: brook/kafkajs's public PartitionAssigners.roundRobin. */
module.exports = require('brook/kafkajs').PartitionAssigners.roundRobin
