"""Prints the INSERT … SELECT statements that fill ClickHouse's rollups
(event_aggregates) for one workspace from its raw event tables, one
statement per event table, month and dimension (its hourly, daily and
weekly rows together, and the four-week rows of the link and URL
dimensions), with the dimensions, grains and values read from the
materialized views of migrations/clickhouse (01550_rollups.sql,
01580_four_week_rollups.sql), so the rows are exactly those the views
write at insert time; then, per month, the URL hashes and strings
(url_aggregates and urls, 01590) from those rollups, as the rebuild
computes them.

bench/clickhouse/run.sh loads 100M generated clicks with the views
detached (the views' per-block ARRAY JOIN of 40 rows per click ran at
~21k clicks/s here) and fills the rollups with these statements instead.

usage: rollups.py WORKSPACE_ID FIRST_MONTH(YYYY-MM) LAST_MONTH(YYYY-MM)
"""
import re
import sys
from pathlib import Path

ws, first, last = sys.argv[1:4]
src = "".join(p.read_text() for p in sorted((Path(__file__).resolve().parents[2] / "migrations/clickhouse").glob("*.sql")))
tables = {"clicks": ("click", "toInt64(0)"), "lead_events": ("lead", "toInt64(0)"), "sale_events": ("sale", "toInt64(sum(amount))")}


def months(a, b):
    y, m = map(int, a.split("-"))
    ye, me = map(int, b.split("-"))
    while (y, m) <= (ye, me):
        yield f"{y:04d}-{m:02d}-01", f"{y + m // 12:04d}-{m % 12 + 1:02d}-01"
        y, m = y + m // 12, m % 12 + 1


for table, (event, amount) in tables.items():
    entries = []
    for view in re.finditer(r"CREATE MATERIALIZED VIEW IF NOT EXISTS " + table + r"_aggregates(?:_4week)? TO .*?ARRAY JOIN \[(.*?)\] AS d", src, re.S):
        entries += re.findall(r"\('([^']+)', (toDateTime\(.*?\)), (.*?)\),?\n", view.group(1) + "\n")
    dims = {}
    for name, hour, value in entries:
        dims.setdefault(name.split("@")[0], []).append((name, hour, value))
    for start, end in months(first, last):
        for grains in dims.values():
            arr = ", ".join(f"('{n}', {h}, {v})" for n, h, v in grains)
            print(
                f"INSERT INTO relink.event_aggregates SELECT workspace_id, '{event}' AS event, tupleElement(d, 1) AS dim, "
                f"tupleElement(d, 2) AS hour, tupleElement(d, 3) AS value, toInt64(count()) AS count, {amount} AS amount "
                f"FROM relink.{table} ARRAY JOIN [{arr}] AS d "
                f"WHERE workspace_id = '{ws}' AND time >= toDateTime('{start} 00:00:00', 'UTC') AND time < toDateTime('{end} 00:00:00', 'UTC') "
                f"GROUP BY workspace_id, dim, hour, value"
            )

# url_aggregates and urls (migration 01590) from the rollups just written,
# per month: what the rebuild computes (internal/chstore/rebuild.go,
# urlHashes and urlMonth).
cut = "if(position(value, '?') > 0, substring(value, 1, position(value, '?') - 1), value)"
for start, end in months(first, last):
    m = start[:4] + start[5:7]
    print(
        f"INSERT INTO relink.url_aggregates SELECT workspace_id, event, dim, hour, cityHash64(value) AS value_hash, "
        f"cityHash64({cut}) AS base_hash, sum(count) AS count, sum(amount) AS amount FROM relink.event_aggregates "
        f"WHERE workspace_id = '{ws}' AND toYYYYMM(hour) = {m} AND dim IN ('total', 'url', 'url@day', 'url@week', 'url@4week') "
        f"GROUP BY workspace_id, event, dim, hour, value_hash, base_hash"
    )
    print(
        f"INSERT INTO relink.urls SELECT workspace_id, cityHash64(v) AS value_hash, v AS name FROM relink.event_aggregates "
        f"ARRAY JOIN [value, {cut}] AS v WHERE workspace_id = '{ws}' AND toYYYYMM(hour) = {m} AND dim = 'url@day' "
        f"GROUP BY workspace_id, value_hash, name"
    )
