/** KafkaJS's legacy murmur2: brook/kafkajs exports it as legacyMurmur2. */
module.exports = require('brook/kafkajs').legacyMurmur2
