/** KafkaJS's sleep helper (a test utility). */
module.exports = timeInMs => new Promise(resolve => setTimeout(resolve, timeInMs))
