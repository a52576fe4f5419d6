#!/usr/bin/env bash
# Resolves the runtime classpath of an Apache Kafka 4.4 broker (see pom.xml) into
# target/classpath.txt (one line, absolute jar paths in ~/.m2 joined with ':'), only when
# that file is missing, older than pom.xml, or names a jar that is gone. Progress goes to
# stderr; on success the file's absolute path is printed on stdout, so callers can do:
#   cp=$(cat "$(test/support/kafka/build.sh)")
# `--kafka-version V` resolves the same pom with another Kafka release (-Dkafka.version=V)
# into target/classpath-V.txt instead, e.g. `build.sh --kafka-version 4.1.2` for the tests
# of Brook's client against an older broker.
# Maven tries offline first (~/.m2 cache) and falls back to Maven Central.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
log() { echo "build.sh: $*" >&2; }

version=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kafka-version)
      [[ $# -ge 2 && "$2" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { log "--kafka-version needs a release such as 4.1.2"; exit 2; }
      version="$2"
      shift 2
      ;;
    *) log "unknown argument: $1 (usage: build.sh [--kafka-version X.Y.Z])"; exit 2 ;;
  esac
done
# The pom's own version (4.4.0) keeps the name every caller knows.
if [[ -z "$version" ]]; then
  out="$here/target/classpath.txt"
  version_args=()
else
  out="$here/target/classpath-$version.txt"
  version_args=("-Dkafka.version=$version")
fi

stale() {
  [[ ! -s "$out" ]] && return 0
  [[ "$here/pom.xml" -nt "$out" ]] && return 0
  # A jar gone from the Maven cache (e.g. ~/.m2 cleaned) makes the classpath stale too.
  local jar jars
  IFS=: read -r -a jars <"$out"
  for jar in "${jars[@]}"; do [[ -f "$jar" ]] || return 0; done
  return 1
}

if stale; then
  mkdir -p "$here/target"
  # Serialize concurrent callers (e.g. parallel test workers).
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$here/target/.build.lock"
    flock 9
  fi
  if stale; then
    command -v mvn >/dev/null 2>&1 || { log "mvn not found (install Maven, e.g. apt-get install maven)"; exit 1; }
    # Written to a temporary file and renamed, so a reader never sees half a classpath.
    # (The plugin leaves an unchanged file untouched; the rename also refreshes its mtime.)
    tmp="$out.tmp"
    rm -f "$tmp"
    mvn_args=(-q -B -Dstyle.color=never -f "$here/pom.xml" dependency:build-classpath
      -Dmdep.outputFile="$tmp" -Dmdep.includeScope=runtime ${version_args[@]+"${version_args[@]}"})
    log "resolving the Kafka broker classpath into $out (missing or stale)"
    offline_log="$here/target/.offline-build.log"
    # (sed drops the stray ESC[0m codes some Maven 3.8 builds print even with -q -B)
    if mvn -o "${mvn_args[@]}" 2>&1 | sed 's/\x1b\[0m//g' >"$offline_log" && [[ -s "$tmp" ]]; then
      log "resolved offline from the local Maven cache"
    else
      log "offline resolution failed (see $offline_log); retrying online via Maven Central"
      mvn "${mvn_args[@]}" 2>&1 | sed 's/\x1b\[0m//g' >&2
      [[ -s "$tmp" ]] || { log "Maven wrote no classpath"; exit 1; }
      log "resolved"
    fi
    mv -f "$tmp" "$out"
  else
    log "another process resolved $out meanwhile"
  fi
else
  log "up to date: $out"
fi
echo "$out"
