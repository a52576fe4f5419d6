#!/usr/bin/env bash
# Builds target/mock_cluster (librdkafka's mock cluster driven over stdin, see
# mock_cluster.c) against the system librdkafka, only when it is stale; prints the binary's
# absolute path, so callers can do: bin=$(test/support/mock-cluster/build.sh)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
exec "$here/../../../scripts/build-rdkafka-program.sh" "$here/mock_cluster.c" "$here/target/mock_cluster"
