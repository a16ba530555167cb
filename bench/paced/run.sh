#!/usr/bin/env bash
# Paced redirect benchmark (issue 35 item 4): Relink at a steady request rate
# (not saturated), every request a distinct visitor whose click is stored,
# on SQLite and (with BENCH_PG_URL) PostgreSQL; then the same rate with
# dub-no-track (no click). Prints the redirect's latency percentiles
# (measured from when each request was due: bench/paced/main.go) and the
# server's CPU, and the click writer's share of it: the CPU the stored run
# spent beyond the untracked run at the same rate (enrichment, journal,
# database writes), over the stored run's CPU.
#
#   RATE=5000 DURATION=20s CONNS=64 BENCH_PG_URL=postgres://… bench/paced/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
RATE=${RATE:-5000}
DURATION=${DURATION:-20s}
CONNS=${CONNS:-64}
for port in 9080 9081 9082; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is in use: stop it first" >&2
    exit 1
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/relink" ./cmd/relink
go build -o "$work/benchdb" ./bench/redirect/benchdb
go build -o "$work/paced" ./bench/paced
hz=$(getconf CLK_TCK)
domain=127.0.0.1:9082

# one NAME DB [notrack] -> "p50 p99 p999 redirects cpu_pct cpu_us_per_req stored"
one() {
  local db=$2
  "$work/benchdb" seed -db "$db" -domain "$domain" -key bench -url https://example.com/landing >/dev/null 2>&1
  RELINK_DATABASE_URL="$db" RELINK_APP_URL=http://localhost:9080 RELINK_API_URL=http://localhost:9081 \
    RELINK_SHORT_DOMAIN="$domain" RELINK_LOG_LEVEL="${RELINK_LOG_LEVEL:-info}" RELINK_SHUTDOWN_TIMEOUT=120s \
    RELINK_DATA_DIR="$work/data-$1" /usr/bin/time -f "%U %S" -o "$work/$1.time" "$work/relink" serve 2>>"$work/$1.log" &
  local tpid=$! pid base out
  for _ in $(seq 200); do curl -fs -o /dev/null "http://$domain/healthz" && break; sleep 0.05; done
  pid=$(pgrep -P "$tpid" -x relink)
  base=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  out=$("$work/paced" -url "http://$domain/bench" -rate "$RATE" -duration "$DURATION" -conns "$CONNS" -run "$RANDOM" ${3:+-notrack})
  kill -TERM "$pid"
  wait "$tpid" || true
  local n p50 p99 p999 secs
  n=$(sed -n 's/.* redirects=\([0-9]*\).*/\1/p' <<<"$out")
  p50=$(sed -n 's/.* p50=\([0-9.]*ms\).*/\1/p' <<<"$out")
  p99=$(sed -n 's/.* p99=\([0-9.]*ms\).*/\1/p' <<<"$out")
  p999=$(sed -n 's/.* p999=\([0-9.]*ms\).*/\1/p' <<<"$out")
  secs=$(awk -v d="$DURATION" 'BEGIN { print d + 0 }')
  awk -v base="$base" -v hz="$hz" -v n="$n" -v s="$secs" -v p50="$p50" -v p99="$p99" -v p999="$p999" \
    -v stored="$("$work/benchdb" count -db "$db" -domain "$domain" -key bench 2>/dev/null | cut -d' ' -f1)" \
    'END { cpu = ($1 + $2) - base / hz; printf "%s %s %s %d %.1f %.1f %s\n", p50, p99, p999, n, 100 * cpu / s, cpu * 1e6 / n, stored }' "$work/$1.time"
}

echo "rate $RATE/s for $DURATION, $CONNS connections; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "| %-20s | %8s | %8s | %8s | %9s | %12s | %10s | %-14s |\n" target p50 p99 p99.9 redirects "server CPU %" "µs/req" "clicks stored"
printf "|%s|\n" "----------------------|----------|----------|----------|-----------|--------------|------------|----------------"
targets=(sqlite)
[ -n "${BENCH_PG_URL:-}" ] && targets+=(postgres)
read -r up50 up99 up999 un ucpu uus _ < <(one untracked "sqlite:$work/untracked.db" notrack)
printf "| %-20s | %8s | %8s | %8s | %9s | %12s | %10s | %-14s |\n" "untracked (no click)" "$up50" "$up99" "$up999" "$un" "$ucpu" "$uus" "-"
for t in "${targets[@]}"; do
  if [ "$t" = sqlite ]; then db="sqlite:$work/$t.db"; else db=$("$work/benchdb" schema -db "$BENCH_PG_URL" 2>/dev/null); fi
  read -r p50 p99 p999 n cpu us stored < <(one "$t" "$db")
  share=$(awk -v a="$cpu" -v b="$ucpu" 'BEGIN { printf "%.0f%%", 100 * (a - b) / a }')
  printf "| %-20s | %8s | %8s | %8s | %9s | %12s | %10s | %-14s |\n" "relink ($t)" "$p50" "$p99" "$p999" "$n" "$cpu" "$us" "$stored"
  echo "  $t: the click writer's share of the server's CPU: $share ((stored − untracked) / stored at $RATE/s)"
done
