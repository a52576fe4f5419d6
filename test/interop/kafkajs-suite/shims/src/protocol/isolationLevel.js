/** KafkaJS's isolation levels (Kafka's Fetch isolation_level values). */
module.exports = { READ_UNCOMMITTED: 0, READ_COMMITTED: 1 }
