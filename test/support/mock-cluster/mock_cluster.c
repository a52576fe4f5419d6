/*
 * librdkafka's mock Kafka cluster (rdkafka_mock.h) as a process that tests drive over stdin.
 *
 *   mock_cluster [brokers]        (default 3 brokers, ids 1..N, listening on 127.0.0.1)
 *
 * Prints one line on stdout: the cluster's bootstrap servers ("host:port,host:port,...").
 * Then reads commands, one per line (fields separated by spaces), and answers each with
 * one line, "ok" or "error <what>", in order:
 *
 *   topic <name> <partitions> <replication>   rd_kafka_mock_topic_create
 *   leader <topic> <partition> <broker_id>    rd_kafka_mock_partition_set_leader (-1: none)
 *   follower <topic> <partition> <broker_id>  rd_kafka_mock_partition_set_follower
 *   coordinator <group|transaction> <key> <broker_id>
 *                                             rd_kafka_mock_coordinator_set
 *   down <broker_id> / up <broker_id>         rd_kafka_mock_broker_set_down / _set_up
 *   rtt <broker_id> <ms>                      rd_kafka_mock_broker_set_rtt
 *   errors <api_key> <error>...               rd_kafka_mock_push_request_errors_array:
 *                                             the next requests of that API key, on any
 *                                             broker, fail with these errors in order
 *   clear-errors <api_key>                    rd_kafka_mock_clear_request_errors
 *   topic-error <topic> <error>               rd_kafka_mock_topic_set_error
 *   apiversion <api_key> <min> <max>          rd_kafka_mock_set_apiversion (-1 -1: disable)
 *   ping                                      answers "ok"
 *
 * An <error> is a Kafka error code (e.g. 16) or its librdkafka name (NOT_COORDINATOR, or
 * _TRANSPORT to make the broker drop the connection). Exits 0 on stdin EOF or "quit".
 * librdkafka's own log lines go to stderr.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#define MAX_FIELDS 64

static rd_kafka_mock_cluster_t *mcluster;

static void answer(rd_kafka_resp_err_t err) {
        if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
                printf("ok\n");
        else
                printf("error %s: %s\n", rd_kafka_err2name(err), rd_kafka_err2str(err));
}

/* A whole decimal integer in [min, max]. */
static int parse_int(const char *s, long min, long max, long *out) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno != 0 || end == s || *end != '\0' || v < min || v > max) return -1;
        *out = v;
        return 0;
}

/* A Kafka error code or librdkafka's name for it (with or without "RD_KAFKA_RESP_ERR_"). */
static int parse_error(const char *s, rd_kafka_resp_err_t *out) {
        long code;
        if (parse_int(s, -200, 1000, &code) == 0) {
                *out = (rd_kafka_resp_err_t)code;
                return 0;
        }
        if (strncmp(s, "RD_KAFKA_RESP_ERR_", 18) == 0) s += 18;
        const struct rd_kafka_err_desc *descs;
        size_t cnt;
        rd_kafka_get_err_descs(&descs, &cnt);
        for (size_t i = 0; i < cnt; i++) {
                if (descs[i].name != NULL && strcmp(descs[i].name, s) == 0) {
                        *out = descs[i].code;
                        return 0;
                }
        }
        return -1;
}

#define NEED(n, usage)                                                        \
        do {                                                                  \
                if (argc != (n)) {                                            \
                        printf("error usage: %s\n", usage);                   \
                        return;                                               \
                }                                                             \
        } while (0)

#define INT_ARG(var, idx, min, max)                                           \
        long var;                                                             \
        if (parse_int(argv[idx], min, max, &var) != 0) {                      \
                printf("error not an integer in range: %s\n", argv[idx]);     \
                return;                                                       \
        }

static void run(int argc, char **argv) {
        const char *cmd = argv[0];
        if (strcmp(cmd, "ping") == 0) {
                printf("ok\n");
        } else if (strcmp(cmd, "topic") == 0) {
                NEED(4, "topic <name> <partitions> <replication>");
                INT_ARG(partitions, 2, 1, 100000);
                INT_ARG(replication, 3, 1, 1000);
                answer(rd_kafka_mock_topic_create(mcluster, argv[1], (int)partitions, (int)replication));
        } else if (strcmp(cmd, "leader") == 0 || strcmp(cmd, "follower") == 0) {
                NEED(4, "leader|follower <topic> <partition> <broker_id>");
                INT_ARG(partition, 2, 0, 100000);
                INT_ARG(broker, 3, -1, 1000000);
                if (cmd[0] == 'l')
                        answer(rd_kafka_mock_partition_set_leader(mcluster, argv[1], (int32_t)partition, (int32_t)broker));
                else
                        answer(rd_kafka_mock_partition_set_follower(mcluster, argv[1], (int32_t)partition, (int32_t)broker));
        } else if (strcmp(cmd, "coordinator") == 0) {
                NEED(4, "coordinator <group|transaction> <key> <broker_id>");
                if (strcmp(argv[1], "group") != 0 && strcmp(argv[1], "transaction") != 0) {
                        printf("error key type must be group or transaction: %s\n", argv[1]);
                        return;
                }
                INT_ARG(broker, 3, -1, 1000000);
                answer(rd_kafka_mock_coordinator_set(mcluster, argv[1], argv[2], (int32_t)broker));
        } else if (strcmp(cmd, "down") == 0 || strcmp(cmd, "up") == 0) {
                NEED(2, "down|up <broker_id>");
                INT_ARG(broker, 1, 0, 1000000);
                answer(cmd[0] == 'd' ? rd_kafka_mock_broker_set_down(mcluster, (int32_t)broker)
                                     : rd_kafka_mock_broker_set_up(mcluster, (int32_t)broker));
        } else if (strcmp(cmd, "rtt") == 0) {
                NEED(3, "rtt <broker_id> <ms>");
                INT_ARG(broker, 1, 0, 1000000);
                INT_ARG(ms, 2, 0, 3600000);
                answer(rd_kafka_mock_broker_set_rtt(mcluster, (int32_t)broker, (int)ms));
        } else if (strcmp(cmd, "errors") == 0) {
                if (argc < 3) {
                        printf("error usage: errors <api_key> <error>...\n");
                        return;
                }
                INT_ARG(api_key, 1, 0, 32767);
                rd_kafka_resp_err_t errs[MAX_FIELDS];
                size_t cnt = 0;
                for (int i = 2; i < argc; i++) {
                        if (parse_error(argv[i], &errs[cnt]) != 0) {
                                printf("error unknown error code: %s\n", argv[i]);
                                return;
                        }
                        cnt++;
                }
                rd_kafka_mock_push_request_errors_array(mcluster, (int16_t)api_key, cnt, errs);
                printf("ok\n");
        } else if (strcmp(cmd, "clear-errors") == 0) {
                NEED(2, "clear-errors <api_key>");
                INT_ARG(api_key, 1, 0, 32767);
                rd_kafka_mock_clear_request_errors(mcluster, (int16_t)api_key);
                printf("ok\n");
        } else if (strcmp(cmd, "topic-error") == 0) {
                NEED(3, "topic-error <topic> <error>");
                rd_kafka_resp_err_t err;
                if (parse_error(argv[2], &err) != 0) {
                        printf("error unknown error code: %s\n", argv[2]);
                        return;
                }
                rd_kafka_mock_topic_set_error(mcluster, argv[1], err);
                printf("ok\n");
        } else if (strcmp(cmd, "apiversion") == 0) {
                NEED(4, "apiversion <api_key> <min> <max>");
                INT_ARG(api_key, 1, 0, 32767);
                INT_ARG(min, 2, -1, 32767);
                INT_ARG(max, 3, -1, 32767);
                answer(rd_kafka_mock_set_apiversion(mcluster, (int16_t)api_key, (int16_t)min, (int16_t)max));
        } else {
                printf("error unknown command: %s\n", cmd);
        }
}

int main(int argc, char **argv) {
        long brokers = 3;
        if (argc > 2 || (argc == 2 && parse_int(argv[1], 1, 100, &brokers) != 0)) {
                fprintf(stderr, "usage: %s [brokers 1..100]\n", argv[0]);
                return 2;
        }
        /* Answers must reach the reading test as soon as they are written. */
        setvbuf(stdout, NULL, _IOLBF, 0);

        char errstr[512];
        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        /* The handle only hosts the mock cluster; it never connects anywhere itself. */
        if (rd_kafka_conf_set(conf, "client.id", "brook-mock-cluster", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK ||
            rd_kafka_conf_set(conf, "log_level", "4", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK) {
                fprintf(stderr, "mock_cluster: %s\n", errstr);
                return 1;
        }
        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (rk == NULL) {
                fprintf(stderr, "mock_cluster: rd_kafka_new: %s\n", errstr);
                return 1;
        }
        mcluster = rd_kafka_mock_cluster_new(rk, (int)brokers);
        if (mcluster == NULL) {
                fprintf(stderr, "mock_cluster: rd_kafka_mock_cluster_new failed\n");
                rd_kafka_destroy(rk);
                return 1;
        }
        printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));

        char line[8192];
        while (fgets(line, sizeof(line), stdin) != NULL) {
                char *fields[MAX_FIELDS];
                int n = 0;
                for (char *tok = strtok(line, " \t\r\n"); tok != NULL && n < MAX_FIELDS; tok = strtok(NULL, " \t\r\n"))
                        fields[n++] = tok;
                if (n == 0) {
                        printf("error empty command\n");
                        continue;
                }
                if (strcmp(fields[0], "quit") == 0) break;
                run(n, fields);
        }

        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 0;
}
