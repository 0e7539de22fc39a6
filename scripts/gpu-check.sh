#!/usr/bin/env bash
# Runs runlens-agent against the real NVML of this machine for a while and prints what it
# saw: GET /v1/gpus and GET /metrics. For a machine with an NVIDIA GPU. Exits non-zero if
# NVML was not found (no driver), if the agent died, or if it reported no GPU.
#
#   scripts/gpu-check.sh [SECONDS]        (default 30; samples every second)
#
# Builds with cargo (CARGO_TARGET_DIR if set, else target/), unless RUNLENS_AGENT_BIN names
# an already built runlens-agent (for a GPU machine without cargo or network).
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-30}"
target="${CARGO_TARGET_DIR:-target}"

bin="${RUNLENS_AGENT_BIN:-}"
if [ -z "$bin" ]; then
  echo "== building runlens-agent (release)"
  cargo build --release -p agent --bin runlens-agent
  bin="$target/release/runlens-agent"
fi

# A free local port: bind port 0, read it back, release it.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
token="gpu-check-$RANDOM$RANDOM"
log="$(mktemp)"
trap 'kill "${pid:-}" 2>/dev/null || true; rm -f "$log"' EXIT

RUNLENS_AGENT_TOKEN="$token" "$bin" serve --listen "127.0.0.1:$port" \
  --node-name "$(hostname)" --interval-secs 1 >"$log" 2>&1 &
pid=$!

# Wait for the listener (or for the agent to die).
for _ in $(seq 50); do
  grep -q "listening on" "$log" && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
cat "$log"
if ! kill -0 "$pid" 2>/dev/null; then
  echo "gpu-check: the agent exited" >&2
  exit 1
fi
if grep -q "NVML not found" "$log"; then
  echo "gpu-check: NVML not found on this machine (no NVIDIA driver): nothing to check" >&2
  exit 2
fi

start_ms="$(($(date +%s) * 1000))"
echo "== sampling for ${seconds}s at 1 s"
sleep "$seconds"

echo "== GET /v1/gpus?since=$start_ms (latest, and history length)"
snapshot="$(curl -fsS -H "Authorization: Bearer $token" \
  "http://127.0.0.1:$port/v1/gpus?since=$start_ms")"
python3 - "$snapshot" <<'PY'
import json, sys
snap = json.loads(sys.argv[1])
history = snap.pop("history")
print(json.dumps(snap, indent=2))
print(f"history: {len(history)} samples since start")
for gpu in snap["gpus"]:
    series = [s["gpus"][gpu["index"]].get("utilization_percent") for s in history
              if len(s["gpus"]) > gpu["index"]]
    print(f"gpu {gpu['index']} utilisation over the run: {series}")
if not snap["gpus"]:
    sys.exit("gpu-check: NVML answered but reported no GPU")
PY

echo "== GET /metrics"
curl -fsS "http://127.0.0.1:$port/metrics" | grep -v '^#'
echo "== agent log"
cat "$log"
