.PHONY: setup build run test test-unit typecheck bench e2e-kind clean

# Installs Debian's chromium, chromium-headless-shell and xvfb, the npm packages, and builds.
setup:
	bash scripts/setup.sh

build:
	npx tsc -p tsconfig.json
	node dist/dashboard/web/build.js

# The embedded default: one process, PGlite in ./data, the in-process bus, http://127.0.0.1:8080.
run: setup
	node dist/bin/trawler.js all

# The whole suite: type-check of sources, tests and benchmarks, then unit, embedded, distributed
# (real PostgreSQL and NATS), browser-engine and operator tests.
test: setup
	npx tsc -p tsconfig.test.json
	npx vitest run

typecheck:
	npx tsc -p tsconfig.test.json

# Benchmarks print figures; they are not tests.
bench: setup
	npx tsx bench/run-all.ts

# Needs Docker and kind; not run on machines without a Docker engine (see README).
e2e-kind: setup
	bash test/e2e/kind.sh

clean:
	rm -rf dist data
