/**
 * KafkaJS's InstrumentationEventEmitter is internal: the specs only make one and hand it to
 * createCluster and the client factories, then listen through the client's `on`. brook/kafkajs
 * clients have their own emitter, so the shims ignore this one.
 */
module.exports = class InstrumentationEventEmitter {}
