/** KafkaJS's configResourceTypes, brook/kafkajs's public ConfigResourceTypes. */
module.exports = require('brook/kafkajs').ConfigResourceTypes
