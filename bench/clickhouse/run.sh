#!/usr/bin/env bash
# Scale benchmark of the ClickHouse event store (issue 16 item 5;
# bench/README.md, "ClickHouse at 100M clicks").
#
# 1. starts a private clickhouse-server (Debian's 18.16 or newer) on free
#    ports with its data under $DIR, never the machine's own;
# 2. makes a workspace with $LINKS links (folders, tags, partners) in a
#    SQLite file with `relink demo`, and applies ClickHouse's migrations with
#    `relink clickhouse backfill` run before the demo (so none of the demo's
#    few events is in ClickHouse);
# 3. generates $CLICKS clicks over $DAYS days ending now, and leads (1 in 20
#    clicks) and sales (1 in 100) from those clicks — the proportions of
#    `relink demo`'s 10M / 500k / 100k — inside ClickHouse, with
#    INSERT … SELECT from numbers() in chunks of $CHUNK, straight into the
#    raw tables: clicks have no view (Relink sends their rollups with them,
#    migration 01570), the leads' and sales' rollup views are detached
#    meanwhile (their per-block ARRAY JOIN of 40 rows per event ran at ~21k
#    events/s on this machine); bench/clickhouse/rollups.py then writes the
#    rollups, one INSERT … SELECT … GROUP BY per table, month and
#    dimension, and the views are attached again. The script checks that
#    the rollups' totals equal the raw counts;
# 4. runs bench/analytics (every groupBy × event over HTTP against the real
#    handlers with RELINK_CLICKHOUSE_URL set) at 30d and 1y;
# 5. prints rows and bytes on disk per table and per million events.
#
#   bench/clickhouse/run.sh                     100M clicks, 5,000 links
#   CLICKS=10000000 bench/clickhouse/run.sh     a smaller run
#   KEEP=1 DIR=/work/chbench bench/clickhouse/run.sh   keep the server and data
#   DIR=/work/chbench SKIP_LOAD=1 bench/clickhouse/run.sh  query a kept data set again
#   RUNS=10 WARMUP=2 INTERVALS=30d,1y TARGET=150 EVENTS=clicks,leads,sales,composite
#   URL_PER_LINK=0     the links' own destinations (relink demo's 151: 755 URLs
#                      with the UTM tags) instead of a page per link (25,000)
#   COMPARE=0          skip the second table (top_urls and top_base_urls ranked
#                      by the URL strings, --nourlhashes) and the byte-for-byte
#                      comparison of both paths' answers over a fixed year
#   COMPACT=0          query the rollups as loaded, instead of merging their
#                      closed months into one part each first with
#                      `relink clickhouse compact` (what the server's hourly
#                      job does; docs/clickhouse.md, "Closed months in one
#                      part")
#   INGEST=500000 INGEST_ONLY=1 bench/clickhouse/run.sh
#                      sustained ingest only: SQL alone vs SQL + ClickHouse,
#                      alternated ROUNDS (2) times in the same run;
#                      NOVIEWS=1 adds a round with the click rollups' view
#                      (clicks_ingest_2_rollups) detached; VARY=1 spreads
#                      the clicks over 100 links and varied attributes
#                      (bench/faults -vary) instead of one attribute set;
#                      OLD_FAULTS=/path/to/faults (bench/faults built from an
#                      earlier commit, e.g. with `git archive`) adds a round
#                      SQL + ClickHouse with it (its own migrations and
#                      database): before and after in the same run
#   CHDB=1 INGEST=300000 INGEST_ONLY=1 bench/clickhouse/run.sh
#                      the same rounds against ClickHouse 26 through chDB
#                      (internal/chstore/chtest/chdbserver over libchdb.so
#                      from `cd tests/chdb && npm ci`) instead of
#                      clickhouse-server: a current release, as a self-hoster
#                      runs it; ingest only
set -euo pipefail
cd "$(dirname "$0")/../.."

CLICKS=${CLICKS:-100000000}
LINKS=${LINKS:-5000}
DAYS=${DAYS:-365}
CHUNK=${CHUNK:-5000000}
RUNS=${RUNS:-10}
WARMUP=${WARMUP:-2}
INTERVALS=${INTERVALS:-30d,1y}
TARGET=${TARGET:-150}
EVENTS=${EVENTS:-clicks,leads,sales,composite}
KEEP=${KEEP:-0}
COMPACT=${COMPACT:-1}
SKIP_LOAD=${SKIP_LOAD:-0}
INGEST=${INGEST:-0}
INGEST_ONLY=${INGEST_ONLY:-0}
NOVIEWS=${NOVIEWS:-0}
VARY=${VARY:-0}
OLD_FAULTS=${OLD_FAULTS:-}
ROUNDS=${ROUNDS:-2}
DIR=${DIR:-$(mktemp -d /tmp/relink-chbench-XXXXXX)}
mkdir -p "$DIR"

CHDB=${CHDB:-0}
load() { cut -d' ' -f1-3 /proc/loadavg; }
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

if [ "$CHDB" = 1 ]; then
  [ "$INGEST_ONLY" = 1 ] || { echo "CHDB=1 runs the ingest rounds only (INGEST=N INGEST_ONLY=1)" >&2; exit 1; }
  CHDB_LIB=${RELINK_TEST_CHDB_LIB:-$PWD/tests/chdb/node_modules/@chdb/lib-linux-x64-gnu/libchdb.so}
  [ -f "$CHDB_LIB" ] || { echo "libchdb.so not found: cd tests/chdb && npm ci" >&2; exit 1; }
  go build -o "$DIR/chdbserver" ./internal/chstore/chtest/chdbserver
  CHDB_LIB_PATH=$CHDB_LIB "$DIR/chdbserver" -data "$DIR/chdb" > "$DIR/chdb.out" 2> "$DIR/chdb.err" &
  chpid=$!
  for _ in $(seq 1 120); do grep -q '^listening ' "$DIR/chdb.out" 2>/dev/null && break; sleep 0.5; done
  HTTP=$(sed -n 's/^listening 127.0.0.1://p' "$DIR/chdb.out")
  [ -n "$HTTP" ] || { echo "chdbserver did not start:" >&2; tail "$DIR/chdb.err" >&2; exit 1; }
else
CH_BIN=${RELINK_TEST_CLICKHOUSE_BIN:-$(command -v clickhouse-server || echo /usr/sbin/clickhouse-server)}
[ -x "$CH_BIN" ] || { echo "clickhouse-server not found: apt-get install -y clickhouse-server" >&2; exit 1; }
if [ -f "$DIR/ports" ]; then read -r HTTP TCP INTER < "$DIR/ports"; else
  HTTP=$(freeport); TCP=$(freeport); INTER=$(freeport); echo "$HTTP $TCP $INTER" > "$DIR/ports"; fi
mkdir -p "$DIR/ch"
cat > "$DIR/ch/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$DIR/ch/server.log</log><errorlog>$DIR/ch/error.log</errorlog></logger>
  <http_port>$HTTP</http_port>
  <tcp_port>$TCP</tcp_port>
  <interserver_http_port>$INTER</interserver_http_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$DIR/ch/data/</path>
  <tmp_path>$DIR/ch/tmp/</tmp_path>
  <user_files_path>$DIR/ch/user_files/</user_files_path>
  <format_schema_path>$DIR/ch/format_schemas/</format_schema_path>
  <mark_cache_size>1073741824</mark_cache_size>
  <uncompressed_cache_size>1073741824</uncompressed_cache_size>
  <timezone>UTC</timezone>
  <max_concurrent_queries>100</max_concurrent_queries>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
  </users>
  <profiles><default><max_threads>2</max_threads><max_memory_usage>8000000000</max_memory_usage><log_queries>1</log_queries></default></profiles>
  <quotas><default></default></quotas>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
</yandex>
EOF

"$CH_BIN" --config-file="$DIR/ch/config.xml" > "$DIR/ch/stdout.log" 2>&1 &
chpid=$!
fi
CH="http://127.0.0.1:$HTTP"
chq() { curl -sS --fail-with-body "$CH/" --data-binary "$1"; }
# Generating inserts: blocks of 100k rows, so the rollups' views (41 rows per
# click before their GROUP BY) fit in memory.
chi() { curl -sS --fail-with-body "$CH/?min_insert_block_size_rows=100000&min_insert_block_size_bytes=0&max_block_size=100000" --data-binary "$1"; }
cleanup() {
  if [ "$KEEP" = 1 ]; then echo "kept: clickhouse-server pid $chpid on $CH, data in $DIR"; return; fi
  kill "$chpid" 2>/dev/null || true; wait "$chpid" 2>/dev/null || true; rm -rf "$DIR"
}
trap cleanup EXIT
for _ in $(seq 1 120); do chq "SELECT 1" >/dev/null 2>&1 && break; sleep 0.5; done
echo "clickhouse $(chq 'SELECT version()') on $CH, data in $DIR; load average $(load)"

# Sustained ingest (issue 34 item 2): the click writer draining a journal of
# $INGEST clicks (bench/faults -catchup, a private PostgreSQL) into SQL alone
# and into SQL + this ClickHouse (a fresh database each round, the rollups'
# views attached), alternated $ROUNDS times in the same run.
if [ "$INGEST" != 0 ]; then
  go build -o "$DIR/faults" ./bench/faults
  vary=""; [ "$VARY" = 1 ] && vary=-vary
  for r in $(seq 1 "$ROUNDS"); do
    echo "ingest round $r: SQL only; load average $(load)"
    "$DIR/faults" -catchup "$INGEST" $vary | grep catch-up
    echo "ingest round $r: SQL + ClickHouse; load average $(load)"
    "$DIR/faults" -catchup "$INGEST" $vary -clickhouse "$CH/relink_ingest_$r" | grep -E "catch-up|clickhouse:"
    if [ -n "$OLD_FAULTS" ]; then
      echo "ingest round $r: SQL + ClickHouse with $OLD_FAULTS; load average $(load)"
      "$OLD_FAULTS" -catchup "$INGEST" $vary -clickhouse "$CH/relink_ingest_old_$r" | grep -E "catch-up|clickhouse:"
    fi
    if [ "$NOVIEWS" = 1 ]; then
      echo "ingest round $r: SQL + ClickHouse without the click rollups' view (what it costs); load average $(load)"
      "$DIR/faults" -catchup "$INGEST" $vary -clickhouse "$CH/relink_ingest_nv_$r" -clickhouse-views=false | grep -E "catch-up|clickhouse:"
    fi
  done
  if [ "$INGEST_ONLY" = 1 ]; then exit 0; fi
fi

export RELINK_DATABASE_URL="sqlite:$DIR/relink.db"
export RELINK_CLICKHOUSE_URL="$CH/relink"
export RELINK_LOG_LEVEL=warn
go build -o "$DIR/relink" ./cmd/relink
go build -o "$DIR/analytics" ./bench/analytics

if [ "$SKIP_LOAD" != 1 ]; then
  t0=$(date +%s)
  # ClickHouse's migrations first (a backfill of the still empty database),
  # then the links; the demo's few SQL events stay out of ClickHouse.
  "$DIR/relink" clickhouse backfill >/dev/null 2>&1
  RELINK_CLICKHOUSE_URL= "$DIR/relink" demo --workspace bench --links "$LINKS" --clicks 1000 --leads 50 --sales 10 --days 90 --seed 1 >/dev/null
  WS=$(python3 -c "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); print(c.execute(\"SELECT id FROM workspaces WHERE slug='bench'\").fetchone()[0])" "$DIR/relink.db")
  chq "CREATE TABLE IF NOT EXISTS relink.bench_links (idx UInt32, link_id String, domain String, key String, url String) ENGINE = Memory"
  chq "TRUNCATE TABLE relink.bench_links" 2>/dev/null || true
  # URL_PER_LINK=1 (the default): each link's generated events go to its
  # own page, <destination>/<key>, so 5,000 links make 25,000 URLs with
  # the UTM tags (relink demo's links share a shop catalogue's 151
  # destinations: 755 URLs; URL_PER_LINK=0 keeps those).
  URL_PER_LINK=${URL_PER_LINK:-1} python3 - "$DIR/relink.db" "$WS" > "$DIR/links.tsv" <<'EOF'
import os, sqlite3, sys
c = sqlite3.connect(sys.argv[1])
esc = lambda s: s.replace('\\', '\\\\').replace('\t', '\\t').replace('\n', '\\n')
for i, (lid, dom, key, url) in enumerate(c.execute("SELECT id, domain, key, url FROM links WHERE workspace_id = ? ORDER BY id", (sys.argv[2],))):
    if os.environ["URL_PER_LINK"] == "1":
        base, sep, query = url.partition("?")
        url = base.rstrip("/") + "/" + key + sep + query
    print('\t'.join([str(i), esc(lid), esc(dom), esc(key), esc(url)]))
EOF
  NLINKS=$(wc -l < "$DIR/links.tsv")
  curl -sS --fail-with-body "$CH/?query=INSERT%20INTO%20relink.bench_links%20FORMAT%20TabSeparated" --data-binary @"$DIR/links.tsv"
  echo "workspace $WS: $NLINKS links in SQLite ($(( $(date +%s) - t0 )) s); generating $CLICKS clicks over $DAYS days"

  NOW_US=$(( $(date +%s) * 1000000 ))
  SPAN_US=$(( DAYS * 86400 * 1000000 ))
  T0_US=$(( NOW_US - SPAN_US ))
  # One row of attributes per click number n: every column a function of n,
  # so a lead or a sale generated from click n carries the click's values.
  attrs() { # $1 offset, $2 count, $3 extra WHERE
    cat <<EOF
SELECT n, ts, link_id, domain, key, url, ip, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, utm_source
FROM (
  SELECT n,
    toInt64($T0_US) + toInt64(cityHash64(n, 1) % $SPAN_US) AS ts,
    toUInt32(floor(pow((cityHash64(n, 3) % 1000000) / 1000000., 2) * $NLINKS)) AS idx,
    ['US','DE','GB','FR','IN','BR','JP','CA','AU','NL','ES','IT','MX','SE','PL','KR','NG','ZA','AR','ID'][1 + cityHash64(n, 4) % 20] AS country,
    transform(country, ['US','CA','MX','BR','AR','DE','GB','FR','NL','ES','IT','SE','PL','IN','JP','KR','ID','AU','NG','ZA'],
      ['NA','NA','NA','SA','SA','EU','EU','EU','EU','EU','EU','EU','EU','AS','AS','AS','AS','OC','AF','AF'], '') AS continent,
    concat(country, '-', toString(cityHash64(n, 5) % 8)) AS region,
    concat('City ', toString(cityHash64(n, 5) % 8), '-', toString(cityHash64(n, 6) % 40)) AS city,
    ['Desktop','Mobile','Mobile','Tablet'][1 + cityHash64(n, 7) % 4] AS device,
    ['Chrome','Chrome','Safari','Firefox','Edge','Samsung Internet','Opera'][1 + cityHash64(n, 8) % 7] AS browser,
    ['Windows','iOS','Android','Mac OS','Linux'][1 + cityHash64(n, 9) % 5] AS os,
    concat('Mozilla/5.0 (bench ', toString(cityHash64(n, 10) % 500), ')') AS ua,
    if(cityHash64(n, 11) % 20 = 0, 'qr', 'link') AS trigger,
    ['(direct)','google.com','twitter.com','facebook.com','linkedin.com','reddit.com','news.ycombinator.com','youtube.com','instagram.com','bing.com'][1 + cityHash64(n, 12) % 10] AS referer,
    if(referer = '(direct)', '(direct)', concat('https://', referer, '/p/', toString(cityHash64(n, 13) % 50))) AS referer_url,
    ['','','newsletter','twitter','partner','ads'][1 + cityHash64(n, 14) % 6] AS utm_source,
    IPv4NumToString(toUInt32(cityHash64(n, 15) % 4294967296)) AS ip
  FROM (SELECT number + $1 AS n FROM numbers($2))
  $3
) ANY LEFT JOIN (SELECT idx, link_id, domain, key, url FROM relink.bench_links) USING idx
EOF
  }
  for v in lead_events_aggregates sale_events_aggregates lead_events_aggregates_4week sale_events_aggregates_4week lead_events_url_hashes sale_events_url_hashes lead_events_urls sale_events_urls; do chq "DETACH TABLE relink.$v"; done
  trap 'for v in lead_events_aggregates sale_events_aggregates lead_events_aggregates_4week sale_events_aggregates_4week lead_events_url_hashes sale_events_url_hashes lead_events_urls sale_events_urls; do chq "ATTACH TABLE relink.$v" 2>/dev/null; done; cleanup' EXIT
  CLICK_COLS="workspace_id, ts, click_id, link_id, domain, key, url, identity_hash, ip, continent, country, region, city, device, browser, os, ua, qr, trigger, referer, referer_url, utm_source"
  off=0
  tl=$(date +%s)
  while [ "$off" -lt "$CLICKS" ]; do
    cnt=$(( CLICKS - off < CHUNK ? CLICKS - off : CHUNK ))
    chi "INSERT INTO relink.clicks ($CLICK_COLS)
SELECT '$WS', ts, concat('bc', toString(n)), link_id, domain, key,
  if(utm_source = '', url, concat(url, '?utm_source=', utm_source)), hex(cityHash64(ip, ua)), ip, continent, country, region, city,
  device, browser, os, ua, toUInt8(trigger = 'qr'), trigger, referer, referer_url, utm_source
FROM ($(attrs "$off" "$cnt" ""))"
    chi "INSERT INTO relink.lead_events (workspace_id, ts, event_id, event_name, customer_id, click_id, link_id, domain, key, url, ip, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, utm_source)
SELECT '$WS', least(ts + toInt64(cityHash64(n, 20) % 86400) * 1000000, toInt64($NOW_US)), concat('bl', toString(n)), 'Sign up', concat('bcus', toString(n)), concat('bc', toString(n)),
  link_id, domain, key, if(utm_source = '', url, concat(url, '?utm_source=', utm_source)), ip, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, utm_source
FROM ($(attrs "$off" "$cnt" "WHERE cityHash64(n, 99) % 20 = 0"))"
    chi "INSERT INTO relink.sale_events (workspace_id, ts, event_id, event_name, customer_id, lead_event_id, amount, currency, payment_processor, invoice_id, click_id, link_id, domain, key, url, ip, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, utm_source)
SELECT '$WS', least(ts + toInt64(cityHash64(n, 21) % 604800) * 1000000, toInt64($NOW_US)), concat('bs', toString(n)), 'Purchase', concat('bcus', toString(n)), concat('bl', toString(n)),
  toInt64(500 + cityHash64(n, 22) % 20000), 'usd', 'stripe', concat('inv_', toString(n)), concat('bc', toString(n)),
  link_id, domain, key, if(utm_source = '', url, concat(url, '?utm_source=', utm_source)), ip, continent, country, region, city, device, browser, os, ua, trigger, referer, referer_url, utm_source
FROM ($(attrs "$off" "$cnt" "WHERE cityHash64(n, 99) % 100 = 0"))"
    off=$(( off + cnt ))
    el=$(( $(date +%s) - tl ))
    printf '\r  %d / %d clicks (%d%%), %d s, %d clicks/s, load %s   ' "$off" "$CLICKS" $(( off * 100 / CLICKS )) "$el" $(( off / (el > 0 ? el : 1) )) "$(load)"
  done
  echo
  echo "raw events loaded in $(( $(date +%s) - tl )) s; load average $(load)"
  tr=$(date +%s)
  first=$(date -u -d "@$(( T0_US / 1000000 ))" +%Y-%m); last=$(date -u +%Y-%m)
  python3 bench/clickhouse/rollups.py "$WS" "$first" "$last" > "$DIR/rollups.sql"
  total=$(wc -l < "$DIR/rollups.sql"); i=0
  while IFS= read -r q; do
    chi "$q"; i=$(( i + 1 ))
    printf '\r  rollups: %d / %d statements, %d s, load %s   ' "$i" "$total" $(( $(date +%s) - tr )) "$(load)"
  done < "$DIR/rollups.sql"
  echo
  for v in lead_events_aggregates sale_events_aggregates lead_events_aggregates_4week sale_events_aggregates_4week lead_events_url_hashes sale_events_url_hashes lead_events_urls sale_events_urls; do chq "ATTACH TABLE relink.$v"; done
  trap cleanup EXIT
  echo "rollups written in $(( $(date +%s) - tr )) s; whole load $(( $(date +%s) - tl )) s; load average $(load)"
  for t in clicks:click lead_events:lead sale_events:sale; do
    raw=$(chq "SELECT count() FROM relink.${t%%:*} WHERE workspace_id = '$WS'")
    agg=$(chq "SELECT sum(count) FROM relink.event_aggregates WHERE workspace_id = '$WS' AND event = '${t##*:}' AND dim = 'total'")
    echo "  ${t%%:*}: $raw raw, $agg in the rollups' totals"
    [ "$raw" = "$agg" ] || { echo "rollups differ from the raw events" >&2; exit 1; }
    hashed=$(chq "SELECT sum(count) FROM relink.url_aggregates WHERE workspace_id = '$WS' AND event = '${t##*:}'")
    [ "$hashed" = "$(( agg * 5 ))" ] || { echo "url_aggregates count $hashed events of ${t%%:*}, want 5 × $agg (the total and one row per grain)" >&2; exit 1; }
  done
fi

if [ "$COMPACT" = 1 ]; then
  rollup_parts() { chq "SELECT table, count() FROM system.parts WHERE active AND database = 'relink' AND table IN ('event_aggregates', 'url_aggregates') GROUP BY table ORDER BY table FORMAT TSV" | tr '\t\n' ' ;'; }
  tc=$(date +%s)
  echo "rollup parts before compact: $(rollup_parts)"
  "$DIR/relink" clickhouse compact
  echo "compacted in $(( $(date +%s) - tc )) s; parts after: $(rollup_parts); load average $(load)"
fi
echo
echo "events in ClickHouse:"
chq "SELECT 'clicks', count() FROM relink.clicks UNION ALL SELECT 'leads', count() FROM relink.lead_events UNION ALL SELECT 'sales', count() FROM relink.sale_events FORMAT TSV"
echo
echo "| table | rows | bytes on disk | MiB | bytes per event |"
echo "|---|---:|---:|---:|---:|"
chq "SELECT table, sum(rows) AS r, sum(bytes_on_disk) AS b, round(b / 1048576), round(b / greatest(r, 1)) FROM system.parts WHERE active AND database = 'relink' GROUP BY table ORDER BY b DESC FORMAT TSV" |
  awk -F'\t' '{printf "| %s | %d | %d | %d | %d |\n", $1, $2, $3, $4, $5}'
total=$(chq "SELECT sum(bytes_on_disk) FROM system.parts WHERE active AND database = 'relink'")
events=$(chq "SELECT (SELECT count() FROM relink.clicks) + (SELECT count() FROM relink.lead_events) + (SELECT count() FROM relink.sale_events)")
echo "all tables: $(( total / 1048576 )) MiB for $events events = $(( total / (events / 1000000) / 1048576 )) MiB per million events (rollups included)"
echo

"$DIR/analytics" --workspace bench --runs "$RUNS" --warmup "$WARMUP" --interval "$INTERVALS" --events "$EVENTS" --target "$TARGET"

# The URL rankings by string (before migration 01590) in the same run, and
# both paths' answers over one fixed year compared byte for byte.
if [ "${COMPARE:-1}" = 1 ]; then
  echo "top_urls and top_base_urls ranked by the URL strings (--nourlhashes), the same data:"
  "$DIR/analytics" --workspace bench --runs "$RUNS" --warmup "$WARMUP" --interval "$INTERVALS" --events "$EVENTS" --target "$TARGET" --only top_urls,top_base_urls --nourlhashes
  rm -rf "$DIR/by-hash" "$DIR/by-string"; mkdir -p "$DIR/by-hash" "$DIR/by-string"
  fixed="start=$(date -u -d '-364 days' +%Y-%m-%dT07:21:09Z)&end=$(date -u -d '-1 day' +%Y-%m-%dT16:02:44Z)"
  "$DIR/analytics" --workspace bench --runs 1 --warmup 0 --interval "$fixed" --events "$EVENTS" --only top_urls,top_base_urls --dump "$DIR/by-hash" > /dev/null
  "$DIR/analytics" --workspace bench --runs 1 --warmup 0 --interval "$fixed" --events "$EVENTS" --only top_urls,top_base_urls --dump "$DIR/by-string" --nourlhashes > /dev/null
  if diff -r "$DIR/by-hash" "$DIR/by-string" > /dev/null; then
    echo "answers by hash and by string over $fixed: identical ($(ls "$DIR/by-hash" | wc -l) files, $(cat "$DIR/by-hash"/* | wc -c) bytes)"
  else
    echo "answers by hash and by string DIFFER over $fixed" >&2; exit 1
  fi
fi
