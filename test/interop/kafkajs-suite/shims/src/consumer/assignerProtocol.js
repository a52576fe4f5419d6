/** KafkaJS's AssignerProtocol (MemberMetadata, MemberAssignment): brook/kafkajs's public AssignerProtocol. */
module.exports = require('brook/kafkajs').AssignerProtocol
