#!/usr/bin/env python3
"""Summarise a `make test` run from its step logs.

Usage: summarize.py LOG_DIR

LOG_DIR holds one `<NN>-<step>.log` per step and a `<NN>-<step>.status` with the step's
exit code (written by scripts/test.sh). Test counts are parsed from the logs of
`cargo test` (every `test result:` line), pytest (its final `=== N passed, ... ===` line) and
Playwright (its `N passed` / `N failed` / `N flaky` / `N skipped` lines). Passed, failed and
skipped are counted apart, never one as another:

- cargo: `ignored` is skipped (`filtered out` is not counted: those were not asked for);
- pytest: `skipped` and `xfailed` (an expected failure, a known gap) are skipped, `failed`
  and `error(s)` are failed (a strict XPASS is reported by pytest as failed), `xpassed`
  (a non-strict unexpected pass) is passed; `deselected` is not counted;
- Playwright: `skipped` and `did not run` are skipped, `flaky` and `interrupted` are failed.

A step that failed without any failed test in its log (fmt, clippy, a build, a test binary
that did not compile or a runner that crashed) counts as one failure, so the totals never
hide a red step.

Prints a table per step and, as the very last line, `N passed, N failed` (with
`, N skipped` appended when any test was skipped). Exits 1 if anything failed, else 0.
"""

import re
import sys
from pathlib import Path

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
CARGO = re.compile(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored;")
PYTEST = re.compile(r"^=*\s*(.*?) in [\d.]+s(?: \([^)]*\))?\s*=*$")
PYTEST_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)\b")
PW = re.compile(r"^\s+(\d+) (passed|failed|flaky|interrupted|skipped|did not run)\b", re.M)

# What each runner's word counts as; words not listed (deselected, warnings) are not counted.
PYTEST_KINDS = {"passed": "passed", "xpassed": "passed", "failed": "failed", "error": "failed",
                "errors": "failed", "skipped": "skipped", "xfailed": "skipped"}
PW_KINDS = {"passed": "passed", "failed": "failed", "flaky": "failed", "interrupted": "failed",
            "skipped": "skipped", "did not run": "skipped"}


class Counts:
    """Tests passed, failed and skipped (skipped includes ignored and expected failures)."""

    def __init__(self, passed: int = 0, failed: int = 0, skipped: int = 0):
        self.passed, self.failed, self.skipped = passed, failed, skipped

    def add(self, kind: str, n: int) -> None:
        setattr(self, kind, getattr(self, kind) + n)

    def __str__(self) -> str:
        text = f"{self.passed} passed, {self.failed} failed"
        return f"{text}, {self.skipped} skipped" if self.skipped else text


def count_cargo(text: str) -> Counts:
    c = Counts()
    for p, f, i in CARGO.findall(text):
        c.add("passed", int(p))
        c.add("failed", int(f))
        c.add("skipped", int(i))
    return c


def count_pytest(text: str) -> Counts:
    for line in reversed(text.splitlines()):
        m = PYTEST.match(line.strip())
        if m and re.search(r"\d+ (passed|failed|errors?|skipped|deselected|xfailed|xpassed)\b", m.group(1)):
            c = Counts()
            for n, word in PYTEST_COUNT.findall(m.group(1)):
                if word in PYTEST_KINDS:
                    c.add(PYTEST_KINDS[word], int(n))
            return c
    return Counts()


def count_playwright(text: str) -> Counts:
    c = Counts()
    for n, word in PW.findall(text):
        # A flaky test failed at least once; interrupted ones did not finish.
        c.add(PW_KINDS[word], int(n))
    return c


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
    total = Counts()
    rows = []
    for status_file in sorted(log_dir.glob("*.status")):
        name = status_file.stem
        code = status_file.read_text().strip() or "?"
        log = log_dir / f"{name}.log"
        text = ANSI.sub("", log.read_text(errors="replace")) if log.exists() else ""
        kind = step_kind(name)
        counts = COUNTERS[kind](text) if kind else Counts()
        if code != "0" and counts.failed == 0:
            counts.failed = 1  # the step itself failed (or was skipped because a prerequisite failed)
        total.add("passed", counts.passed)
        total.add("failed", counts.failed)
        total.add("skipped", counts.skipped)
        verdict = "ok" if code == "0" else ("skipped" if code == "skipped" else f"FAILED ({code})")
        rows.append((name, verdict, str(counts) if kind or counts.failed else ""))
    width = max((len(r[0]) for r in rows), default=10)
    print("=" * 72)
    print("Summary")
    print("=" * 72)
    for name, verdict, counts in rows:
        print(f"  {name.ljust(width)}  {verdict.ljust(12)}  {counts}")
    print(total)
    return 1 if total.failed else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(Path(sys.argv[1])))
