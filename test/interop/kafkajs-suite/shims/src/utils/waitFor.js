/**
 * KafkaJS's waitFor (a test utility): calls `fn` every `delay` ms until it returns a truthy
 * value, rejecting with KafkaJSTimeout after `maxWait` ms unless `ignoreTimeout`.
 */
const sleep = require('./sleep')
const { KafkaJSTimeout } = require('brook/kafkajs')

module.exports = (fn, { delay = 50, maxWait = 10000, timeoutMessage = 'Timeout', ignoreTimeout = false } = {}) => {
  let timeoutId
  let totalWait = 0
  let fulfilled = false

  const check = async (resolve, reject) => {
    totalWait += delay
    if (fulfilled) return
    await sleep(delay)
    try {
      const result = await fn(totalWait)
      if (result) {
        fulfilled = true
        clearTimeout(timeoutId)
        return resolve(result)
      }
      check(resolve, reject)
    } catch (e) {
      fulfilled = true
      clearTimeout(timeoutId)
      reject(e)
    }
  }

  return new Promise((resolve, reject) => {
    check(resolve, reject)
    if (ignoreTimeout) return
    timeoutId = setTimeout(() => {
      if (!fulfilled) {
        fulfilled = true
        reject(new KafkaJSTimeout(timeoutMessage))
      }
    }, maxWait)
  })
}
