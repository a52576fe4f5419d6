// KafkaJS's testHelpers/setup.js, less its eager loading of KafkaJS's protocol files: the
// test timeout (KafkaJS: 90 s; KAFKAJS_SUITE_TEST_TIMEOUT here, default 30 s, because a
// failing test that waits for messages with waitFor's ignoreTimeout waits that long), retries,
// jest-extended and KafkaJS's two custom matchers.
jest.setTimeout(Number(process.env.KAFKAJS_SUITE_TEST_TIMEOUT || 30000))

const retries = process.env.TEST_RETRIES != null ? parseInt(process.env.TEST_RETRIES, 10) : 0
jest.retryTimes(retries)

const matchers = require('jest-extended')
expect.extend(matchers)

expect.extend({
  optional(v, value) {
    const pass = typeof v === 'undefined' || v === value
    return {
      pass,
      message: () => `Expected ${value} to ${pass ? 'not ' : ''}be undefined or ${value}`,
    }
  },
  toBeTypeOrNull(received, argument) {
    if (received === null) return { message: () => `Ok`, pass: true }
    if (expect(received).toEqual(expect.any(argument))) {
      return { message: () => `Ok`, pass: true }
    } else {
      return { message: () => `expected ${received} to be ${argument} type or null`, pass: false }
    }
  },
})
