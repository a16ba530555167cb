-- wrk script: every request is a distinct visitor (its own X-Forwarded-For,
-- so the 1-hour de-duplication never merges two requests), and every
-- response is counted by status, so the run can be checked against the rows
-- in the database. Usage: wrk -s count.lua URL -- RUN_ID
local threads = {}
local next_id = 0

function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  run = tonumber(args[1]) or 0
  notrack = args[2] == "notrack" -- diagnostic: ask Relink not to record the click
  sent = 0
  responses = 0
  redirects = 0
end

function request()
  sent = sent + 1
  local ip = string.format("fd00:%x:%x:%x:%x::1", run, tid, math.floor(sent / 65536), sent % 65536)
  if notrack then
    return wrk.format("GET", nil, { ["X-Forwarded-For"] = ip, ["dub-no-track"] = "1" })
  end
  return wrk.format("GET", nil, { ["X-Forwarded-For"] = ip })
end

function response(status, headers, body)
  responses = responses + 1
  if status == 302 then
    redirects = redirects + 1
  end
end

function done(summary, latency, requests)
  local total, r302 = 0, 0
  for _, t in ipairs(threads) do
    total = total + t:get("responses")
    r302 = r302 + t:get("redirects")
  end
  io.write(string.format("COUNT responses=%d redirects=%d\n", total, r302))
  io.write(string.format("LAT p50=%d p99=%d\n", latency:percentile(50), latency:percentile(99)))
  io.write(string.format("RPS %.0f errors=%d\n", summary.requests / (summary.duration / 1e6),
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout))
end
