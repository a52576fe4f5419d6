#!/usr/bin/env bash
# Builds one C program against the system librdkafka (pkg-config rdkafka; Debian's
# librdkafka-dev) with gcc, only when the binary is missing or older than its source or this
# script:   scripts/build-rdkafka-program.sh <source.c> <binary>
# Progress goes to stderr; on success the binary's absolute path is printed on stdout.
# Used for librdkafka's mock cluster (test/support/mock-cluster) and the benchmarks'
# librdkafka load generator (bench/c).
set -euo pipefail

src="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
mkdir -p "$(dirname "$2")"
bin="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
self="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
log() { echo "build: $*" >&2; }

stale() {
  [[ ! -x "$bin" ]] && return 0
  [[ -n "$(find "$src" "$self" -newer "$bin" -print -quit)" ]]
}

if stale; then
  # Serialize concurrent callers (e.g. parallel test workers).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$bin.lock"
    flock 9
  fi
  if stale; then
    command -v gcc >/dev/null 2>&1 || { log "gcc not found (apt-get install gcc)"; exit 1; }
    pkg-config --exists rdkafka 2>/dev/null || { log "librdkafka development files not found (apt-get install librdkafka-dev pkg-config)"; exit 1; }
    log "building $bin against librdkafka $(pkg-config --modversion rdkafka)"
    # Written to a temporary file and renamed, so a caller never runs half a binary.
    tmp="$bin.tmp.$$"
    # shellcheck disable=SC2046 # pkg-config's flags are meant to be split
    gcc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -o "$tmp" "$src" $(pkg-config --cflags --libs rdkafka)
    mv -f "$tmp" "$bin"
  else
    log "another process built $bin meanwhile"
  fi
else
  log "up to date: $bin"
fi
echo "$bin"
