/** KafkaJS's aclResourceTypes, brook/kafkajs's public AclResourceTypes. */
module.exports = require('brook/kafkajs').AclResourceTypes
