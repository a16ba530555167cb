#!/usr/bin/env bash
# Redirect benchmark (issue 3 item 8): Relink's redirect, with every click
# recorded, side by side with a bare Fiber handler answering the same 302
# (the ceiling), on this machine, with the same wrk settings. After each
# Relink run the server is stopped with SIGTERM (which drains the click
# pipeline) and the stored clicks are compared with the 302s wrk counted.
#
#   bench/redirect/run.sh                      SQLite, 64 and 256 connections
#   BENCH_PG_URL=postgres://… bench/redirect/run.sh   also PostgreSQL (fresh schema)
#   DURATION=15s THREADS=2 CONNS="64 256" RELINK_LOG_LEVEL=info  (defaults)
#   UNTRACKED=1 adds a diagnostic row: Relink on SQLite with every request
#     carrying dub-no-track, so no click is recorded (the redirect's HTTP side
#     alone; 0 clicks must be stored)
#   WEBHOOK=1 adds a row per connection count: Relink on SQLite with a
#     workspace-scoped link.clicked webhook (to a local sink on :9093, run
#     under nice 19 with its CPU reported apart), and its throughput as a
#     ratio of the plain SQLite run (journal on) of the same round; the
#     outbox must hold one link.clicked event per stored click, and the
#     sink must receive every one: after wrk the server runs until it has
#     (CATCHUP_MAX, default 300 s), and the time that took is printed
#     (link.clicked deliveries are paced while the redirects saturate the
#     machine: RELINK_WEBHOOK_BUSY_RATE), so the CPU per request counts them.
#     PAIRS=N (with WEBHOOK=1) repeats plain/webhook pairs N times (plain
#     first in odd pairs, webhook first in even ones) and prints every ratio,
#     their median, and the plain runs' own spread (the noise to compare
#     with: one pair is not a measurement)
#   REPEAT=N runs every row N times (the rows of a round one after the
#     other, as in one run), then prints each row's median and, per round,
#     what a stored click adds over the untracked redirect (with UNTRACKED=1)
#     and its median: one run's rows spread by a third on these machines,
#     so one run does not settle a target of a few µs
#   RELINK_CLICK_QUEUE=500000 (default here): sized for a 15 s burst the click
#     writer cannot keep up with on this machine; RELINK_CLICK_QUEUE=50000
#     (the server's default) shows the overflow being counted instead.
#
# Needs wrk (apt-get install -y wrk) and curl.
set -euo pipefail
cd "$(dirname "$0")/../.."

DURATION=${DURATION:-15s}
THREADS=${THREADS:-2}
CONNS=${CONNS:-"64 256"}
LOG_LEVEL=${RELINK_LOG_LEVEL:-info}
DEST=https://example.com/landing

command -v wrk >/dev/null || { echo "wrk not found: apt-get update && apt-get install -y wrk" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl not found" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# A server left on one of the benchmark's ports would answer wrk instead.
for port in 9080 9081 9082 9090 9093; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "port $port is in use (a server from an earlier run?): stop it first" >&2
    exit 1
  fi
done

echo "building…" >&2
go build -o "$work/relink" ./cmd/relink
go build -o "$work/ceiling" ./bench/redirect/ceiling
go build -o "$work/benchdb" ./bench/redirect/benchdb

wait_ready() {
  for _ in $(seq 200); do
    curl -fs -o /dev/null "$1" && return 0
    sleep 0.05
  done
  echo "server at $1 did not come up" >&2
  exit 1
}

# wrk_run URL CONNS RUN_ID [notrack] -> "rps p50_us p99_us responses redirects errors"
wrk_run() {
  local out
  out=$(wrk -t"$THREADS" -c"$2" -d"$DURATION" --latency -s bench/redirect/count.lua "$1" -- "$3" "${4:-}")
  echo "$out" >>"$work/wrk.log"
  local rps p50 p99 resp redir errs
  rps=$(sed -n 's/^RPS \([0-9]*\).*/\1/p' <<<"$out")
  errs=$(sed -n 's/^RPS [0-9]* errors=\([0-9]*\)/\1/p' <<<"$out")
  p50=$(sed -n 's/^LAT p50=\([0-9]*\) .*/\1/p' <<<"$out")
  p99=$(sed -n 's/^LAT .* p99=\([0-9]*\)/\1/p' <<<"$out")
  resp=$(sed -n 's/^COUNT responses=\([0-9]*\) .*/\1/p' <<<"$out")
  redir=$(sed -n 's/^COUNT .* redirects=\([0-9]*\)/\1/p' <<<"$out")
  echo "$rps $p50 $p99 $resp $redir $errs"
}

# ticks PID: CPU time (user+system, clock ticks) the process used so far.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

# server_cpu_us TIME_FILE BASE_TICKS REQUESTS: CPU µs per request the server
# spent from BASE_TICKS to its exit (for Relink that includes draining the
# clicks after SIGTERM).
cpu_per_req() {
  awk -v base="$2" -v hz="$hz" -v n="$3" 'END { printf "%.1f", (($1 + $2) - base / hz) * 1e6 / n }' "$1"
}

# ceiling_run CONNS RUN_ID -> "rps p50 p99 responses redirects errors cpu_us"
ceiling_run() {
  /usr/bin/time -f "%U %S" -o "$work/ceiling.time" "$work/ceiling" -addr 127.0.0.1:9090 -dest "$DEST" 2>>"$work/ceiling.log" &
  local tpid=$!
  pids+=("$tpid")
  wait_ready http://127.0.0.1:9090/x
  local pid base res
  pid=$(pgrep -P "$tpid" -x ceiling)
  base=$(ticks "$pid")
  res=$(wrk_run http://127.0.0.1:9090/bench "$1" "$2")
  kill -TERM "$pid"
  wait "$tpid" 2>/dev/null || true
  read -r _ _ _ _ redir _ <<<"$res"
  echo "$res $(cpu_per_req "$work/ceiling.time" "$base" "$redir")"
}

# relink_run NAME DB_URL CONNS RUN_ID [notrack] [journal: on (default) | off]
#   -> "rps p50 p99 responses redirects errors accepted dropped drain_s cpu_us rows counter"
relink_run() {
  local db=$2 domain=127.0.0.1:9082
  "$work/benchdb" seed -db "$db" -domain "$domain" -key bench -url "$DEST" ${SEED_HOOK:+-webhook "$SEED_HOOK"} >/dev/null
  RELINK_WEBHOOK_TARGETS=any RELINK_DATABASE_URL="$db" RELINK_APP_URL=http://localhost:9080 RELINK_API_URL=http://localhost:9081 \
    RELINK_SHORT_DOMAIN="$domain" RELINK_LOG_LEVEL="$LOG_LEVEL" RELINK_SHUTDOWN_TIMEOUT=120s \
    RELINK_CLICK_QUEUE="${RELINK_CLICK_QUEUE:-500000}" \
    RELINK_DATA_DIR="$work/data-$1" RELINK_CLICK_JOURNAL="${6:-on}" \
    /usr/bin/time -f "%U %S" -o "$work/relink.time" "$work/relink" serve 2>>"$work/relink-$1.log" &
  local tpid=$!
  pids+=("$tpid")
  wait_ready "http://$domain/healthz"
  local pid base
  pid=$(pgrep -P "$tpid" -x relink)
  base=$(ticks "$pid")
  local res accepted dropped
  res=$(wrk_run "http://$domain/bench" "$3" "$4" "${5:-}")
  # The server's own count: wrk stops with up to CONNS requests in flight,
  # which the server may still have answered (and recorded).
  metrics=$(curl -fs http://127.0.0.1:9080/metrics)
  accepted=$(awk '/^relink_clicks_accepted_total /{print $2}' <<<"$metrics")
  dropped=$(awk '/^relink_clicks_dropped_total /{print $2}' <<<"$metrics")
  if [ -n "${SEED_HOOK:-}" ]; then
    # Webhook runs: the server keeps running until the sink has every
    # link.clicked event (or CATCHUP_MAX seconds pass), so the CPU per
    # request includes every delivery, and the time deliveries needed after
    # the burst (paced while it saturated the machine) is reported.
    local c0 got paced
    c0=$(date +%s.%N)
    while :; do
      got=$(( $(curl -fs http://127.0.0.1:9093/count) - SINK_BASE ))
      [ "$got" -ge "$accepted" ] && break
      awk -v a="$c0" -v b="$(date +%s.%N)" -v m="${CATCHUP_MAX:-300}" 'BEGIN { exit !(b - a >= m) }' && break
      sleep 0.1
    done
    paced=$(curl -fs http://127.0.0.1:9080/metrics | awk '/^relink_webhook_click_paced_seconds_total /{print $2}')
    echo "$(awk -v a="$c0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') $got ${paced:-0}" >"$work/catchup"
  fi
  local t0=$SECONDS
  kill -TERM "$pid"
  wait "$tpid" || { echo "relink exited with an error; log:" >&2; tail -20 "$work/relink-$1.log" >&2; }
  echo "drain after SIGTERM took $((SECONDS - t0))s" >>"$work/relink-$1.log"
  local served=$accepted
  [ -n "${5:-}" ] && read -r _ _ _ _ served _ <<<"$res" # untracked: per 302 wrk saw
  echo "$res $accepted $dropped $((SECONDS - t0)) $(cpu_per_req "$work/relink.time" "$base" "$served") $("$work/benchdb" count -db "$db" -domain "$domain" -key bench)"
}

fmt_ms() { awk -v us="$1" 'BEGIN { printf "%.2f ms", us / 1000 }'; }

targets=("sqlite")
[ -n "${BENCH_PG_URL:-}" ] && targets+=("postgres")

echo
echo "wrk -t$THREADS -d$DURATION, $(nproc) cores shared by wrk and the server; log level $LOG_LEVEL; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "click queue: ${RELINK_CLICK_QUEUE:-500000}"
echo "CPU µs/req: the server process's user+system CPU per request, from the start of wrk to its exit (Relink: including the click drain)"
echo
printf "| %-22s | %5s | %9s | %9s | %9s | %13s | %13s | %9s | %-24s |\n" target conns "req/s" p50 p99 "throughput" "p99 vs ceil" "CPU µs/req" "clicks stored / 302s seen"
printf "|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n" "$(printf -- '-%.0s' {1..24})" "-------" "-----------" "-----------" "-----------" "---------------" "---------------" "-----------" "$(printf -- '-%.0s' {1..26})"
run=0
fail=0
jcost=()
ratios=()
plains=()
hooks=()
for rep in $(seq "${REPEAT:-1}"); do
for c in $CONNS; do
  run=$((run + 1))
  read -r crps cp50 cp99 _ _ _ ccpu < <(ceiling_run "$c" "$run")
  printf "| %-22s | %5s | %9s | %9s | %9s | %13s | %13s | %9s | %-24s |\n" "ceiling (bare Fiber)" "$c" "$crps" "$(fmt_ms "$cp50")" "$(fmt_ms "$cp99")" "100%" "1.00x" "$ccpu" "-"
  echo "$rep $c ceiling $crps $cp99 $ccpu" >>"$work/rows"
  for t in "${targets[@]}"; do
    run=$((run + 1))
    if [ "$t" = sqlite ]; then
      db="sqlite:$work/bench-$c-$rep.db"
    else
      db=$("$work/benchdb" schema -db "$BENCH_PG_URL")
    fi
    read -r rps p50 p99 resp redir errs accepted dropped drain cpu rows counter < <(relink_run "$t-$c-$rep" "$db" "$c" "$run")
    ratio=$(awk -v a="$rps" -v b="$crps" 'BEGIN { printf "%.1f%%", 100 * a / b }')
    p99r=$(awk -v a="$p99" -v b="$cp99" 'BEGIN { printf "%.2fx", a / b }')
    # Every 302 wrk saw must be a stored click; the server may have answered
    # (and recorded) up to CONNS more that wrk stopped waiting for.
    check="$rows / $redir"
    if [ "$rows" -lt "$redir" ] || [ "$rows" != "$accepted" ] || [ "$counter" != "$rows" ] || [ "$dropped" != 0 ] || [ $((rows - redir)) -gt "$c" ]; then
      check="$check MISSING (accepted $accepted, dropped $dropped, counter $counter)"
      fail=1
    else
      check="$check ok (+$((rows - redir)) in flight; drain ${drain}s)"
    fi
    [ "$errs" != 0 ] && check="$check, $errs wrk errors"
    printf "| %-22s | %5s | %9s | %9s | %9s | %13s | %13s | %9s | %-24s |\n" "relink ($t)" "$c" "$rps" "$(fmt_ms "$p50")" "$(fmt_ms "$p99")" "$ratio" "$p99r" "$cpu" "$check"
    echo "$rep $c $t $rps $p99 $cpu" >>"$work/rows"
    [ "$t" = sqlite ] && { jcpu=$cpu; jrps=$rps; }
  done
  # The click journal's cost: the same SQLite run with RELINK_CLICK_JOURNAL=off.
  run=$((run + 1))
  read -r rps p50 p99 resp redir errs accepted dropped drain cpu rows counter < <(relink_run "nojournal-$c-$rep" "sqlite:$work/nojournal-$c-$rep.db" "$c" "$run" "" off)
  ratio=$(awk -v a="$rps" -v b="$crps" 'BEGIN { printf "%.1f%%", 100 * a / b }')
  p99r=$(awk -v a="$p99" -v b="$cp99" 'BEGIN { printf "%.2fx", a / b }')
  check="$rows / $redir"
  [ "$rows" -lt "$redir" ] && { check="$check MISSING"; fail=1; }
  printf "| %-22s | %5s | %9s | %9s | %9s | %13s | %13s | %9s | %-24s |\n" "relink (sqlite, no jrnl)" "$c" "$rps" "$(fmt_ms "$p50")" "$(fmt_ms "$p99")" "$ratio" "$p99r" "$cpu" "$check"
  echo "$rep $c nojournal $rps $p99 $cpu" >>"$work/rows"
  jcost+=("$c conns: journal on $jcpu, off $cpu CPU µs/req: the journal costs $(awk -v a="$jcpu" -v b="$cpu" 'BEGIN { printf "%.1f", a - b }') CPU µs per click (target <= 5)")
  if [ -n "${WEBHOOK:-}" ]; then
    if [ -z "${sinkpid:-}" ]; then
      nice -n 19 "$work/benchdb" sink -addr 127.0.0.1:9093 2>>"$work/sink.log" &
      sinkpid=$!
      pids+=("$sinkpid")
    fi
    base_rps=$jrps
    for pair in $(seq "${PAIRS:-1}"); do
      # Pairs alternate their order (plain first in odd pairs, the webhook
      # run first in even ones), so an effect of running second cancels out.
      if [ "$pair" -gt 1 ] && [ $((pair % 2)) = 1 ]; then
        run=$((run + 1))
        read -r base_rps _ < <(relink_run "plain-$c-$pair" "sqlite:$work/plain-$c-$pair.db" "$c" "$run")
      fi
      run=$((run + 1))
      hdb="sqlite:$work/hook-$c-$pair.db"
      sink0=$(ticks "$sinkpid")
      sinkn=$(curl -fs http://127.0.0.1:9093/count)
      read -r rps p50 p99 resp redir errs accepted dropped drain cpu rows counter < <(SINK_BASE=$sinkn SEED_HOOK=http://127.0.0.1:9093/hook relink_run "webhook-$c-$pair" "$hdb" "$c" "$run")
      read -r catchup delivered paced <"$work/catchup"
      if [ $((pair % 2)) = 0 ]; then
        run=$((run + 1))
        read -r base_rps _ < <(relink_run "plain-$c-$pair" "sqlite:$work/plain-$c-$pair.db" "$c" "$run")
      fi
      sinkcpu=$(awk -v t="$(ticks "$sinkpid")" -v b="$sink0" -v hz="$hz" -v n="$rows" 'BEGIN { printf "%.1f", (t - b) / hz * 1e6 / n }')
      ratio=$(awk -v a="$rps" -v b="$crps" 'BEGIN { printf "%.1f%%", 100 * a / b }')
      p99r=$(awk -v a="$p99" -v b="$cp99" 'BEGIN { printf "%.2fx", a / b }')
      outbox=$("$work/benchdb" outbox -db "$hdb")
      vs=$(awk -v a="$rps" -v b="$base_rps" 'BEGIN { printf "%.2f", a / b }')
      ratios+=("$vs")
      plains+=("$base_rps")
      hooks+=("$rps")
      check="$rows / $redir; outbox $outbox; vs no webhook ${vs}x ($base_rps); $delivered delivered ${catchup}s after wrk (paced ${paced}s); sink $sinkcpu CPU µs/click; load $(cut -d' ' -f1 /proc/loadavg)"
      [ "$outbox" != "$rows" ] && { check="$check OUTBOX MISMATCH"; fail=1; }
      [ "$delivered" -lt "$rows" ] && { check="$check UNDELIVERED"; fail=1; }
      printf "| %-22s | %5s | %9s | %9s | %9s | %13s | %13s | %9s | %-24s |\n" "relink + click webhook" "$c" "$rps" "$(fmt_ms "$p50")" "$(fmt_ms "$p99")" "$ratio" "$p99r" "$cpu" "$check"
    done
  fi
  if [ -n "${UNTRACKED:-}" ]; then
    run=$((run + 1))
    read -r rps p50 p99 resp redir errs accepted dropped drain cpu rows counter < <(relink_run "untracked-$c-$rep" "sqlite:$work/untracked-$c-$rep.db" "$c" "$run" notrack)
    ratio=$(awk -v a="$rps" -v b="$crps" 'BEGIN { printf "%.1f%%", 100 * a / b }')
    p99r=$(awk -v a="$p99" -v b="$cp99" 'BEGIN { printf "%.2fx", a / b }')
    check="$rows stored (none expected)"
    [ "$rows" != 0 ] && { check="$check UNEXPECTED"; fail=1; }
    printf "| %-22s | %5s | %9s | %9s | %9s | %13s | %13s | %9s | %-24s |\n" "relink, no click (diag)" "$c" "$rps" "$(fmt_ms "$p50")" "$(fmt_ms "$p99")" "$ratio" "$p99r" "$cpu" "$check"
    echo "$rep $c untracked $rps $p99 $cpu" >>"$work/rows"
  fi
done
done
echo
for l in "${jcost[@]}"; do echo "$l"; done
if [ "${REPEAT:-1}" -gt 1 ]; then
  # Each row's median over the rounds; throughput and p99 against the
  # ceiling's medians; the stored click's added CPU per round, and its median.
  echo
  echo "Medians of $REPEAT rounds:"
  echo
  printf "| %-22s | %5s | %9s | %9s | %13s | %13s | %9s |\n" target conns "req/s" p99 throughput "p99 vs ceil" "CPU µs/req"
  echo "|------------------------|-------|-----------|-----------|---------------|---------------|-----------|"
  awk -v reps="$REPEAT" '
    function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { k = $2 SUBSEP $3; rps[k] = rps[k] " " $4; p99[k] = p99[k] " " $5; cpu[k] = cpu[k] " " $6; c[$1 SUBSEP k] = $6
      if (!(k in seen)) { seen[k] = 1; order[++n] = k } }
    END {
      for (i = 1; i <= n; i++) { split(order[i], kk, SUBSEP); ck = kk[1] SUBSEP "ceiling"
        printf "| %-22s | %5s | %9d | %6.2f ms | %12.1f%% | %12.2fx | %9.1f |\n", kk[2], kk[1], med(rps[order[i]]), med(p99[order[i]]) / 1000,
          100 * med(rps[order[i]]) / med(rps[ck]), med(p99[order[i]]) / med(p99[ck]), med(cpu[order[i]]) }
      for (i = 1; i <= n; i++) { split(order[i], kk, SUBSEP); if (kk[2] != "sqlite" && kk[2] != "postgres") continue
        uk = kk[1] SUBSEP "untracked"; if (!(uk in seen)) continue; d = ""
        for (r = 1; r <= reps; r++) if ((r SUBSEP order[i]) in c && (r SUBSEP uk) in c) d = d " " sprintf("%.1f", c[r SUBSEP order[i]] - c[r SUBSEP uk])
        printf "%s conns: a stored click adds over the untracked redirect, %s: per round%s CPU µs; median %.1f\n", kk[1], kk[2], d, med(d) }
    }' "$work/rows"
fi
if [ -n "${WEBHOOK:-}" ]; then
  median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print (NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2) }'; }
  echo "click webhook / plain throughput, each pair: ${ratios[*]}; median $(median "${ratios[@]}")x; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
  # The noise to compare with: how far the plain runs alone spread.
  pm=$(median "${plains[@]}")
  echo "plain runs: ${plains[*]} req/s (median $pm, spread $(printf '%s\n' "${plains[@]}" | awk -v m="$pm" 'NR == 1 { lo = hi = $1 } { if ($1 < lo) lo = $1; if ($1 > hi) hi = $1 } END { printf "%+.1f%% to %+.1f%%", 100 * (lo / m - 1), 100 * (hi / m - 1) }')); webhook runs: ${hooks[*]} (median $(median "${hooks[@]}"), $(awk -v a="$(median "${hooks[@]}")" -v b="$pm" 'BEGIN { printf "%.3f", a / b }')x the plain median)"
fi
echo "Targets at 64 connections: throughput >= 85% of the ceiling, p99 <= 1.5x the ceiling's, zero clicks missing."
exit $fail
