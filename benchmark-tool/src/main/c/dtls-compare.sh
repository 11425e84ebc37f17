#!/usr/bin/env bash
# The DTLS compare of docs/benchmarks/dtls.md: each server in turn on --server-cpu, dtlsbench
# (neutral OpenSSL generator) on --client-cpu, PSK TLS_PSK_WITH_AES_128_CCM_8, GET over
# established sessions at each concurrency, then full handshakes from fresh clients, RSS after
# each step. One JSON line per step on stdout (and in --out), a table on stderr at the end.
# Each server's steps run under `flock -x /tmp/machine.lock` (a few minutes each).
#
#   benchmark-tool/src/main/c/dtls-compare.sh [--servers "stagecoach californium californium-nodedup libcoap"]
#       [--concurrency "100 1000"] [--handshake-clients "10 100"] [--warmup 5] [--duration 20]
#       [--server-cpu 1] [--client-cpu 0] [--source-ips 100] [--record-layer openssl|direct]
#       [--flood "RATE[:spoof]" ...] [--flood-batch N] [--open-loop PCT]
#       [--phases "a b c b c b c a" [--phase-rate R]] [--flood-sources N]
#       [--out results.jsonl] [--server-opts "JVM flags"]
#
# Floods: each --flood is one closed-loop GET step (c = 100) with that ClientHello flood beside it.
# --flood-batch N (default 1, the method of the first flood runs): N prebuilt hellos per sendmmsg.
# --open-loop PCT: after the closed-loop steps, the same GET load open loop at PCT % of the first
# --concurrency step's closed-loop rate, once without a flood and once beside each --flood (offered
# and answered rates, latency). Every load step reports the generator's CPU use, the flood's part
# of it, and the server process's CPU use over the measured window.
# --bracket: a step without a flood after every flood step (closed and open loop), so that each
# flood step can be set against the mean of the steps either side of it in the same server process
# (a server's rate drifts over minutes in one JVM; a single baseline first would count the drift).
# --open-loop-only: with --open-loop, no closed-loop flood steps (the closed-loop baseline still
# runs first: the open-loop rate is a share of it).
# --phases "a b c ...": instead of all the steps above, for each --flood one fresh server process
# (its own exclusive hold) and one closed-loop GET run at c = the first --concurrency over the same
# sessions: --warmup seconds with the flood aimed at the server, then one window of --duration per
# letter: a no flood, b the same flood aimed at a sink (a socket beside the server that is never
# read: the generator's core pays the same sending and loopback delivery as in c), c the flood
# aimed at the server. One JSON line per window, with the kernel's per-CPU accounting.
# --phase-rate R: the phases' GET load open loop at R requests/s instead of closed loop (a small
# R leaves the server's core to the flood: its CPU in c minus a is what the flood costs it).
#
# Servers: stagecoach (bench sc-server --dtls), stagecoach-netty (the same on the Netty UDP
# connector: batched recvmmsg/sendmmsg on epoll), stagecoach-before and stagecoach-netty-before
# (the same with the connector classes of $STAGECOACH_BEFORE_CLASSES first on the class path), californium and
# californium-nodedup (Californium 3.13.0 + Scandium, bench cf-server --dtls [--no-dedup]),
# libcoap (coap-server-openssl 4.3.1, -k), echo (dtlsbench echo: the generator's counterpart).
# Needs: mvn -B -o package -DskipTests -pl benchmark-tool -am (for the JVM servers), gcc, libssl-dev.
set -euo pipefail
# DTLS_BENCH_LOCKED=1: the caller already holds the exclusive lock (several scripts in one hold)
lock="flock -x /tmp/machine.lock"; [ "${DTLS_BENCH_LOCKED:-}" = 1 ] && lock=""
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../../../.." && pwd)"
bench="$("$here/build.sh")"

servers="stagecoach californium californium-nodedup libcoap"
concurrency="100 1000"
hs_clients="10 100"
warmup=5
duration=20
server_cpu=1
client_cpu=0
source_ips=100
record_layer=openssl
floods=()
flood_batch=1
open_pct=""
bracket=0
closed_floods=1
phases=""
phase_rate=""
flood_sources=1000
out=""
server_opts="${STAGECOACH_SERVER_OPTS:-}"
key_text="secretPSK"
while [ $# -gt 0 ]; do
  case "$1" in
    --servers) servers="$2"; shift 2 ;;
    --concurrency) concurrency="$2"; shift 2 ;;
    --handshake-clients) hs_clients="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --server-cpu) server_cpu="$2"; shift 2 ;;
    --client-cpu) client_cpu="$2"; shift 2 ;;
    --source-ips) source_ips="$2"; shift 2 ;;
    --record-layer) record_layer="$2"; shift 2 ;;
    --flood) floods+=("$2"); shift 2 ;;
    --flood-batch) flood_batch="$2"; shift 2 ;;
    --open-loop) open_pct="$2"; shift 2 ;;
    --bracket) bracket=1; shift ;;
    --open-loop-only) closed_floods=0; shift ;;
    --phases) phases="$2"; shift 2 ;;
    --phase-rate) phase_rate="$2"; shift 2 ;;
    --flood-sources) flood_sources="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --server-opts) server_opts="$2"; shift 2 ;;
    *) echo "dtls-compare: unknown option $1" >&2; exit 2 ;;
  esac
done
key_hex="$(printf '%s' "$key_text" | od -An -tx1 | tr -d ' \n')"
cp_bench="$root/benchmark-tool/target/classes:$root/benchmark-tool/target/lib/*"
java_bin="${JAVA_HOME:+$JAVA_HOME/bin/}java"
[ -n "$out" ] && : > "$out"

server_cmd() { # name port
  local main="io.stagecoach.bench.BenchMain bench"
  case "$1" in
    stagecoach) echo "$java_bin $server_opts -cp $cp_bench $main sc-server --dtls --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    stagecoach-netty) echo "$java_bin $server_opts -cp $cp_bench $main sc-server --dtls --dtls-transport netty --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    stagecoach-netty-before) echo "$java_bin $server_opts -cp ${STAGECOACH_BEFORE_CLASSES:?set STAGECOACH_BEFORE_CLASSES}:$cp_bench $main sc-server --dtls --dtls-transport netty --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    stagecoach-before) echo "$java_bin $server_opts -cp ${STAGECOACH_BEFORE_CLASSES:?set STAGECOACH_BEFORE_CLASSES}:$cp_bench $main sc-server --dtls --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    californium) echo "$java_bin $server_opts -cp $cp_bench $main cf-server --dtls --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    californium-nodedup) echo "$java_bin $server_opts -cp $cp_bench $main cf-server --dtls --no-dedup --bind 127.0.0.1 --port $2 --psk bench:$key_text" ;;
    libcoap) echo "coap-server-openssl -A 127.0.0.1 -p $(($2 - 1)) -k $key_text" ;; # DTLS on port+1
    echo) echo "$bench echo --port $2 --psk-key $key_hex" ;;
    *) echo "dtls-compare: unknown server $1" >&2; exit 2 ;;
  esac
}

path_of() { [ "$1" = libcoap ] && echo / || echo benchmark; }

rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }

# The first lines of each measurement's script: start server $1 ($3, log $4) on port $2 pinned to
# the server CPU, set pid, and wait until it answers a probe (up to 20 s).
start_server() {
  cat <<EOF
set -u
taskset -c $server_cpu $3 > "$4" 2>&1 &
pid=\$!
for i in \$(seq 1 100); do
  taskset -c $client_cpu "$bench" probe --port $2 --psk-key $key_hex --path $(path_of "$1") --timeout 0.5 && break
  sleep 0.2
done
EOF
}
emit() { echo "$1"; [ -n "$out" ] && echo "$1" >> "$out"; return 0; }

port=$((20000 + RANDOM % 20000))
if [ -n "$phases" ]; then
  first_c="${concurrency%% *}"
  for s in $servers; do
    for f in ${floods[@]+"${floods[@]}"}; do
      port=$((port + 2))
      log="$(mktemp -t dtls-compare-"$s"-XXXX.log)"
      cmd="$(server_cmd "$s" "$port")"
      rate=${f%%:*}; fl="--flood-rate $rate --flood-batch $flood_batch --flood-sources $flood_sources"
      [ "$f" != "$rate" ] && fl="$fl --flood-spoof"
      [ -n "$phase_rate" ] && fl="$fl --rate $phase_rate"
      echo "== $s, flood $f, phases $phases: $cmd (log $log) $(date -u +%H:%M:%S)" >&2
      $lock bash -s <<EOF
$(start_server "$s" "$port" "$cmd" "$log")
echo "   start \$(date -u +%H:%M:%S)" >&2
taskset -c $client_cpu "$bench" load --port $port --psk-key $key_hex --path $(path_of "$s") --warmup $warmup \
    --duration $duration --source-ips $source_ips --label $s --server-pid \$pid --clients $first_c \
    --record-layer $record_layer $fl --phases "$phases" | while IFS= read -r line; do
  echo "\${line%\}},\"server_rss_kb\":\$(awk '/VmRSS/ {print \$2}' /proc/\$pid/status)}"
done
echo "   end \$(date -u +%H:%M:%S)" >&2
kill \$pid; wait \$pid 2>/dev/null
exit 0
EOF
    done
  done 2>&1 | while IFS= read -r l; do
    case "$l" in
      \{*) emit "$l" ;;
      *) echo "$l" >&2 ;;
    esac
  done
  exit 0
fi
for s in $servers; do
  port=$((port + 2))
  log="$(mktemp -t dtls-compare-"$s"-XXXX.log)"
  cmd="$(server_cmd "$s" "$port")"
  echo "== $s: $cmd (log $log)" >&2
  $lock bash -s <<EOF
$(start_server "$s" "$port" "$cmd" "$log")
common="--port $port --psk-key $key_hex --path $(path_of "$s") --warmup $warmup --duration $duration --source-ips $source_ips --label $s --server-pid \$pid"
base=""
for c in $concurrency; do
  line=\$(taskset -c $client_cpu "$bench" load \$common --clients \$c --record-layer $record_layer)
  [ -z "\$base" ] && base=\$(echo "\$line" | sed -n 's/.*"rps":\\([0-9]*\\).*/\\1/p') && base_c=\$c
  echo "\${line%\}},\"server_rss_kb\":\$(awk '/VmRSS/ {print \$2}' /proc/\$pid/status)}"
done
for f in \$([ $closed_floods = 1 ] && echo ${floods[@]+"${floods[@]}"}); do
  rate=\${f%%:*}; spoof=""; [ "\$f" != "\$rate" ] && spoof="--flood-spoof"
  line=\$(taskset -c $client_cpu "$bench" load \$common --clients 100 --record-layer $record_layer --flood-rate \$rate \$spoof --flood-batch $flood_batch)
  echo "\${line%\}},\"server_rss_kb\":\$(awk '/VmRSS/ {print \$2}' /proc/\$pid/status)}"
  if [ $bracket = 1 ]; then
    line=\$(taskset -c $client_cpu "$bench" load \$common --clients 100 --record-layer $record_layer)
    echo "\${line%\}},\"server_rss_kb\":\$(awk '/VmRSS/ {print \$2}' /proc/\$pid/status)}"
  fi
done
if [ -n "$open_pct" ] && [ -n "\$base" ]; then
  offered=\$((base * $open_pct / 100))
  for f in none ${floods[@]+"${floods[@]}"}; do
    fl=""
    if [ "\$f" != none ]; then
      rate=\${f%%:*}; fl="--flood-rate \$rate --flood-batch $flood_batch"; [ "\$f" != "\$rate" ] && fl="\$fl --flood-spoof"
    fi
    line=\$(taskset -c $client_cpu "$bench" load \$common --clients \$base_c --record-layer $record_layer --rate \$offered \$fl)
    echo "\${line%\}},\"server_rss_kb\":\$(awk '/VmRSS/ {print \$2}' /proc/\$pid/status)}"
    if [ $bracket = 1 ] && [ "\$f" != none ]; then
      line=\$(taskset -c $client_cpu "$bench" load \$common --clients \$base_c --record-layer $record_layer --rate \$offered)
      echo "\${line%\}},\"server_rss_kb\":\$(awk '/VmRSS/ {print \$2}' /proc/\$pid/status)}"
    fi
  done
fi
for c in $hs_clients; do
  line=\$(taskset -c $client_cpu "$bench" handshakes \$common --clients \$c)
  echo "\${line%\}},\"server_rss_kb\":\$(awk '/VmRSS/ {print \$2}' /proc/\$pid/status)}"
done
kill \$pid; wait \$pid 2>/dev/null
exit 0 # the server's exit status (143 after the kill) is not the step's
EOF
done 2>&1 | while IFS= read -r l; do
  case "$l" in
    \{*) emit "$l" ;;
    *) echo "$l" >&2 ;;
  esac
done
