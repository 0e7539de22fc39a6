#!/usr/bin/env bash
# Installs whatever is missing to build and test runlens on a fresh Debian 12 machine.
# Idempotent: every step checks first and skips what is already there (a warm run takes
# about a second).
#
#   scripts/install-tools.sh run    what building and serving needs (`make run`): the
#                                   wasm32 target, trunk, wasm-bindgen, binaryen's wasm-opt
#   scripts/install-tools.sh [test] all of the below (`make test`)
#
#   wasm32-unknown-unknown target  (rustup)
#   trunk 0.21.14                  (cargo install --debug; 0.22 needs a newer rustc)
#   wasm-bindgen-cli 0.2.130       (cargo install; must equal the crate in Cargo.lock)
#   end2end/node_modules           (npm ci: binaryen's wasm-opt 132; in test mode also
#                                   @playwright/test)
#   chromium + chromium-driver     (apt-get, only if /usr/bin/chromium is missing)
#   postgresql (15 on Debian 12)   (apt-get, only if initdb is missing; for scripts/pg.sh,
#                                   the PostgreSQL test passes and scripts/pg_schema_check.py)
#   python3-venv                   (apt-get, only if the python has no ensurepip)
#   libnss3-tools (certutil)       (apt-get, only if certutil is missing; the https browser test)
#   .venv                          (python venv: uv, then mlflow-skinny, psutil, pytest)
#   bench/.venv-mlflow             (python venv: the full MLflow server, mlflow==3.17.2, for
#                                   `conformance-mlflow` and `make bench`; ~15 s cold with uv)
# The apt, pip and npm steps run in the background while cargo compiles trunk and
# wasm-bindgen (see `background` below).
set -euo pipefail

MODE="${1:-test}"
case "$MODE" in
    run | test) ;;
    *) echo "usage: scripts/install-tools.sh [run|test]" >&2; exit 2 ;;
esac

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

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# The Debian packages that are missing, installed with one `apt-get update`.
install_packages() {
    local want=()
    if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
        want+=(chromium chromium-driver)
    fi
    # initdb and pg_ctl: where scripts/pg.sh looks for them (PATH, pg_config --bindir, or
    # Debian's /usr/lib/postgresql/<version>/bin, which is not on PATH).
    if ! command -v psql >/dev/null || { ! command -v initdb >/dev/null \
        && ! { command -v pg_config >/dev/null && [ -x "$(pg_config --bindir 2>/dev/null)/initdb" ]; } \
        && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }; then
        want+=(postgresql)
    fi
    # certutil: the https spec (end2end/tests/tls.spec.mjs) makes Chromium trust its test CA
    # through an NSS database, as a user's browser trusts a company CA.
    if ! command -v certutil >/dev/null; then
        want+=(libnss3-tools)
    fi
    # Debian's python3 needs python3-venv for ensurepip (`python3 -m venv`).
    if ! "$PYTHON" -c 'import ensurepip' >/dev/null 2>&1; then
        want+=(python3-venv)
    fi
    if [ ${#want[@]} -gt 0 ]; then
        say "installing Debian packages: ${want[*]}"
        $SUDO apt-get update
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${want[@]}"
    fi
}

# uv installs the venvs' packages: about 30 s for both (uv included) on a cold cache,
# where pip took about 165 s. It lives in .venv (made first), pinned; pip is the fallback.
UV_VERSION=0.13.9
UV=.venv/bin/uv
export UV_LINK_MODE=copy

# venv DIR REQUIREMENTS MARKER: DIR made from REQUIREMENTS unless MARKER (a copy of the
# requirements it was made from) says it already was.
venv() {
    local dir=$1 req=$2 marker=$3
    if [ -x "$dir/bin/python" ] && cmp -s "$req" "$marker"; then
        return 0
    fi
    say "preparing $dir from $req"
    if [ ! -x "$dir/bin/pip" ]; then
        rm -rf "$dir"
        "$PYTHON" -m venv "$dir"
    fi
    if [ ! -x "$UV" ] || [ "$("$UV" --version | awk '{print $2}')" != "$UV_VERSION" ]; then
        .venv/bin/pip install --quiet --disable-pip-version-check "uv==$UV_VERSION" ||
            say "uv $UV_VERSION did not install; pip installs the packages"
    fi
    if [ -x "$UV" ]; then
        "$UV" pip install --quiet --python "$dir/bin/python" -r "$req"
    else
        "$dir/bin/pip" install --quiet --disable-pip-version-check -r "$req"
    fi
    cp "$req" "$marker"
}

# The Debian packages, then the two Python environments (which may need python3-venv):
#   .venv               mlflow-skinny, psutil, pytest (conformance, e2e helpers)
#   bench/.venv-mlflow  the full MLflow server, mlflow==3.17.2, for `conformance-mlflow`
#                       and `make bench` (about 15 s cold with uv); its marker is the one
#                       bench/servers.py's ensure_mlflow_venv checks.
system_and_python() {
    install_packages
    venv .venv tests/conformance/requirements.txt .venv/.runlens-requirements
    venv bench/.venv-mlflow bench/requirements-mlflow.txt bench/.venv-mlflow/.requirements
}

# end2end/node_modules, skipped when it matches the lock: in `run` mode only binaryen's
# wasm-opt (the build's one dependency; `--omit=dev`), in `test` mode Playwright too. The
# marker names what was installed; a full install serves both modes.
node_modules() {
    local marker=end2end/node_modules/.runlens-lock
    if [ -f end2end/node_modules/.package-lock.json ] && cmp -s end2end/package-lock.json "$marker-test"; then
        return 0
    fi
    if [ "$MODE" = run ]; then
        if [ -f end2end/node_modules/.package-lock.json ] && cmp -s end2end/package-lock.json "$marker-run"; then
            return 0
        fi
        say "npm ci --omit=dev in end2end/ (binaryen wasm-opt)"
        (cd end2end && npm ci --omit=dev --no-audit --no-fund)
    else
        say "npm ci in end2end/ (Playwright, binaryen wasm-opt)"
        (cd end2end && npm ci --no-audit --no-fund)
    fi
    cp end2end/package-lock.json "$marker-$MODE"
}

# Downloads and unpacking (apt, pip, npm) run in the background beside the cargo installs,
# which keep both cores busy compiling: on a fresh machine that hides their minutes
# instead of adding them. Each job logs to a file, shown when it ends.
JOBS="$(mktemp -d)"
declare -A JOB_PID
# On any exit (a failed cargo install included) no job is left running.
trap 'kill "${JOB_PID[@]}" 2>/dev/null || true; rm -rf "$JOBS"' EXIT
background() {
    local name=$1
    shift
    ( set -euo pipefail; start=$SECONDS; "$@"; say "$name done in $((SECONDS - start)) s" ) \
        > "$JOBS/$name.log" 2>&1 &
    JOB_PID[$name]=$!
}
# Chromium, PostgreSQL and the Python venvs serve the tests and the benchmark only.
if [ "$MODE" = test ]; then
    background packages-and-python system_and_python
fi
background node-modules node_modules

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

failed=()
for name in "${!JOB_PID[@]}"; do
    if ! wait "${JOB_PID[$name]}"; then failed+=("$name"); fi
    sed 's/^/  /' "$JOBS/$name.log"
done
if [ ${#failed[@]} -gt 0 ]; then
    say "failed: ${failed[*]} (its output is above)" >&2
    exit 1
fi

tools="$(trunk --version), $(wasm-bindgen --version), wasm-opt $(end2end/node_modules/.bin/wasm-opt --version | awk '{print $3}')"
if [ "$MODE" = test ]; then
    tools="$tools, $(.venv/bin/python -c 'import mlflow; print("mlflow", mlflow.__version__)'), mlflow server $(bench/.venv-mlflow/bin/python -c 'import mlflow; print(mlflow.__version__)')"
fi
say "ok ($MODE): $tools"
