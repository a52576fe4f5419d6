#!/usr/bin/env bash
# Builds target/brook-conformance.jar (the Kafka conformance oracle) only when it is
# missing or older than pom.xml / src/. Progress goes to stderr; on success the jar's
# absolute path is printed on stdout, so callers can do: jar=$(test/support/java/build.sh)
# Maven tries offline first (~/.m2 cache) and falls back to Maven Central.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$here/target/brook-conformance.jar"
log() { echo "build.sh: $*" >&2; }

stale() {
  [[ ! -f "$jar" ]] && return 0
  [[ -n "$(find "$here/pom.xml" "$here/src" -newer "$jar" -print -quit)" ]]
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
    mvn_args=(-q -B -Dstyle.color=never -f "$here/pom.xml" package)
    log "building $jar (jar missing or older than pom.xml/src)"
    offline_log="$here/target/.offline-build.log"
    # (sed drops the stray ESC[0m codes some Maven 3.8 builds print even with -q -B)
    if mvn -o "${mvn_args[@]}" 2>&1 | sed 's/\x1b\[0m//g' >"$offline_log"; then
      log "built offline from the local Maven cache"
    else
      log "offline build failed (see $offline_log); retrying online via Maven Central"
      mvn "${mvn_args[@]}" 2>&1 | sed 's/\x1b\[0m//g' >&2
      log "built"
    fi
  else
    log "another process built $jar meanwhile"
  fi
else
  log "up to date: $jar"
fi
echo "$jar"
