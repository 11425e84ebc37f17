#!/usr/bin/env bash
# Memory per idle established DTLS session, as in docs/benchmarks/dtls.md: each server in turn on
# --server-cpu; dtlsbench (one client at a time, PSK TLS_PSK_WITH_AES_128_CCM_8, one GET per
# session, no close_notify, a fresh source port per handshake) leaves --first sessions, then more
# up to --total. 12 s after each batch (idle: past our 10 s after which a session drops its cipher
# engines and cached context): live heap after a full GC (the total of `jcmd PID GC.class_histogram`, which collects
# first; JVM servers only) and VmRSS. Heap per session = (heap at total - heap at first) /
# (total - first): the slope, so that what the first sessions load once (classes' statics, JIT
# caches, pools) is not counted per session. One JSON line per server on stdout.
#
#   benchmark-tool/src/main/c/dtls-heap.sh [--servers "stagecoach californium-nodedup libcoap"]
#       [--first 1000] [--total 10000] [--server-cpu 1] [--client-cpu 0] [--server-opts "JVM flags"]
#
# Each server's steps run under `flock -x /tmp/machine.lock`.
set -euo pipefail
# DTLS_BENCH_LOCKED=1: the caller already holds the exclusive lock (several scripts in one hold)
lock="flock -x /tmp/machine.lock"; [ "${DTLS_BENCH_LOCKED:-}" = 1 ] && lock=""
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
bench="$("$here/build.sh")"

servers="stagecoach californium-nodedup libcoap"
first=1000
total=10000
server_cpu=1
client_cpu=0
server_opts="${STAGECOACH_SERVER_OPTS:-}"
key_text="secretPSK"
while [ $# -gt 0 ]; do
  case "$1" in
    --servers) servers="$2"; shift 2 ;;
    --first) first="$2"; shift 2 ;;
    --total) total="$2"; shift 2 ;;
    --server-cpu) server_cpu="$2"; shift 2 ;;
    --client-cpu) client_cpu="$2"; shift 2 ;;
    --server-opts) server_opts="$2"; shift 2 ;;
    *) echo "dtls-heap: unknown option $1" >&2; exit 2 ;;
  esac
done
key_hex="$(printf '%s' "$key_text" | od -An -tx1 | tr -d ' \n')"
cp_bench="$root/benchmark-tool/target/classes:$root/benchmark-tool/target/lib/*"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"

server_cmd() { # name port
  local main="io.stagecoach.bench.BenchMain bench"
  case "$1" in
    stagecoach) echo "$java_bin $server_opts -cp $cp_bench $main sc-server --dtls --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    californium) echo "$java_bin $server_opts -cp $cp_bench $main cf-server --dtls --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    californium-nodedup) echo "$java_bin $server_opts -cp $cp_bench $main cf-server --dtls --no-dedup --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    libcoap) echo "coap-server-openssl -A 127.0.0.1 -p $(($2 - 1)) -k $key_text" ;;
    *) echo "dtls-heap: unknown server $1" >&2; exit 2 ;;
  esac
}

port=$((20000 + RANDOM % 20000))
for s in $servers; do
  port=$((port + 2))
  log="$(mktemp -t dtls-heap-"$s"-XXXX.log)"
  cmd="$(server_cmd "$s" "$port")"
  path=benchmark; [ "$s" = libcoap ] && path=/
  echo "== $s: $cmd (log $log)" >&2
  $lock bash -s <<EOF
set -u
taskset -c $server_cpu $cmd > "$log" 2>&1 &
pid=\$!
for i in \$(seq 1 100); do
  taskset -c $client_cpu "$bench" probe --port $port --psk-key $key_hex --path $path --timeout 0.5 && break
  sleep 0.2
done
heap() { # live bytes after a full GC, 0 for a non-JVM server
  case "$s" in libcoap) echo 0 ;; *) jcmd \$pid GC.class_histogram | awk '/^Total/ {print \$3}' ;; esac
}
rss() { awk '/VmRSS/ {print \$2}' /proc/\$pid/status; }
sessions() { # N more sessions, one handshake at a time, none closed
  taskset -c $client_cpu "$bench" handshakes --port $port --psk-key $key_hex --path $path --no-close --get --clients 1 \
      --warmup 0 --duration 600 --max-handshakes \$1 --source-ips 100 >&2
}
sessions $first
sleep 12
h1=\$(heap); r1=\$(rss)
sessions $((total - first))
sleep 12
h2=\$(heap); r2=\$(rss)
echo "{\"server\":\"$s\",\"sessions_first\":$first,\"sessions_total\":$total,\"heap_first\":\$h1,\"heap_total\":\$h2,\"heap_per_session\":\$(( (h2 - h1) / ($total - $first) )),\"rss_kb_first\":\$r1,\"rss_kb_total\":\$r2}"
kill \$pid; wait \$pid 2>/dev/null
exit 0
EOF
done
