# runlens: thin wrappers over scripts/, cargo, trunk, pytest and Playwright.
# Fresh machine: `make run` (build and serve with demo data) or `make test` (everything).

SHELL := /bin/bash
ADDR ?= 127.0.0.1:8080
DATA_DIR ?= data
BENCH_ARGS ?=
# Ports of the demo's two simulated GPU agents (demo-node-1, demo-node-2) on 127.0.0.1.
DEMO_AGENT_PORTS ?= 9401 9402
# The origin whose pages may frame the GPU panel's embed links: a local Jupyter's by default.
EMBED_ORIGIN ?= http://localhost:8888
export PATH := $(CURDIR)/end2end/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

.PHONY: help tools app binaries server agent build run test conformance conformance-mlflow e2e bench fmt clippy

help:
	@echo "make run          install missing tools, build app + server + agent (release), serve on http://$(ADDR) with demo"
	@echo "                  data and two simulated GPU agents (demo-node-1/2 on 127.0.0.1 ports DEMO_AGENT_PORTS=\"$(DEMO_AGENT_PORTS)\")"
	@echo "                  (sign in as alice / alice-demo-pw, bob / bob-demo-pw or carol / carol-demo-pw; admin's"
	@echo "                  password is RUNLENS_ADMIN_PASSWORD, or printed once on the first start)"
	@echo "make test         fmt, clippy (native + wasm32), cargo tests, app build, conformance, end-to-end"
	@echo "make conformance  the pytest suite driving the stock mlflow client against runlens"
	@echo "make conformance-mlflow  the same suite against a real mlflow server (checks the suite itself)"
	@echo "make e2e          the Playwright browser tests"
	@echo "make bench        side-by-side benchmark with a real MLflow server (writes docs/BENCHMARKS.md)"

# What building and serving needs; `make test` installs the rest (scripts/test.sh).
tools:
	@bash scripts/install-tools.sh run

app: tools
	cargo fetch --locked
	trunk build --release

# Server and agent in one cargo invocation: their shared dependencies build once.
binaries:
	cargo build --release --locked -p server -p agent

server agent: binaries

build: app binaries

# The demo's simulated GPU agents start first, in the background, and stop when the server
# does (trap); a busy port skips that agent with a message instead of failing. The server
# registers them as demo-node-1 and demo-node-2 (RUNLENS_DEMO_NODES).
run: build
	@pids=(); trap 'kill $${pids[@]} 2>/dev/null; wait 2>/dev/null' EXIT; \
	ports=($(DEMO_AGENT_PORTS)); nodes=(); \
	for i in 1 2; do \
	  port=$${ports[$$((i - 1))]:-$$((9400 + i))}; \
	  nodes+=("demo-node-$$i=http://127.0.0.1:$$port"); \
	  if (exec 3<>/dev/tcp/127.0.0.1/$$port) 2>/dev/null; then \
	    echo "make run: port $$port is busy, so demo agent demo-node-$$i is not started (the GPU panel shows it" \
	      "unreachable unless an earlier demo agent listens there); free the port or set DEMO_AGENT_PORTS=\"P1 P2\"" >&2; \
	  else \
	    env -u RUNLENS_SERVER -u RUNLENS_TOKEN target/release/runlens-agent serve --listen 127.0.0.1:$$port \
	      --node-name demo-node-$$i --token demo-agent-token --simulate-gpus 4 --seed $$i & pids+=($$!); \
	  fi; \
	done; \
	RUNLENS_DEMO_NODES="$$(IFS=,; echo "$${nodes[*]}")" RUNLENS_DEMO_AGENT_TOKEN=demo-agent-token \
	  target/release/runlens serve --addr $(ADDR) --data-dir $(DATA_DIR) --dist dist --demo \
	  --embed-origin $(EMBED_ORIGIN)

test:
	@bash scripts/test.sh

conformance:
	@bash scripts/test.sh server-build conformance

conformance-mlflow:
	@bash scripts/test.sh conformance-mlflow

e2e:
	@bash scripts/test.sh fetch trunk-build server-build e2e

bench: build
	.venv/bin/python bench/bench.py $(BENCH_ARGS)

fmt:
	cargo fmt --all

clippy:
	cargo clippy --workspace --all-targets --locked -- -D warnings
