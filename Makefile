# Relink — run `make help` for the targets.
SHELL := bash
.DEFAULT_GOAL := help
GO ?= go
RELINK_TEST_DATABASE_URL ?=
export RELINK_TEST_DATABASE_URL
# -trimpath keeps source directories out of the build: binaries do not carry
# the checkout's path, and Go's build cache serves a fresh clone of the same
# code anywhere on the machine instead of recompiling every package (about
# 130 CPU-seconds of `make test` on 2 cores; docs/testing.md).
export GOFLAGS := $(strip $(GOFLAGS) -trimpath)

.PHONY: geoip-update help run build test test-go test-go-plain test-go-race test-long test-race test-sdk test-embed test-browser test-browser-embed lint structure generate templ css openapi check-generated bench-redirect bench-faults

help: ## Show this help
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2}'

run: ## Run Relink on the embedded SQLite database (./relink.db)
	$(GO) run ./cmd/relink serve

build: ## Build the relink binary into ./bin/relink
	$(GO) build -o bin/relink ./cmd/relink

test: ## Run every test: Go (SQLite, and PostgreSQL when RELINK_TEST_DATABASE_URL is set), the SDK suite, the embed component and the browser suites (console, embed)
	@# The suites are independent (free ports, temporary databases). The Node
	@# ones spend most of their time waiting on a server or a browser (the
	@# console browser suite: ~125 CPU-seconds in ~7 minutes), and so do the
	@# built-binary Go tests, so every leg starts at once and the CPU-bound
	@# Go packages fill the waits; each leg's output is printed whole when it
	@# ends (docs/testing.md, "How long it takes").
	$(GO) build -o bin/relink-test ./cmd/relink
	RELINK_TEST_BIN=$(CURDIR)/bin/relink-test $(MAKE) --no-print-directory -j8 --output-sync=target \
	  test-go-plain test-go-race test-sdk test-embed test-browser test-browser-embed

# The race detector multiplies the cost of every SQLite query (the driver is
# pure Go, so -race instruments all of it) about five to ten times, which put
# `make test` over its 10-minute budget. `make test` runs the packages whose
# job is concurrency (the click pipeline and its journal, jobs, caches, rate
# limits, webhook delivery, the composition root, the redirect face) and the
# server's end-to-end click, shutdown and outage tests under -race, and the
# rest without it; `make test-race` runs everything under -race.
RACE_PKGS := ./internal/ingest ./internal/jobs ./internal/linkcache ./internal/ratelimit \
	./internal/ttlmap ./internal/webhooks ./internal/wsset ./internal/logbuf ./internal/app \
	./handlers/redirect
RACE_SERVER_TESTS := Redirect|Shutdown|Hung|TrackClick|TrackOpen|TrackVisit|RateLimit|Deadline

# go test's default 10-minute limit is per package binary; internal/analytics
# (the engine property test against SQL, ClickHouse 18.16 and chDB 26) takes
# ~5 minutes on a quiet runner and came within a minute of the limit on a
# loaded one, so the limit is raised: a hung test still fails, a slow runner
# does not.
GO_TEST_TIMEOUT ?= 20m

# go test runs a subset of go vet on every package it builds (and on their
# dependencies, for facts) before the tests. `make lint` runs all of go vet
# and CI runs lint before make test, so make test does not vet again: on a
# cold build cache that pass cost 194 CPU-seconds (137 user + 57 sys, 101 s
# on 2 cores; docs/testing.md), and vet's cache keys differ between the two.
GO_TEST_FLAGS := -count=1 -vet=off -timeout $(GO_TEST_TIMEOUT)

# Each leg of make test prints its wall time and the CPU its processes used
# when it ends (bash's time: every process the leg waited for, the test
# binaries, servers and browsers they started included; docs/testing.md).
TIMED = TIMEFORMAT="make $@: %0R s wall, %0U s user + %0S s sys" && time

test-go: test-go-plain test-go-race ## Go tests; the concurrent packages and the server's click-path tests under the race detector

test-go-plain:
	$(TIMED) $(GO) test $(GO_TEST_FLAGS) $$($(GO) list ./... | grep -vxF "$$($(GO) list $(RACE_PKGS))")

test-go-race:
	$(TIMED) ($(GO) test -race $(GO_TEST_FLAGS) $(RACE_PKGS) && \
	  $(GO) test -race $(GO_TEST_FLAGS) -run '$(RACE_SERVER_TESTS)' ./handlers)

test-long: ## The analytics property tests and the input batteries in full (make test runs a fixed share of them; docs/testing.md)
	RELINK_TEST_LONG=1 $(GO) test -count=1 -timeout 60m ./internal/analytics/
	RELINK_TEST_LONG=1 $(GO) test -count=1 -timeout 60m -run 'Battery' ./handlers/

test-race: ## Every Go test under the race detector (slower than make test's selection; run before a release)
	$(GO) test -race -count=1 ./...

test-sdk: ## The dub SDK conformance suite against a live server
	$(TIMED) (cd tests/sdk && npm ci --no-audit --no-fund --loglevel=error && npm test)

test-embed: ## The React embed component (packages/embed-react): build and vitest
	@# The local registry mirror serves no metadata for rollup's foreign-platform
	@# optional packages, so the lockfile lacks them and `npm ci` refuses it here;
	@# then install the locked versions without rewriting the lockfile.
	$(TIMED) (cd packages/embed-react && (npm ci --no-audit --no-fund --loglevel=silent 2>/dev/null || npm install --no-save --no-audit --no-fund --loglevel=error) && npm run build && npm test)

test-browser-embed: ## Embedded dashboard in headless Chromium (tests/embed; /usr/bin/chromium)
	$(TIMED) (cd tests/embed && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error && npm test)

test-browser: ## The console and the short-link pages in headless Chromium (/usr/bin/chromium) against the real binary; screenshots in tests/browser/artifacts/
	$(TIMED) (cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error && npm test)

lint: structure ## go vet, gofmt, staticcheck and the structure checks
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) tool staticcheck ./...

structure: ## No function over 120 lines, faces import no other face, faces and CLI write through services, console URLs from the route table, Dub objects declared in internal/wire only, every cited doc and section exists (internal/codecheck; docs/architecture.md)
	$(GO) test -count=1 -run 'TestFunctionLength|TestFacesDoNotBorrow|TestCitation|TestServicesAreTheWriters|TestModelWritesFound|TestConsoleURLsFromTable|TestPathLiteralsFound|TestDubObjectsInWire|TestWireTagsFound' ./internal/codecheck/

generate: templ css openapi ## Rebuild every generated file (templ, CSS, vendored htmx, openapi.json)

templ: ## Generate *_templ.go from the .templ files (pinned templ in go.mod)
	$(GO) tool templ generate

css: ## Build static/css/app.css with Tailwind (pinned in package.json) and vendor htmx
	npm ci --no-audit --no-fund --loglevel=error
	./node_modules/.bin/tailwindcss -c tailwind.config.js -i views/styles/input.css -o static/css/app.css --minify
	@mkdir -p static/js
	cp node_modules/htmx.org/dist/htmx.min.js static/js/htmx.min.js

openapi: ## Generate handlers/api/openapi.json (GET /openapi.json) from the dub SDK's schemas and tests/sdk/openapi/relink.json
	cd tests/sdk && npm ci --no-audit --no-fund --loglevel=error && node openapi/generate.mjs

check-generated: generate ## Fail when committed generated files are stale
	@git diff --exit-code --stat -- '*_templ.go' static/ handlers/api/openapi.json || (echo "generated files are stale: run 'make generate' and commit"; exit 1)
	@test -z "$$(git status --porcelain --untracked-files=all -- '*_templ.go' static/)" || (echo "untracked generated files: run 'make generate' and commit"; git status --porcelain -- '*_templ.go' static/; exit 1)

bench-faults: ## Fault benchmark: SIGTERM/SIGKILL under load, PostgreSQL stopped 30 s and 5 min and hung 60 s (private instance); see bench/README.md
	$(GO) run ./bench/faults
geoip-update: ## Refresh the embedded IP-to-country database (internal/geo/countrydb) from the npm registry
	@set -euo pipefail; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	  ver=$$(cd "$$tmp" && npm view @ip-location-db/geo-whois-asn-country-mmdb version); \
	  (cd "$$tmp" && npm pack --silent @ip-location-db/geo-whois-asn-country-mmdb@$$ver >/dev/null && tar xzf *.tgz); \
	  gzip -9 -n -c "$$tmp/package/geo-whois-asn-country.mmdb" > internal/geo/countrydb/geo-whois-asn-country.mmdb.gz; \
	  cp "$$tmp/package/NRO_LICENSE" internal/geo/countrydb/NRO_LICENSE; \
	  sed -i "s/Version     = \".*\"/Version     = \"$$ver\"/" internal/geo/countrydb/countrydb.go; \
	  echo "embedded country database now $$ver"

bench-redirect: ## Redirect benchmark vs a bare Fiber 302 (wrk; BENCH_PG_URL=postgres://… adds PostgreSQL); see bench/README.md
	bench/redirect/run.sh
