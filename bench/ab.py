"""Two builds side by side, round by round: the command-line options of an A/B script
(`--before`, `--binary`, their names, `--dist`, `--rounds`, `--no-write`), the rounds
themselves, each build in turn with the order alternating (so both builds see the same
stretch of machine load within a round), and the server's CPU time from /proc."""

import argparse
import json
import os
import time
from pathlib import Path
from typing import Callable

import docsection
from servers import ROOT


def cpu_ms(pid: int) -> float:
    """CPU time (user + system) the process has used, in ms, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def add_args(p: argparse.ArgumentParser, rounds: int) -> None:
    """The options of the two builds (`--before`, `--binary` and their names), `--dist`,
    `--rounds` (default `rounds`) and `--no-write`."""
    p.add_argument("--before", type=Path, required=True, help="the older build")
    p.add_argument("--before-name", default="before")
    p.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "runlens")
    p.add_argument("--binary-name", default="now")
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--rounds", type=int, default=rounds)
    p.add_argument("--no-write", action="store_true")


def run(args: argparse.Namespace, measure: Callable[[Path, Path], dict],
        say: Callable[[int, str, dict], str], **settings) -> dict:
    """`args.rounds` rounds of `measure(binary, dist)` for each build in turn, the order
    alternating (before first in odd rounds, now first in even ones); `say(round, build,
    result)` is printed after each. Returns the results: `date`, the `settings`, `rounds`,
    `load`, `builds` (name: binary), `rounds_data` (name: each round's result) and
    `load_after`."""
    builds = {args.before_name: args.before.resolve(), args.binary_name: args.binary.resolve()}
    res = {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), **settings, "rounds": args.rounds,
           "load": os.getloadavg(), "builds": {k: str(v) for k, v in builds.items()},
           "rounds_data": {k: [] for k in builds}}
    names = list(builds)
    for i in range(args.rounds):
        for name in (names if i % 2 == 0 else names[::-1]):
            r = measure(builds[name], args.dist.resolve())
            res["rounds_data"][name].append(r)
            print(say(i + 1, name, r), flush=True)
    res["load_after"] = os.getloadavg()
    return res


def publish(args: argparse.Namespace, res: dict, results: Path, render: Callable[[dict], str], doc: Path,
            section: str) -> None:
    """Writes `res` to the file `results`, prints `render(res)` and, unless `--no-write`, puts
    it in place of the section `section` of `doc`."""
    results.write_text(json.dumps(res, indent=1) + "\n")
    text = render(res)
    print(text)
    if not args.no_write:
        docsection.write_section(doc, section, text)
