/**
 * KafkaJS's `createErrorFromCode(code)` and `errorCodes` table, from brook/kafkajs's public
 * KafkaJSProtocolError (which carries KafkaJS's type, code and retriable for a Kafka code).
 */
const { KafkaJSProtocolError } = require('brook/kafkajs')

const createErrorFromCode = code => new KafkaJSProtocolError(code)

// Kafka 4.4's codes: -1 (UNKNOWN) .. 133.
const errorCodes = []
for (let code = -1; code <= 133; code++) {
  if (code === 0) continue
  const e = new KafkaJSProtocolError(code)
  errorCodes.push({ type: e.type, code: e.code, retriable: e.retriable, message: e.message })
}

const failure = code => code !== 0

module.exports = { createErrorFromCode, errorCodes, failure }
