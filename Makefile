# runlens: thin wrappers over scripts/, cargo, trunk, pytest and Playwright.
# Fresh machine: `make run` (build and serve with demo data) or `make test` (everything).

SHELL := /bin/bash
ADDR ?= 127.0.0.1:8080
DATA_DIR ?= data
BENCH_ARGS ?=
export PATH := $(CURDIR)/end2end/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)

.PHONY: help tools app server build run test conformance conformance-mlflow e2e bench fmt clippy

help:
	@echo "make run          install missing tools, build app + server (release), serve on http://$(ADDR) with demo data"
	@echo "                  (sign in as alice / alice-demo-pw, bob / bob-demo-pw or carol / carol-demo-pw; admin's"
	@echo "                  password is RUNLENS_ADMIN_PASSWORD, or printed once on the first start)"
	@echo "make test         fmt, clippy (native + wasm32), cargo tests, app build, conformance, end-to-end"
	@echo "make conformance  the pytest suite driving the stock mlflow client against runlens"
	@echo "make conformance-mlflow  the same suite against a real mlflow server (checks the suite itself)"
	@echo "make e2e          the Playwright browser tests"
	@echo "make bench        side-by-side benchmark with a real MLflow server (writes docs/BENCHMARKS.md)"

tools:
	@bash scripts/install-tools.sh

app: tools
	cargo fetch --locked
	trunk build --release

server:
	cargo build --release --locked -p server

build: app server

run: build
	target/release/runlens serve --addr $(ADDR) --data-dir $(DATA_DIR) --dist dist --demo

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
