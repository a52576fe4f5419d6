/** KafkaJS's uniq helper (a test utility). */
module.exports = array => Array.from(new Set(array))
