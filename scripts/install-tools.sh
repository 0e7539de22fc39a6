#!/usr/bin/env bash
# Installs whatever is missing to build and test runlens on a fresh Debian 12 machine.
# Idempotent: every step checks first and skips what is already there (a warm run takes
# about a second). Called by `make run` and `make test`.
#
#   wasm32-unknown-unknown target  (rustup)
#   trunk 0.21.14                  (cargo install --debug; 0.22 needs a newer rustc)
#   wasm-bindgen-cli 0.2.130       (cargo install; must equal the crate in Cargo.lock)
#   end2end/node_modules           (npm ci: @playwright/test and binaryen's wasm-opt 132)
#   chromium + chromium-driver     (apt-get, only if /usr/bin/chromium is missing)
#   postgresql (15 on Debian 12)   (apt-get, only if initdb is missing; for scripts/pg.sh,
#                                   the PostgreSQL test passes and scripts/pg_schema_check.py)
#   .venv                          (python venv: mlflow-skinny, psutil, pytest)
#   bench/.venv-mlflow             (python venv: the full MLflow server, mlflow==3.17.2, for
#                                   `conformance-mlflow` and `make bench`; ~3 minutes cold)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
PYTHON="${PYTHON:-python3}"

say() { printf '[install-tools] %s\n' "$*"; }

export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

if ! command -v cargo >/dev/null; then
    say "cargo not found: install Rust (rustup) first" >&2
    exit 1
fi

if command -v rustup >/dev/null; then
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        say "adding rust target wasm32-unknown-unknown"
        rustup target add wasm32-unknown-unknown
    fi
fi

if ! trunk --version 2>/dev/null | grep -qx "trunk $TRUNK_VERSION"; then
    # --debug: trunk's release profile (fat LTO, one codegen unit) takes 8 to 17 minutes on
    # 2 cores; a debug build takes under 6 and builds a byte-identical dist/ (trunk only
    # orchestrates cargo, wasm-bindgen and wasm-opt; measured: 27.6 s vs 24.3 s per build).
    say "installing trunk $TRUNK_VERSION (debug build, about 5 minutes on 2 cores)"
    cargo install --debug --locked trunk --version "$TRUNK_VERSION"
fi

if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $WASM_BINDGEN_VERSION"; then
    say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes)"
    # --locked fails when the registry lacks a locked dependency version; retry unlocked.
    cargo install --locked wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" \
        || cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

# Skip `npm ci` when node_modules already matches the lock file.
if [ ! -f end2end/node_modules/.package-lock.json ] \
    || ! cmp -s end2end/package-lock.json end2end/node_modules/.runlens-lock; then
    say "npm ci in end2end/ (Playwright, binaryen wasm-opt)"
    (cd end2end && npm ci --no-audit --no-fund)
    cp end2end/package-lock.json end2end/node_modules/.runlens-lock
fi

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    say "installing Debian chromium and chromium-driver"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y chromium chromium-driver
fi

# initdb and pg_ctl: where scripts/pg.sh looks for them (PATH, pg_config --bindir, or
# Debian's /usr/lib/postgresql/<version>/bin, which is not on PATH).
if ! command -v psql >/dev/null || { ! command -v initdb >/dev/null \
    && ! { command -v pg_config >/dev/null && [ -x "$(pg_config --bindir 2>/dev/null)/initdb" ]; } \
    && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }; then
    say "installing Debian postgresql (server and psql, for scripts/pg.sh)"
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y postgresql
fi

REQ=tests/conformance/requirements.txt
if [ ! -x .venv/bin/python ] || ! cmp -s "$REQ" .venv/.runlens-requirements; then
    say "preparing .venv from $REQ"
    if [ ! -x .venv/bin/python ] && ! "$PYTHON" -m venv .venv; then
        # Debian's python3 needs python3-venv for ensurepip.
        rm -rf .venv
        SUDO=""
        if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
        $SUDO apt-get update && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y python3-venv
        "$PYTHON" -m venv .venv
    fi
    .venv/bin/pip install --quiet --disable-pip-version-check -r "$REQ"
    cp "$REQ" .venv/.runlens-requirements
fi

MLFLOW_REQ=bench/requirements-mlflow.txt
MLFLOW_VENV=bench/.venv-mlflow
# Same marker as bench/servers.py's ensure_mlflow_venv: the requirements it was made from.
if [ ! -x "$MLFLOW_VENV/bin/mlflow" ] || ! cmp -s "$MLFLOW_REQ" "$MLFLOW_VENV/.requirements"; then
    say "preparing $MLFLOW_VENV from $MLFLOW_REQ (the real MLflow server)"
    if [ ! -x "$MLFLOW_VENV/bin/pip" ]; then
        rm -rf "$MLFLOW_VENV"
        "$PYTHON" -m venv "$MLFLOW_VENV"
    fi
    "$MLFLOW_VENV/bin/pip" install --quiet --disable-pip-version-check -r "$MLFLOW_REQ"
    cp "$MLFLOW_REQ" "$MLFLOW_VENV/.requirements"
fi

say "ok: $(trunk --version), $(wasm-bindgen --version), wasm-opt $(end2end/node_modules/.bin/wasm-opt --version | awk '{print $3}'), $(.venv/bin/python -c 'import mlflow; print("mlflow", mlflow.__version__)'), mlflow server $("$MLFLOW_VENV/bin/python" -c 'import mlflow; print(mlflow.__version__)')"
