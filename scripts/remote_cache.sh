#!/usr/bin/env bash
# A real Bazel HTTP remote cache on loopback: nginx (Debian's nginx-light, installed by
# scripts/bootstrap.sh) serving GET and PUT of /ac/<digest> and /cas/<digest> from a directory
# (its core WebDAV module), which is Bazel's HTTP cache protocol.
#
#   scripts/remote_cache.sh start   # prints the URL; then:
#   bazel test --config=remote_cache //e2e:e2e_tests
#   scripts/remote_cache.sh stop
#
# PYIREE_REMOTE_CACHE_PORT (9092) and PYIREE_REMOTE_CACHE_DIR (<tmp>/pyiree_tf_support_remote_cache)
# choose where; runs as any user (pid, logs and temp files live in that directory). Starting an
# already running cache does nothing. A team's shared server replaces the URL:
#   bazel test --config=remote_cache --remote_cache=http://cache.example:8080 ...
set -euo pipefail

port=${PYIREE_REMOTE_CACHE_PORT:-9092}
dir=${PYIREE_REMOTE_CACHE_DIR:-${TMPDIR:-/tmp}/pyiree_tf_support_remote_cache}
conf=$dir/nginx.conf
pid=$dir/nginx.pid

usage() { echo "usage: $0 start|stop" >&2; exit 2; }
[ $# -eq 1 ] || usage

case "$1" in
  start)
    if ! command -v nginx >/dev/null; then
      echo "remote_cache: nginx not found; run scripts/bootstrap.sh as root" \
           "(Debian package nginx-light)" >&2
      exit 1
    fi
    if [ -f "$pid" ] && kill -0 "$(cat "$pid")" 2>/dev/null; then
      echo "http://127.0.0.1:$port"; exit 0
    fi
    mkdir -p "$dir/store/ac" "$dir/store/cas" "$dir/tmp"
    cat > "$conf" <<CONF
worker_processes 1;
user $(id -un) $(id -gn);
pid $pid;
error_log $dir/error.log warn;
events { worker_connections 256; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir/tmp;
  proxy_temp_path $dir/tmp;
  fastcgi_temp_path $dir/tmp;
  uwsgi_temp_path $dir/tmp;
  scgi_temp_path $dir/tmp;
  server {
    listen 127.0.0.1:$port;
    root $dir/store;
    client_max_body_size 0;
    location ~ ^/(ac|cas)/[0-9a-f]+\$ {
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
CONF
    nginx -c "$conf" -p "$dir" -e "$dir/error.log"
    for _ in $(seq 50); do
      if curl -s -o /dev/null "http://127.0.0.1:$port/ac/0"; then
        echo "http://127.0.0.1:$port"; exit 0
      fi
      sleep 0.1
    done
    echo "remote_cache: nginx did not answer on 127.0.0.1:$port; see $dir/error.log" >&2; exit 1
    ;;
  stop)
    if [ -f "$pid" ] && kill -0 "$(cat "$pid")" 2>/dev/null; then
      nginx -c "$conf" -p "$dir" -e "$dir/error.log" -s quit
    fi
    ;;
  *) usage ;;
esac
