# Relink — run `make help` for the targets.
SHELL := bash
.DEFAULT_GOAL := help
GO ?= go
RELINK_TEST_DATABASE_URL ?=
export RELINK_TEST_DATABASE_URL

.PHONY: help run build test test-go test-sdk test-embed test-browser test-browser-embed lint generate templ css check-generated bench-redirect bench-faults

help: ## Show this help
	@grep -hE '^[a-zA-Z_-]+:.*?## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*?## "}; {printf "  \033[36m%-16s\033[0m %s\n", $$1, $$2}'

run: ## Run Relink on the embedded SQLite database (./relink.db)
	$(GO) run ./cmd/relink serve

build: ## Build the relink binary into ./bin/relink
	$(GO) build -trimpath -o bin/relink ./cmd/relink

test: test-go test-sdk test-embed test-browser test-browser-embed ## Run every test: Go (SQLite, and PostgreSQL when RELINK_TEST_DATABASE_URL is set), the SDK suite, the embed component and the browser suites (console, embed)

test-go: ## Go tests with the race detector
	$(GO) test -race -count=1 ./...

test-sdk: ## The dub SDK conformance suite against a live server
	cd tests/sdk && npm ci --no-audit --no-fund --loglevel=error && npm test

test-embed: ## The React embed component (packages/embed-react): build and vitest
	@# The local registry mirror serves no metadata for rollup's foreign-platform
	@# optional packages, so the lockfile lacks them and `npm ci` refuses it here;
	@# then install the locked versions without rewriting the lockfile.
	cd packages/embed-react && (npm ci --no-audit --no-fund --loglevel=silent 2>/dev/null || npm install --no-save --no-audit --no-fund --loglevel=error) && npm run build && npm test

test-browser-embed: ## Embedded dashboard in headless Chromium (tests/embed; /usr/bin/chromium)
	cd tests/embed && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error && npm test

test-browser: ## The console and the short-link pages in headless Chromium (/usr/bin/chromium) against the real binary; screenshots in tests/browser/artifacts/
	cd tests/browser && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error && npm test

lint: ## go vet, gofmt and staticcheck
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) tool staticcheck ./...

generate: templ css ## Rebuild every generated file (templ, CSS, vendored htmx)

templ: ## Generate *_templ.go from the .templ files (pinned templ in go.mod)
	$(GO) tool templ generate

css: ## Build static/css/app.css with Tailwind (pinned in package.json) and vendor htmx
	npm ci --no-audit --no-fund --loglevel=error
	./node_modules/.bin/tailwindcss -c tailwind.config.js -i views/styles/input.css -o static/css/app.css --minify
	@mkdir -p static/js
	cp node_modules/htmx.org/dist/htmx.min.js static/js/htmx.min.js

check-generated: generate ## Fail when committed generated files are stale
	@git diff --exit-code --stat -- '*_templ.go' static/ || (echo "generated files are stale: run 'make generate' and commit"; exit 1)
	@test -z "$$(git status --porcelain --untracked-files=all -- '*_templ.go' static/)" || (echo "untracked generated files: run 'make generate' and commit"; git status --porcelain -- '*_templ.go' static/; exit 1)

bench-faults: ## Fault benchmark: SIGTERM/SIGKILL under load, PostgreSQL stopped 30 s and 5 min and hung 60 s (private instance); see bench/README.md
	$(GO) run ./bench/faults

bench-redirect: ## Redirect benchmark vs a bare Fiber 302 (wrk; BENCH_PG_URL=postgres://… adds PostgreSQL); see bench/README.md
	bench/redirect/run.sh
