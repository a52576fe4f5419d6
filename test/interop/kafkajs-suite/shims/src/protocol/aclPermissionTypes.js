/** KafkaJS's aclPermissionTypes, brook/kafkajs's public AclPermissionTypes. */
module.exports = require('brook/kafkajs').AclPermissionTypes
