/*
 * The benchmarks' librdkafka load (scenario 3, broker against broker): one librdkafka
 * producer or consumer, timed by itself, printing one JSON line on stdout.
 *
 *   rdkafka_load produce <bootstrap> <topic> <records> <value_bytes> <acks: 1|all> <rate>
 *       Sends <records> values of <value_bytes> bytes, no key, spread over the topic's
 *       partitions by librdkafka's partitioner. <rate> records/s paces the sends (open
 *       loop: each record's latency runs from its scheduled send time, so a slow broker
 *       cannot hide behind a slower sender); 0 sends as fast as the client's queue allows,
 *       and latency then includes the time a record waits in that queue.
 *       {"records","bytes","ms","p50Ms","p99Ms","maxMs","errors","firstError"}
 *   rdkafka_load consume <bootstrap> <topic> <partitions> <records> <timeout_ms>
 *       Reads partitions 0..N-1 from the beginning (assign, no group) until <records>.
 *       {"records","bytes","ms","firstMs","timedOut"}: ms from start, firstMs when the
 *       first record arrived.
 *
 * Client settings are librdkafka's defaults except linger.ms=5 (Java's default since Kafka
 * 4.0, so both loads batch alike) and compression none.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <librdkafka/rdkafka.h>

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void die(const char *what, const char *detail) {
  fprintf(stderr, "rdkafka_load: %s: %s\n", what, detail);
  exit(2);
}

static void set(rd_kafka_conf_t *conf, const char *name, const char *value) {
  char err[512];
  if (rd_kafka_conf_set(conf, name, value, err, sizeof err) != RD_KAFKA_CONF_OK) die(name, err);
}

/* RDKAFKA_LOAD_DEBUG=fetch,protocol (librdkafka's debug contexts) logs to stderr, for diagnosis. */
static rd_kafka_conf_t *new_conf(const char *bootstrap) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstrap);
  const char *debug = getenv("RDKAFKA_LOAD_DEBUG");
  if (debug && *debug) set(conf, "debug", debug);
  return conf;
}

/* Per-record send times (scheduled, ns) and latencies, indexed by the record's number. */
static int64_t *sent_at;
static double *latency_ms;
static long delivered, errors;
static char first_error[256];

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque) {
  (void)rk;
  (void)opaque;
  long i = (long)(intptr_t)m->_private;
  if (m->err) {
    if (errors++ == 0) snprintf(first_error, sizeof first_error, "%s", rd_kafka_err2str(m->err));
  } else {
    latency_ms[delivered++] = (double)(now_ns() - sent_at[i]) / 1e6;
  }
}

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double percentile(const double *sorted, long n, double p) {
  if (n == 0) return 0;
  long i = (long)(p * (double)n);
  return sorted[i >= n ? n - 1 : i];
}

static int produce(const char *bootstrap, const char *topic, long records, int value_bytes, const char *acks, double rate) {
  char err[512];
  rd_kafka_conf_t *conf = new_conf(bootstrap);
  set(conf, "acks", acks);
  set(conf, "linger.ms", "5");
  set(conf, "compression.codec", "none");
  rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!rk) die("rd_kafka_new", err);
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
  sent_at = malloc(sizeof *sent_at * (size_t)records);
  latency_ms = malloc(sizeof *latency_ms * (size_t)records);
  char *value = malloc((size_t)value_bytes);
  if (!sent_at || !latency_ms || !value) die("malloc", "out of memory");
  for (int i = 0; i < value_bytes; i++) value[i] = (char)('a' + i % 26);
  /* Metadata first, so the first records do not wait for it inside the timing. */
  const struct rd_kafka_metadata *md;
  if (rd_kafka_metadata(rk, 0, rkt, &md, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR) die("metadata", topic);
  rd_kafka_metadata_destroy(md);
  int64_t start = now_ns();
  double interval_ns = rate > 0 ? 1e9 / rate : 0;
  for (long i = 0; i < records; i++) {
    int64_t due = start + (int64_t)(interval_ns * (double)i);
    if (rate > 0) {
      while (now_ns() < due) rd_kafka_poll(rk, 0);
    }
    sent_at[i] = rate > 0 ? due : now_ns();
    while (rd_kafka_produce(rkt, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, value, (size_t)value_bytes, NULL, 0, (void *)(intptr_t)i) != 0) {
      if (rd_kafka_last_error() != RD_KAFKA_RESP_ERR__QUEUE_FULL) die("produce", rd_kafka_err2str(rd_kafka_last_error()));
      rd_kafka_poll(rk, 1);
    }
    rd_kafka_poll(rk, 0);
  }
  while (delivered + errors < records) rd_kafka_poll(rk, 10);
  double ms = (double)(now_ns() - start) / 1e6;
  qsort(latency_ms, (size_t)delivered, sizeof *latency_ms, by_value);
  printf("{\"records\":%ld,\"bytes\":%ld,\"ms\":%.3f,\"p50Ms\":%.3f,\"p99Ms\":%.3f,\"maxMs\":%.3f,\"errors\":%ld,\"firstError\":\"%s\"}\n",
         delivered, delivered * value_bytes, ms, percentile(latency_ms, delivered, 0.5), percentile(latency_ms, delivered, 0.99),
         delivered ? latency_ms[delivered - 1] : 0, errors, first_error);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_destroy(rk);
  return errors > 0 ? 1 : 0;
}

static int consume(const char *bootstrap, const char *topic, int partitions, long records, long timeout_ms) {
  char err[512];
  rd_kafka_conf_t *conf = new_conf(bootstrap);
  /* librdkafka's assign() wants a group.id; with assign and no commits the group is never joined. */
  set(conf, "group.id", "rdkafka-load");
  set(conf, "enable.auto.commit", "false");
  set(conf, "enable.partition.eof", "false");
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, conf, err, sizeof err);
  if (!rk) die("rd_kafka_new", err);
  rd_kafka_poll_set_consumer(rk);
  /* Metadata first: partitions assigned before their leader is known wait for librdkafka's
   * offset-query retry timer (about 500 ms) before the first fetch. */
  rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
  const struct rd_kafka_metadata *md;
  if (rd_kafka_metadata(rk, 0, rkt, &md, 10000) != RD_KAFKA_RESP_ERR_NO_ERROR) die("metadata", topic);
  rd_kafka_metadata_destroy(md);
  rd_kafka_topic_destroy(rkt);
  rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new(partitions);
  for (int p = 0; p < partitions; p++) rd_kafka_topic_partition_list_add(list, topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
  int64_t start = now_ns();
  rd_kafka_resp_err_t assigned = rd_kafka_assign(rk, list);
  if (assigned != RD_KAFKA_RESP_ERR_NO_ERROR) die("assign", rd_kafka_err2str(assigned));
  rd_kafka_topic_partition_list_destroy(list);
  long got = 0, bytes = 0;
  double first_ms = -1;
  int timed_out = 0;
  while (got < records) {
    if ((now_ns() - start) / 1000000 > timeout_ms) {
      timed_out = 1;
      break;
    }
    rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 100);
    if (!m) continue;
    if (m->err) {
      fprintf(stderr, "rdkafka_load: consume: %s\n", rd_kafka_message_errstr(m));
    } else {
      if (first_ms < 0) first_ms = (double)(now_ns() - start) / 1e6;
      got++;
      bytes += (long)m->len;
    }
    rd_kafka_message_destroy(m);
  }
  double ms = (double)(now_ns() - start) / 1e6;
  printf("{\"records\":%ld,\"bytes\":%ld,\"ms\":%.3f,\"firstMs\":%.3f,\"timedOut\":%s}\n", got, bytes, ms, first_ms, timed_out ? "true" : "false");
  rd_kafka_consumer_close(rk);
  rd_kafka_destroy(rk);
  return timed_out;
}

int main(int argc, char **argv) {
  if (argc == 8 && strcmp(argv[1], "produce") == 0)
    return produce(argv[2], argv[3], atol(argv[4]), atoi(argv[5]), argv[6], atof(argv[7]));
  if (argc == 7 && strcmp(argv[1], "consume") == 0)
    return consume(argv[2], argv[3], atoi(argv[4]), atol(argv[5]), atol(argv[6]));
  fprintf(stderr,
          "usage: rdkafka_load produce <bootstrap> <topic> <records> <value_bytes> <1|all> <rate/s, 0: unpaced>\n"
          "       rdkafka_load consume <bootstrap> <topic> <partitions> <records> <timeout_ms>\n");
  return 2;
}
