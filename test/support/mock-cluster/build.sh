#!/usr/bin/env bash
# Builds target/mock_cluster (librdkafka's mock cluster driven over stdin, see
# mock_cluster.c) with gcc against the system librdkafka (pkg-config rdkafka; Debian's
# librdkafka-dev), only when the binary is missing or older than mock_cluster.c or this
# script. Progress goes to stderr; on success the binary's absolute path is printed on
# stdout, so callers can do: bin=$(test/support/mock-cluster/build.sh)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bin="$here/target/mock_cluster"
log() { echo "build.sh: $*" >&2; }

stale() {
  [[ ! -x "$bin" ]] && return 0
  [[ -n "$(find "$here/mock_cluster.c" "$here/build.sh" -newer "$bin" -print -quit)" ]]
}

if stale; then
  mkdir -p "$here/target"
  # Serialize concurrent callers (e.g. parallel test workers).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$here/target/.build.lock"
    flock 9
  fi
  if stale; then
    command -v gcc >/dev/null 2>&1 || { log "gcc not found (apt-get install gcc)"; exit 1; }
    pkg-config --exists rdkafka 2>/dev/null || { log "librdkafka development files not found (apt-get install librdkafka-dev pkg-config)"; exit 1; }
    log "building $bin against librdkafka $(pkg-config --modversion rdkafka)"
    # Written to a temporary file and renamed, so a caller never runs half a binary.
    tmp="$bin.tmp.$$"
    # shellcheck disable=SC2046 # pkg-config's flags are meant to be split
    gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o "$tmp" "$here/mock_cluster.c" $(pkg-config --cflags --libs rdkafka)
    mv -f "$tmp" "$bin"
  else
    log "another process built $bin meanwhile"
  fi
else
  log "up to date: $bin"
fi
echo "$bin"
