#!/usr/bin/env python3
"""Finds import loops between the modules of a Rust crate (issue 6: "no import loops").

A module is a source file (`foo.rs` or `foo/mod.rs` is module `foo`). An edge A -> B means a
`use` in A names B (or something inside B) through `crate::`, `super::` or `self::`.
Parents reaching into their own children (`mod` declarations, `pub use child::X`) and
children naming their parent's items are both ordinary, so edges between a module and
its own ancestors/descendants are ignored; what is reported is a cycle among siblings or
cousins, e.g. `mlflow::request -> mlflow::policy -> mlflow::permissions -> mlflow::request`.

Usage: scripts/module_cycles.py CRATE_SRC_DIR [CRATE_SRC_DIR...]   (exit 1 on a cycle)
"""
import re
import sys
from pathlib import Path

USE_STMT = re.compile(r"\buse\s+([^;]+);")
PATH = re.compile(r"\b((?:crate|super)(?:::[A-Za-z_][A-Za-z0-9_]*)+)")


def expand(tree: str) -> list:
    """`a::{b, c::{d, e}}` -> [`a::b`, `a::c::d`, `a::c::e`]."""
    tree = re.sub(r"\s+", "", tree)
    if "{" not in tree:
        return [tree]
    head, _, rest = tree.partition("{")
    inner = rest[: rest.rfind("}")]
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += ch == "{"
        depth -= ch == "}"
        cur += ch
    parts.append(cur)
    out = []
    for p in filter(None, parts):
        for e in expand(p):
            out.append(head + e if e != "self" else head.rstrip(":"))
    return out


def module_of(src: Path, f: Path) -> tuple:
    parts = list(f.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib", "main"):
        parts = parts[:-1]
    return tuple(parts)


def resolve(cur: tuple, path: str) -> tuple:
    segs = path.split("::")
    if segs[0] == "crate":
        base, segs = (), segs[1:]
    else:
        base = cur
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                base = base[:-1]
            segs = segs[1:]
    return base + tuple(segs)


def main(dirs):
    bad = False
    for d in dirs:
        src = Path(d)
        files = [f for f in src.rglob("*.rs")]
        # Test modules (`tests.rs`, `*_tests.rs`, `tests/`) may use anything.
        mods = {
            module_of(src, f): f
            for f in files
            if not any(p == "tests" or p.endswith("_tests") for p in module_of(src, f))
        }
        graph = {m: set() for m in mods}
        for m, f in mods.items():
            # Comments (incl. doc links like [`super::x::Y`]) are not imports.
            text = re.sub(r"//[^\n]*", "", f.read_text())
            # Drop test modules: `#[cfg(test)] mod tests { ... }` may use anything.
            text = re.split(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)[0]
            paths = PATH.findall(USE_STMT.sub("", text))
            for stmt in USE_STMT.findall(text):
                paths += [p for p in expand(stmt) if p.split("::")[0] in ("crate", "super", "self")]
            for use in paths:
                # `super` is relative to the module itself; for a file module, its parent.
                target = resolve(m, use)
                # Longest known module prefix of the target.
                while target and target not in mods:
                    target = target[:-1]
                if not target or target == m:
                    continue
                if target[: len(m)] == m or m[: len(target)] == target:
                    continue  # ancestor / descendant
                graph[m].add(target)
        # Also the graph of the crate's top-level modules (layers such as store, auth,
        # permissions, tracking must not depend on each other in a circle either).
        top = {}
        for m, targets in graph.items():
            if not m:
                continue
            for t in targets:
                if t and t[0] != m[0]:
                    top.setdefault((m[0],), set()).add((t[0],))
        for m in list(top):
            for t in top[m]:
                top.setdefault(t, set())
        for name, g in (("modules", graph), ("top-level modules", top)):
            bad |= report(d, name, g)
    return 1 if bad else 0


def report(d, what, graph):
    if True:
        # Tarjan's strongly connected components.
        index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in graph[v]:
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    sccs.append(comp)

        sys.setrecursionlimit(10000)
        for v in graph:
            if v not in index:
                visit(v)
        for comp in sccs:
            names = sorted("::".join(c) or "<root>" for c in comp)
            print(f"{d}: import loop among {what}: {', '.join(names)}")
        if not sccs:
            print(f"{d}: no import loops among {len(graph)} {what}")
        return bool(sccs)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["server/src", "app/src", "api-types/src", "agent/src"]))
