#!/usr/bin/env python3
"""Summarise a `make test` run from its step logs.

Usage: summarize.py LOG_DIR

LOG_DIR holds one `<NN>-<step>.log` per step and a `<NN>-<step>.status` with the step's
exit code (written by scripts/test.sh). Test counts are parsed from the logs of
`cargo test` (every `test result:` line), pytest (its final `=== N passed, ... ===` line) and
Playwright (its `N passed` / `N failed` / `N flaky` lines). A step that failed without any
failed test in its log (fmt, clippy, a build, a test binary that did not compile or a
runner that crashed) counts as one failure, so the totals never hide a red step.

Prints a table per step and, as the very last line, `N passed, N failed`.
Exits 1 if anything failed, else 0.
"""

import re
import sys
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
CARGO = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed;")
PYTEST = re.compile(r"^=*\s*(.*?) in [\d.]+s(?: \([^)]*\))?\s*=*$")
PW = re.compile(r"^\s+(\d+) (passed|failed|flaky|interrupted)\b", re.M)


def count_cargo(text: str) -> tuple[int, int]:
    passed = failed = 0
    for p, f in CARGO.findall(text):
        passed += int(p)
        failed += int(f)
    return passed, failed


def count_pytest(text: str) -> tuple[int, int]:
    for line in reversed(text.splitlines()):
        m = PYTEST.match(line.strip())
        if m and re.search(r"\d+ (passed|failed|error|errors|skipped|deselected)", m.group(1)):
            parts = dict((k, int(n)) for n, k in re.findall(r"(\d+) (\w+)", m.group(1)))
            failed = parts.get("failed", 0) + parts.get("error", 0) + parts.get("errors", 0)
            return parts.get("passed", 0), failed
    return 0, 0


def count_playwright(text: str) -> tuple[int, int]:
    passed = failed = 0
    for n, kind in PW.findall(text):
        if kind == "passed":
            passed += int(n)
        else:
            # A flaky test failed at least once; interrupted ones did not finish.
            failed += int(n)
    return passed, failed


COUNTERS = {"cargo": count_cargo, "pytest": count_pytest, "playwright": count_playwright}


def step_kind(name: str) -> str | None:
    if "cargo-test" in name or "wasm-test" in name:
        return "cargo"
    if "conformance" in name:
        return "pytest"
    if "e2e" in name:
        return "playwright"
    return None


def main(log_dir: Path) -> int:
    total_passed = total_failed = 0
    rows = []
    for status_file in sorted(log_dir.glob("*.status")):
        name = status_file.stem
        code = status_file.read_text().strip() or "?"
        log = log_dir / f"{name}.log"
        text = ANSI.sub("", log.read_text(errors="replace")) if log.exists() else ""
        kind = step_kind(name)
        passed, failed = COUNTERS[kind](text) if kind else (0, 0)
        if code != "0" and failed == 0:
            failed = 1  # the step itself failed (or was skipped because a prerequisite failed)
        total_passed += passed
        total_failed += failed
        verdict = "ok" if code == "0" else ("skipped" if code == "skipped" else f"FAILED ({code})")
        counts = f"{passed} passed, {failed} failed" if kind or failed else ""
        rows.append((name, verdict, counts))
    width = max((len(r[0]) for r in rows), default=10)
    print("=" * 72)
    print("Summary")
    print("=" * 72)
    for name, verdict, counts in rows:
        print(f"  {name.ljust(width)}  {verdict.ljust(12)}  {counts}")
    print(f"{total_passed} passed, {total_failed} failed")
    return 1 if total_failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
