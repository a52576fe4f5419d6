/** KafkaJS's aclOperationTypes, brook/kafkajs's public AclOperationTypes. */
module.exports = require('brook/kafkajs').AclOperationTypes
