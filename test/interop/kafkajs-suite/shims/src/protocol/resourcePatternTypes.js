/** KafkaJS's resourcePatternTypes, brook/kafkajs's public ResourcePatternTypes. */
module.exports = require('brook/kafkajs').ResourcePatternTypes
