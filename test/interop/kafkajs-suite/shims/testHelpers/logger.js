/**
 * `newLogger(opts)`: KafkaJS's logger (info, warn, error, debug, namespace, setLogLevel) as
 * brook/kafkajs makes it, remembering its level and logCreator so that the shims give the
 * same ones to the `new Kafka({...})` they make.
 */
const { Kafka, logLevel, consoleLogCreator } = require('brook/kafkajs')

const OPTIONS = Symbol('kafkajs-suite logger options')

const newLogger = (opts = {}) => {
  const options = { level: logLevel.NOTHING, logCreator: consoleLogCreator, ...opts }
  const logger = new Kafka({ brokers: ['localhost:9092'], logLevel: options.level, logCreator: options.logCreator }).logger()
  Object.defineProperty(logger, OPTIONS, { value: options, enumerable: false })
  return logger
}

/** The `logLevel` and `logCreator` of a logger made by newLogger (KafkaJS's defaults otherwise). */
const loggerOptions = logger => {
  const options = logger && logger[OPTIONS]
  return options ? { logLevel: options.level, logCreator: options.logCreator } : { logLevel: logLevel.NOTHING }
}

module.exports = { newLogger, loggerOptions }
