#!/usr/bin/env bash
# Full-handshake steps against one server process at a time, with where the server's CPU and
# context switches went (docs/benchmarks/dtls.md, "10 clients: latency, warm-up, hand-offs").
# Each server is started fresh, pinned to --server-cpu; dtlsbench (pinned to --client-cpu) runs
# one `handshakes` step per entry of STEPS in the same server process, so "10 100 10" measures a
# fresh JVM's first 25 s and the same JVM again after warm-up. Per step: dtlsbench's JSON line,
# then the server's threads grouped by name (thread-cpu.py): CPU as % of one core over the step,
# voluntary / involuntary context switches, per completed handshake.
# Call inside `flock -x /tmp/machine.lock` (it takes no lock itself).
#
#   benchmark-tool/src/main/c/dtls-hs-steps.sh "stagecoach libcoap" "10 100 10" [WARMUP] [DURATION] [JVM flags]
# Servers: stagecoach (the module's build), classes:DIR (stagecoach with element-connector
# classes from DIR first on the class path, e.g. another commit's), stagecoach-warm:N (stagecoach
# started with --dtls-warmup N: N in-process handshakes before it binds its port), stagecoach-netty
# (the same on the Netty UDP connector: --dtls-transport netty), netty-classes:DIR (that with
# element-connector classes from DIR first), libcoap
# (coap-server-openssl). "ready after" is the time from the server's start to its first answered
# probe (a full handshake and a GET), the warm-up included.
# Needs: mvn -B -o package -DskipTests -pl benchmark-tool -am, gcc, libssl-dev.
set -u
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
bench="$("$here/build.sh")"
servers="$1"; steps="$2"; warm="${3:-5}"; dur="${4:-20}"; opts="${5:-}"
server_cpu="${SERVER_CPU:-1}"; client_cpu="${CLIENT_CPU:-0}"
key=secretPSK; keyhex=$(printf '%s' $key | od -An -tx1 | tr -d ' \n')
cpb="$root/benchmark-tool/target/classes:$root/benchmark-tool/target/lib/*"
snap="$(mktemp -d -t dtls-hs-steps-XXXX)"
port=$((20000 + RANDOM % 20000))
for s in $servers; do
  port=$((port + 2))
  main="io.stagecoach.bench.BenchMain bench sc-server --dtls --bind 127.0.0.1 --port $port --psk bench:$key"
  case $s in
    stagecoach) cmd="java $opts -cp $cpb $main"; path=benchmark ;;
    classes:*) cmd="java $opts -cp ${s#classes:}:$cpb $main"; path=benchmark ;;
    stagecoach-warm:*) cmd="java $opts -cp $cpb $main --dtls-warmup ${s#stagecoach-warm:}"; path=benchmark ;;
    stagecoach-netty) cmd="java $opts -cp $cpb $main --dtls-transport netty"; path=benchmark ;;
    netty-classes:*) cmd="java $opts -cp ${s#netty-classes:}:$cpb $main --dtls-transport netty"; path=benchmark ;;
    libcoap) cmd="coap-server-openssl -A 127.0.0.1 -p $((port - 1)) -k $key"; path=/ ;;
    *) echo "unknown server $s" >&2; exit 2 ;;
  esac
  echo "== $s $(date -u +%H:%M:%S) $cmd"
  start=$(date +%s.%N)
  taskset -c "$server_cpu" $cmd > "$snap/server.log" 2>&1 &
  pid=$!
  for i in $(seq 1 100); do
    taskset -c "$client_cpu" "$bench" probe --port $port --psk-key "$keyhex" --path $path --timeout 0.5 >/dev/null 2>&1 && break
    sleep 0.2
  done
  kill -0 $pid 2>/dev/null || { echo "server died:"; cat "$snap/server.log"; continue; }
  echo "ready after $(python3 -c "print(round($(date +%s.%N) - $start, 2))") s $(grep -h 'warm-up:' "$snap/server.log" || true)"
  for c in $steps; do
    "$here/thread-cpu.py" snap $pid "$snap/a.json"
    t0=$(date +%s.%N)
    line=$(taskset -c "$client_cpu" "$bench" handshakes --port $port --psk-key "$keyhex" --path $path --warmup "$warm" \
        --duration "$dur" --source-ips 100 --label "$s" --server-pid $pid --clients $c)
    t1=$(date +%s.%N)
    "$here/thread-cpu.py" snap $pid "$snap/b.json"
    echo "$(date -u +%H:%M:%S) c=$c $line"
    hps=$(echo "$line" | sed -n 's/.*"handshakes_per_s":\([0-9]*\).*/\1/p')
    secs=$(python3 -c "print($t1 - $t0)")
    "$here/thread-cpu.py" diff "$snap/a.json" "$snap/b.json" "$secs" "$(python3 -c "print(${hps:-0} * $secs)")" | head -14
  done
  kill $pid; wait $pid 2>/dev/null
done
rm -rf "$snap"
