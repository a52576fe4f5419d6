/** KafkaJS's compression `Types` and `Codecs`: brook/kafkajs's CompressionTypes and CompressionCodecs. */
const { CompressionTypes, CompressionCodecs } = require('brook/kafkajs')

module.exports = { Types: CompressionTypes, Codecs: CompressionCodecs }
