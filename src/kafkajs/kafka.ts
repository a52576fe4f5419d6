/**
 * `new Kafka(config)`: the client factory of KafkaJS. Each client (producer, consumer, admin)
 * is Brook's own client underneath, made with this configuration when it connects.
 */
import { KafkaJSAdmin } from './admin.js';
import { commonOptions, type KafkaConfig } from './config.js';
import { KafkaJSConsumer } from './consumer.js';
import type { ConsumerConfig } from './consumer-types.js';
import { KafkaJSLogging, logLevel as LEVELS, type KafkaJSLogger } from './logger.js';
import { KafkaJSProducer, type ProducerConfig } from './producer.js';

export class Kafka {
  private readonly logging: KafkaJSLogging;

  constructor(private readonly config: KafkaConfig) {
    this.logging = new KafkaJSLogging(config.logLevel ?? LEVELS.INFO, config.logCreator);
  }

  private options = (): ReturnType<typeof commonOptions> => commonOptions(this.config);

  producer(config: ProducerConfig = {}): KafkaJSProducer {
    return new KafkaJSProducer(this.options, { ...config, retry: { ...this.config.retry, ...config.retry } }, this.logging);
  }

  consumer(config: ConsumerConfig): KafkaJSConsumer {
    const admin = new KafkaJSAdmin(this.options, this.logging);
    return new KafkaJSConsumer(this.options, { ...config, retry: { ...this.config.retry, ...config?.retry } }, this.logging, admin);
  }

  admin(_config: { retry?: KafkaConfig['retry'] } = {}): KafkaJSAdmin {
    return new KafkaJSAdmin(this.options, this.logging);
  }

  logger(): KafkaJSLogger {
    return this.logging.logger();
  }
}
