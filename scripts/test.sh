#!/usr/bin/env bash
# Runs the checks behind `make test` (and `make conformance`, `make e2e`), one step after
# another, each under a clear header, logging to $TARGET/test-logs/NN-<step>.{log,status}.
# A failing step does not stop the others (steps that need a failed build are skipped);
# the summary at the end (scripts/summarize.py) counts tests over cargo, pytest and
# Playwright, and its last line is `N passed, N failed` (`, N skipped` appended when any
# test was skipped, ignored or an expected failure).
#
# Usage: scripts/test.sh [STEP...]   (default: every step; install-tools always runs first)
# Steps: fetch fmt module-cycles clippy clippy-wasm cargo-test cargo-test-pg wasm-test trunk-build
#        server-build conformance conformance-pg conformance-mlflow e2e e2e-replica
# The -pg steps run the same tests on PostgreSQL, and e2e-replica the Playwright replica spec
# (two servers on one PostgreSQL database behind a load balancer): a throwaway cluster
# (scripts/pg.sh) is started for the step and removed after it.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR="$ROOT/$TARGET_DIR" ;; esac
LOGS="$TARGET_DIR/test-logs"
# conformance and e2e run the binaries cargo-test already built (debug profile; password
# hashing is optimised even there), which spares CI a release build of server and agent.
# RUNLENS_TEST_PROFILE=release tests release binaries instead.
PROFILE="${RUNLENS_TEST_PROFILE:-debug}"
case "$PROFILE" in
    debug | release) ;;
    *) echo "RUNLENS_TEST_PROFILE must be debug or release" >&2; exit 2 ;;
esac
RUNLENS_BIN="$TARGET_DIR/$PROFILE/runlens"
RUNLENS_AGENT_BIN="$TARGET_DIR/$PROFILE/runlens-agent"
export PATH="$ROOT/end2end/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
export CI=true CARGO_TERM_COLOR=never TRUNK_SKIP_VERSION_CHECK=true

ALL_STEPS=(fetch fmt module-cycles clippy clippy-wasm cargo-test cargo-test-pg wasm-test
    trunk-build server-build conformance conformance-pg conformance-mlflow e2e e2e-replica)
if [ $# -gt 0 ]; then STEPS=("$@"); else STEPS=("${ALL_STEPS[@]}"); fi

rm -rf "$LOGS"
mkdir -p "$LOGS"
declare -A RESULT
N=0

# step NAME CMD...: runs CMD with a header, tees its output to the step log, records the status.
step() {
    local name=$1 id rc start
    shift
    N=$((N + 1))
    id=$(printf '%02d-%s' "$N" "$name")
    printf '\n==== [%s] %s\n==== $ %s\n' "$(date +%H:%M:%S)" "$name" "$*"
    start=$SECONDS
    "$@" 2>&1 | tee "$LOGS/$id.log"
    rc=${PIPESTATUS[0]}
    echo "$rc" > "$LOGS/$id.status"
    RESULT[$name]=$rc
    printf '==== %s: %s in %ss\n' "$name" "$([ "$rc" -eq 0 ] && echo ok || echo "FAILED (exit $rc)")" \
        "$((SECONDS - start))"
    return 0
}

# skip NAME WHY: records a step that could not run because a prerequisite failed.
skip() {
    N=$((N + 1))
    local id
    id=$(printf '%02d-%s' "$N" "$1")
    printf '\n==== %s: SKIPPED (%s)\n' "$1" "$2"
    echo "skipped: $2" > "$LOGS/$id.log"
    echo skipped > "$LOGS/$id.status"
    RESULT[$1]=skipped
}

# ok NAME: the step ran in this invocation and passed, or was not asked for (built earlier).
ok() { [ "${RESULT[$1]:-notrun}" = 0 ] || [ "${RESULT[$1]:-notrun}" = notrun ]; }

has_wasm_tests() { grep -rqs 'wasm_bindgen_test' app/src app/tests; }

run_conformance() {
    RUNLENS_BIN="$RUNLENS_BIN" .venv/bin/python -m pytest -c tests/conformance/pytest.ini \
        tests/conformance -p no:cacheprovider
}

# with_pg CMD...: runs CMD with PG_URL set to a throwaway PostgreSQL cluster's URL.
with_pg() {
    local dir rc
    dir=$(mktemp -u /tmp/runlens-pg.XXXXXX)
    # Throwaway data: no crash safety needed, and every CREATE/DROP DATABASE checkpoints.
    PG_URL=$(PG_OPTS="-c fsync=off -c full_page_writes=off -c synchronous_commit=off" \
        bash scripts/pg.sh start "$dir") || return 1
    export PG_URL
    "$@"
    rc=$?
    bash scripts/pg.sh stop "$dir"
    return $rc
}

# Every test executable `cargo test --workspace` builds (a no-op once cargo-test ran).
# Another package selection (`-p server --test it`, `cargo build -p server`) unifies the
# dependencies' features differently and compiles about 80 crates again (2-4 minutes).
build_tests() { cargo test --workspace --locked --no-run "$@"; }

# test_exe TARGET: the path of the test executable TARGET (an integration test's name).
test_exe() {
    build_tests --message-format=json | python3 -c '
import json, sys
exe = [m["executable"] for m in map(json.loads, sys.stdin)
       if m.get("reason") == "compiler-artifact" and m.get("executable")
       and m["profile"]["test"] and m["target"]["name"] == sys.argv[1]]
sys.exit(print(exe[0]) if exe else f"no test executable {sys.argv[1]}")' "$1"
}

# The integration tests, each on a database of its own (tests/it/helpers/store.rs).
# First the PostgreSQL migrations against the SQLite ones (scripts/pg_schema_check.py: the
# same tables, columns, keys, indexes and triggers), then the suite: the executable
# cargo-test built, run as cargo would (from the package's folder), and after it the tests
# that only PostgreSQL can run, which the SQLite run ignores (named `pg_*`,
# `#[ignore = "PostgreSQL only: ..."]`; tests/it/architecture.rs keeps the two together).
run_cargo_test_pg() {
    local it
    psql "$PG_URL" -qc 'CREATE DATABASE schema_check' &&
        python3 scripts/pg_schema_check.py "${PG_URL%/*}/schema_check" &&
        it=$(test_exe it) &&
        (cd server && RUNLENS_TEST_DATABASE_URL="$PG_URL" "$it" &&
            RUNLENS_TEST_DATABASE_URL="$PG_URL" "$it" --ignored ::pg_)
}

# The conformance suite against a server on PostgreSQL (it inherits RUNLENS_DATABASE_URL).
run_conformance_pg() {
    psql "$PG_URL" -qc 'CREATE DATABASE conformance' &&
        RUNLENS_DATABASE_URL="${PG_URL%/*}/conformance" run_conformance
}

run_e2e() {
    (cd end2end && RUNLENS_BIN="$RUNLENS_BIN" RUNLENS_AGENT_BIN="$RUNLENS_AGENT_BIN" \
        RUNLENS_DIST="$ROOT/dist" RUNLENS_PYTHON="$ROOT/.venv/bin/python" npx --no-install playwright test "$@")
}

# The Playwright replica spec on an empty PostgreSQL database (its own two servers).
run_e2e_replica() {
    psql "$PG_URL" -qc 'CREATE DATABASE e2e_replica' &&
        RUNLENS_E2E_DATABASE_URL="${PG_URL%/*}/e2e_replica" run_e2e tests/replica.spec.mjs
}

step install-tools bash scripts/install-tools.sh
if [ "${RESULT[install-tools]}" != 0 ]; then
    python3 scripts/summarize.py "$LOGS" | tee "$LOGS/summary.txt"
    exit 1
fi

for s in "${STEPS[@]}"; do
    case "$s" in
    fetch) step fetch cargo fetch --locked ;;
    fmt) step fmt cargo fmt --all --check ;;
    module-cycles)
        # No import loops between modules (docs/ARCHITECTURE.md, "Import loops").
        step module-cycles python3 scripts/module_cycles.py server/src app/src api-types/src agent/src ;;
    clippy) step clippy cargo clippy --workspace --all-targets --locked -- -D warnings ;;
    clippy-wasm)
        step clippy-wasm cargo clippy -p app -p api-types --target wasm32-unknown-unknown \
            --locked -- -D warnings ;;
    cargo-test) step cargo-test cargo test --workspace --locked --no-fail-fast ;;
    cargo-test-pg) step cargo-test-pg with_pg run_cargo_test_pg ;;
    wasm-test)
        # Component tests in headless Chromium; only when the app has any.
        if has_wasm_tests; then
            step wasm-test env CHROMEDRIVER=/usr/bin/chromedriver \
                cargo test -p app --target wasm32-unknown-unknown --locked
        fi ;;
    trunk-build) step trunk-build trunk build --release ;;
    server-build)
        # The debug binaries are those cargo-test built (uplifted to target/debug again).
        if [ "$PROFILE" = debug ]; then step server-build build_tests
        else step server-build cargo build --release --locked -p server -p agent; fi ;;
    conformance)
        if ok server-build && [ -x "$RUNLENS_BIN" ]; then step conformance run_conformance
        else skip conformance "no server binary"; fi ;;
    conformance-pg)
        if ok server-build && [ -x "$RUNLENS_BIN" ]; then step conformance-pg with_pg run_conformance_pg
        else skip conformance-pg "no server binary"; fi ;;
    conformance-mlflow)
        # The same suite against a real `mlflow server` (bench/.venv-mlflow, made by
        # install-tools): shows the suite encodes MLflow's behaviour and that every
        # `runlens_only` test really departs from it (a strict xfail there).
        step conformance-mlflow .venv/bin/python bench/mlflow_conformance.py ;;
    e2e)
        if ok server-build && ok trunk-build && [ -x "$RUNLENS_BIN" ] && [ -x "$RUNLENS_AGENT_BIN" ] && [ -f dist/index.html ]; then
            step e2e run_e2e
        else skip e2e "no server or agent binary, or no dist/"; fi ;;
    e2e-replica)
        if ok server-build && ok trunk-build && [ -x "$RUNLENS_BIN" ] && [ -f dist/index.html ]; then
            step e2e-replica with_pg run_e2e_replica
        else skip e2e-replica "no server binary, or no dist/"; fi ;;
    *) echo "unknown step: $s (known: ${ALL_STEPS[*]})" >&2; exit 2 ;;
    esac
done

python3 scripts/summarize.py "$LOGS" | tee "$LOGS/summary.txt"
exit "${PIPESTATUS[0]}"
