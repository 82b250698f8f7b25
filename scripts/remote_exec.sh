#!/usr/bin/env bash
# Real Bazel remote execution on loopback: Bazel's own reference remote worker (CAS, action cache
# and Execution service over gRPC in one process, running actions on this machine), built from
# Debian's bazel-bootstrap-source (the sources of the very Bazel 4.2.3 we run) with javac against
# Bazel's own server jar, which already holds gRPC, netty, protobuf and the REAPI protos.
# Nothing is downloaded but the two Debian packages (installed here when run as root).
#
#   scripts/remote_exec.sh start   # prints the URL; then:
#   bazel test --config=remote_exec //e2e:e2e_tests
#   scripts/remote_exec.sh stop
#
# PYIREE_REMOTE_EXEC_PORT (9094) and PYIREE_REMOTE_EXEC_DIR (<tmp>/pyiree_tf_support_remote_exec)
# choose where; PYIREE_REMOTE_EXEC_JOBS (2) caps parallel actions. Starting a running worker does
# nothing. BuildGrid (PyPI) was tried first: no release on PyPI ships a worker
# (see docs/scaling_out.md).
set -euo pipefail

port=${PYIREE_REMOTE_EXEC_PORT:-9094}
dir=${PYIREE_REMOTE_EXEC_DIR:-${TMPDIR:-/tmp}/pyiree_tf_support_remote_exec}
jobs=${PYIREE_REMOTE_EXEC_JOBS:-2}
pid=$dir/worker.pid
server_jar=/usr/share/bazel/A-server.jar
sources=/usr/src/bazel-bootstrap/src/tools/remote/src/main/java
debian_packages=(bazel-bootstrap bazel-bootstrap-source default-jdk-headless)

usage() { echo "usage: $0 start|stop" >&2; exit 2; }
[ $# -eq 1 ] || usage

install_packages() {
  local missing=() pkg
  for pkg in "${debian_packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return
  if [ "$(id -u)" != 0 ]; then
    echo "remote_exec: missing Debian packages ${missing[*]}; install them as root" >&2; exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; }

case "$1" in
  start)
    if [ -f "$pid" ] && kill -0 "$(cat "$pid")" 2>/dev/null; then
      echo "grpc://127.0.0.1:$port"; exit 0
    fi
    install_packages
    classes=$dir/classes
    if [ ! -f "$classes/.built" ] || [ "$server_jar" -nt "$classes/.built" ]; then
      rm -rf "$classes"; mkdir -p "$classes"
      javac -nowarn -d "$classes" -cp "$server_jar" $(find "$sources" -name '*.java') \
          2>"$dir/javac.log" \
        || { echo "remote_exec: javac failed; see $dir/javac.log" >&2; exit 1; }
      touch "$classes/.built"
    fi
    mkdir -p "$dir/work" "$dir/cas"
    setsid java -cp "$classes:$server_jar" com.google.devtools.build.remote.worker.RemoteWorker \
      --listen_port="$port" --work_path="$dir/work" --cas_path="$dir/cas" --jobs="$jobs" \
      >"$dir/worker.log" 2>&1 </dev/null &
    echo $! >"$pid"
    for _ in $(seq 100); do
      listening && { echo "grpc://127.0.0.1:$port"; exit 0; }
      kill -0 "$(cat "$pid")" 2>/dev/null || break
      sleep 0.2
    done
    echo "remote_exec: worker did not listen on 127.0.0.1:$port; see $dir/worker.log" >&2; exit 1
    ;;
  stop)
    if [ -f "$pid" ] && kill -0 "$(cat "$pid")" 2>/dev/null; then
      kill "$(cat "$pid")"
    fi
    rm -f "$pid"
    ;;
  *) usage ;;
esac
