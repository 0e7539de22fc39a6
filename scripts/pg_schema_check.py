#!/usr/bin/env python3
"""Checks that the PostgreSQL migrations build the same schema as the SQLite ones.

    scripts/pg_schema_check.py postgres://runlens@127.0.0.1:PORT/check1 [--keep]

Applies, in order,
  - server/src/store/migrations/NNNN_*.sql to a temporary SQLite file and
    server/src/logs/migrations/NNNN_*.sql to a second one (python's sqlite3), and
  - server/src/store/migrations/postgres/NNNN_*.sql then
    server/src/logs/migrations/postgres/NNNN_*.sql to a fresh schema of the given
    PostgreSQL database (psql -v ON_ERROR_STOP=1, one transaction; on PostgreSQL the logs
    tables share the store's database),
then compares, table by table: the tables; column names, order, types (INTEGER = bigint,
REAL = double precision, TEXT = text COLLATE "C", BLOB = bytea), nullability and defaults;
rowid-alias ids vs identity columns; primary keys; UNIQUE constraints; foreign keys
(columns, target, ON DELETE / ON UPDATE); CHECK constraints; index names, columns,
uniqueness and partial predicates; triggers (name, table, timing, event). Prints every
difference and exits 1 if there is any, 0 if none, 2 if it could not run.

The schema (runlens_schema_check_<pid>) is dropped at the end unless --keep. Standard library
only; needs the `psql` client on PATH (or $PSQL). `make test` runs it (scripts/test.sh,
the cargo-test-pg step, before the PostgreSQL test suite).

Deliberate differences, accepted here and listed in the output as notes:
  - run_models.seq: PostgreSQL only, last column, GENERATED ALWAYS AS IDENTITY (stands in
    for SQLite's rowid, which the code orders run_models by);
  - log_expiry.job_run_id: a rowid alias on SQLite, but always given explicitly, so a
    plain BIGINT key (no identity) on PostgreSQL;
  - a primary-key column is NOT NULL on PostgreSQL; SQLite lets a rowid table's
    non-INTEGER primary key hold NULL (a legacy quirk), which the code never uses.
  - metric_points' foreign key to metric_series: SQLite only; PostgreSQL keeps the same
    rule with statement-level triggers (PG_FK_AS_TRIGGERS, migration 13), which must exist.
"""

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / "server/src/store/migrations"
LOGS = ROOT / "server/src/logs/migrations"

TYPES = {"INTEGER": "bigint", "REAL": "double precision", "TEXT": "text", "BLOB": "bytea"}
PG_ONLY_COLUMNS = {("run_models", "seq"): "a"}  # (table, column) -> attidentity
NOT_IDENTITY = {("log_expiry", "job_run_id")}  # rowid aliases that stay plain keys
PG_STORAGE = {("log_chunks", "data"): "e"}  # attstorage: e = EXTERNAL
# Foreign keys that PostgreSQL keeps with statement-level triggers instead (migration 13:
# the per-row check was about 40 % of a point's insert there): (table, columns, target) ->
# the PostgreSQL triggers that stand in for it, which must all exist.
PG_FK_AS_TRIGGERS = {
    ("metric_points", ("series_id",), "metric_series"): (
        "metric_points_series_check", "metric_points_series_check_update",
        "metric_series_points_check"),
}
FK_ACTIONS = {"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL",
              "d": "SET DEFAULT"}


def migrations(folder):
    return sorted(p for p in folder.glob("[0-9][0-9][0-9][0-9]_*.sql"))


# ---------------------------------------------------------------------------- normalising

def strip_casts(s):
    # 'x'::text, 0::bigint, 'a'::character varying
    return re.sub(r"::(double precision|character varying|[a-z_0-9]+)(\[\])?", "", s)


def norm_expr(s):
    """A comparable form of a CHECK / index predicate / default, from either engine."""
    if s is None:
        return None
    s = strip_casts(s.strip())
    s = re.sub(r"^CHECK\s*", "", s)
    # PostgreSQL prints `x IN (a, b)` as `x = ANY (ARRAY[a, b])` and BETWEEN as >= AND <=.
    s = re.sub(r"=\s*ANY\s*\(\s*ARRAY\[(.*?)\]\s*\)", r" IN (\1)", s)
    s = re.sub(r"(\w+)\s+BETWEEN\s+(\S+)\s+AND\s+(\S+)", r"\1 >= \2 AND \1 <= \3", s,
               flags=re.I)
    s = s.replace('"', "")
    return re.sub(r"[\s()]+", "", s)


def check_clauses(create_sql):
    """The CHECK (...) expressions of a SQLite CREATE TABLE statement."""
    out = []
    for m in re.finditer(r"\bCHECK\s*\(", create_sql, flags=re.I):
        depth, i = 1, m.end()
        in_str = False
        while depth and i < len(create_sql):
            ch = create_sql[i]
            if ch == "'":
                in_str = not in_str
            elif not in_str and ch == "(":
                depth += 1
            elif not in_str and ch == ")":
                depth -= 1
            i += 1
        out.append(create_sql[m.end():i - 1])
    return out


# ---------------------------------------------------------------------------- SQLite side

def sqlite_schema(db_path, files):
    con = sqlite3.connect(db_path)
    for f in files:
        try:
            con.executescript(f.read_text())
        except sqlite3.Error as e:
            raise SystemExit(f"error: SQLite could not apply {f.relative_to(ROOT)}: {e}")
    con.commit()
    q = lambda sql, *a: con.execute(sql, a).fetchall()  # noqa: E731
    tables = {}
    for name, sql in q("SELECT name, sql FROM sqlite_master WHERE type = 'table' "
                       "AND name NOT LIKE 'sqlite_%' ORDER BY name"):
        info = q(f'PRAGMA table_info("{name}")')
        idx = q(f'PRAGMA index_list("{name}")')  # seq, name, unique, origin, partial
        has_pk_index = any(r[3] == "pk" for r in idx)
        pk = [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]
        cols = []
        for cid, col, typ, notnull, dflt, pkpos in info:
            rowid_alias = (len(pk) == 1 and pkpos == 1 and typ.upper() == "INTEGER"
                           and not has_pk_index)
            cols.append({
                "name": col, "type": typ.upper(), "notnull": bool(notnull),
                "pk": bool(pkpos), "default": dflt, "rowid_alias": rowid_alias,
            })
        uniques, indexes = set(), {}
        for _seq, iname, unique, origin, partial in idx:
            icols = tuple(r[2] for r in q(f'PRAGMA index_info("{iname}")'))
            if origin == "u":
                uniques.add(icols)
            elif origin == "c":
                isql = q("SELECT sql FROM sqlite_master WHERE name = ?", iname)[0][0]
                m = re.search(r"\bWHERE\b(.*)$", isql, flags=re.I | re.S)
                indexes[iname] = {"table": name, "cols": icols, "unique": bool(unique),
                                  "pred": norm_expr(m.group(1)) if partial and m else None}
        fks = {}
        for fid, _seq, ftable, frm, to, on_upd, on_del, _match in q(
                f'PRAGMA foreign_key_list("{name}")'):
            fk = fks.setdefault(fid, {"cols": [], "ftable": ftable, "fcols": [],
                                      "on_delete": on_del, "on_update": on_upd})
            fk["cols"].append(frm)
            fk["fcols"].append(to)
        tables[name] = {
            "cols": cols, "pk": tuple(pk), "uniques": uniques, "indexes": indexes,
            "fks": {fk_key(f) for f in fks.values()},
            "checks": sorted(norm_expr(c) for c in check_clauses(sql)),
            "without_rowid": bool(re.search(r"\)\s*WITHOUT\s+ROWID\s*;?\s*$", sql, re.I)),
        }
    triggers = {}
    for name, table, sql in q("SELECT name, tbl_name, sql FROM sqlite_master "
                              "WHERE type = 'trigger'"):
        triggers[name] = (table, trigger_event(sql))
    con.close()
    return tables, triggers


def fk_key(f):
    return (tuple(f["cols"]), f["ftable"], tuple(f["fcols"]),
            f["on_delete"].upper(), f["on_update"].upper())


def trigger_event(sql):
    m = re.search(r"\b(BEFORE|AFTER|INSTEAD\s+OF)\s+(DELETE|INSERT|UPDATE)\b", sql, re.I)
    if not m:
        return "?"
    row = "FOR EACH ROW"  # SQLite has row triggers only
    if re.search(r"FOR\s+EACH\s+STATEMENT", sql, re.I):
        row = "FOR EACH STATEMENT"
    return f"{m.group(1).upper()} {m.group(2).upper()} {row}"


# ---------------------------------------------------------------------------- PostgreSQL side

def psql_cmd(url, *extra):
    psql = os.environ.get("PSQL") or shutil.which("psql")
    if not psql:
        raise SystemExit("error: psql not found (apt-get install postgresql-client)")
    return [psql, url, "-X", "-q", "-v", "ON_ERROR_STOP=1", *extra]


def psql(url, *args, stdin=None):
    r = subprocess.run(psql_cmd(url, *args), input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(r.stderr.strip() or f"psql exited with {r.returncode}")
    return r.stdout


INTROSPECT = """
SELECT json_build_object(
  'columns', (SELECT json_agg(json_build_object(
        'table', c.relname, 'name', a.attname, 'type', format_type(a.atttypid, a.atttypmod),
        'notnull', a.attnotnull, 'default', pg_get_expr(d.adbin, d.adrelid),
        'identity', a.attidentity, 'collation', co.collname, 'storage', a.attstorage)
        ORDER BY c.relname, a.attnum)
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE n.nspname = '{schema}' AND c.relkind IN ('r', 'p')),
  'tables', (SELECT json_agg(c.relname) FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = '{schema}' AND c.relkind IN ('r', 'p')),
  'constraints', (SELECT json_agg(json_build_object(
        'table', c.relname, 'name', k.conname, 'type', k.contype,
        'cols', (SELECT json_agg(a.attname ORDER BY u.ord)
                 FROM unnest(k.conkey) WITH ORDINALITY u(num, ord)
                 JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.num),
        'ftable', f.relname,
        'fcols', (SELECT json_agg(a.attname ORDER BY u.ord)
                  FROM unnest(k.confkey) WITH ORDINALITY u(num, ord)
                  JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.num),
        'on_delete', k.confdeltype, 'on_update', k.confupdtype,
        'def', pg_get_constraintdef(k.oid)))
      FROM pg_constraint k
      JOIN pg_class c ON c.oid = k.conrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_class f ON f.oid = k.confrelid
      WHERE n.nspname = '{schema}'),
  'indexes', (SELECT json_agg(json_build_object(
        'table', t.relname, 'name', i.relname, 'unique', x.indisunique,
        'cols', (SELECT json_agg(pg_get_indexdef(x.indexrelid, k, true) ORDER BY k)
                 FROM generate_series(1, x.indnkeyatts) k),
        'pred', pg_get_expr(x.indpred, x.indrelid),
        'constraint', EXISTS (SELECT 1 FROM pg_constraint k
                              WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid
                                AND k.contype IN ('p', 'u', 'x'))))
      FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid
      JOIN pg_class t ON t.oid = x.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace
      WHERE n.nspname = '{schema}'),
  'triggers', (SELECT json_agg(json_build_object(
        'table', c.relname, 'name', g.tgname, 'def', pg_get_triggerdef(g.oid)))
      FROM pg_trigger g
      JOIN pg_class c ON c.oid = g.tgrelid
      JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = '{schema}' AND NOT g.tgisinternal)
)
"""


def pg_schema(url, schema, files):
    args = ["-1", "-c", f'CREATE SCHEMA "{schema}"', "-c", f'SET search_path TO "{schema}"']
    for f in files:
        args += ["-f", str(f)]
    try:
        psql(url, *args)
    except RuntimeError as e:
        raise SystemExit(f"error: PostgreSQL could not apply the migrations:\n{e}")
    doc = json.loads(psql(url, "-A", "-t", "-c", INTROSPECT.format(schema=schema)))
    tables = {t: {"cols": [], "pk": (), "uniques": set(), "fks": set(), "checks": [],
                  "indexes": {}} for t in doc["tables"] or []}
    for c in doc["columns"] or []:
        tables[c["table"]]["cols"].append(c)
    for k in doc["constraints"] or []:
        t = tables[k["table"]]
        if k["type"] == "p":
            t["pk"] = tuple(k["cols"])
        elif k["type"] == "u":
            t["uniques"].add(tuple(k["cols"]))
        elif k["type"] == "f":
            t["fks"].add((tuple(k["cols"]), k["ftable"], tuple(k["fcols"]),
                          FK_ACTIONS[k["on_delete"]], FK_ACTIONS[k["on_update"]]))
        elif k["type"] == "c":
            t["checks"].append(norm_expr(k["def"]))
        else:
            t.setdefault("other", []).append(k["def"])
    for t in tables.values():
        t["checks"].sort()
    for i in doc["indexes"] or []:
        if i["constraint"]:
            continue
        tables[i["table"]]["indexes"][i["name"]] = {
            "table": i["table"], "cols": tuple(c.strip('"') for c in i["cols"]),
            "unique": i["unique"], "pred": norm_expr(i["pred"])}
    triggers = {}
    for g in doc["triggers"] or []:
        triggers[g["name"]] = (g["table"], trigger_event(g["def"]))
    return tables, triggers


# ---------------------------------------------------------------------------- comparing

def compare(lite, pg, lite_trg, pg_trg, diffs, notes):
    def diff(msg):
        diffs.append(msg)

    accepted_trg = set()

    for t in sorted(set(lite) - set(pg)):
        diff(f"table {t}: in SQLite only")
    for t in sorted(set(pg) - set(lite)):
        diff(f"table {t}: in PostgreSQL only")
    for name in sorted(set(lite) & set(pg)):
        a, b = lite[name], pg[name]
        pg_cols = list(b["cols"])
        # PostgreSQL-only columns: allowed only as the table's last columns.
        extra = [c for c in pg_cols if (name, c["name"]) in PG_ONLY_COLUMNS]
        for c in extra:
            want = PG_ONLY_COLUMNS[(name, c["name"])]
            if pg_cols[-len(extra):] != extra:
                diff(f"{name}.{c['name']}: PostgreSQL-only column must come last")
            if c["type"] != "bigint" or c["identity"] != want or not c["notnull"]:
                diff(f"{name}.{c['name']}: expected BIGINT GENERATED "
                     f"{'ALWAYS' if want == 'a' else 'BY DEFAULT'} AS IDENTITY")
            notes.append(f"{name}.{c['name']}: PostgreSQL-only identity column (rowid stand-in)")
        for (t, col) in PG_ONLY_COLUMNS:
            if t == name and col not in [c["name"] for c in extra]:
                diff(f"{name}.{col}: PostgreSQL-only column missing")
        pg_cols = [c for c in pg_cols if c not in extra]
        la = [c["name"] for c in a["cols"]]
        lb = [c["name"] for c in pg_cols]
        if la != lb:
            diff(f"{name}: columns differ\n    SQLite:     {', '.join(la)}\n"
                 f"    PostgreSQL: {', '.join(lb)}")
        pgc = {c["name"]: c for c in pg_cols}
        for c in a["cols"]:
            d = pgc.get(c["name"])
            if d is None:
                continue
            where = f"{name}.{c['name']}"
            want = TYPES.get(c["type"])
            if want is None:
                diff(f"{where}: SQLite type {c['type']!r} has no mapping in this check")
            elif d["type"] != want:
                diff(f"{where}: type {d['type']}, expected {want} (SQLite {c['type']})")
            if d["type"] == "text" and d["collation"] != "C":
                diff(f"{where}: text column without COLLATE \"C\" ({d['collation']})")
            notnull = c["notnull"] or c["pk"]
            if notnull != d["notnull"]:
                diff(f"{where}: {'NOT NULL' if notnull else 'nullable'} on SQLite, "
                     f"{'NOT NULL' if d['notnull'] else 'nullable'} on PostgreSQL")
            elif c["pk"] and not c["notnull"] and not c["rowid_alias"] \
                    and not a["without_rowid"]:
                notes.append(f"{where}: primary key, NOT NULL on PostgreSQL (SQLite would "
                             f"accept NULL in this rowid table's key)")
            if c["rowid_alias"] and (name, c["name"]) not in NOT_IDENTITY:
                if d["identity"] != "d":
                    diff(f"{where}: SQLite rowid alias, expected GENERATED BY DEFAULT AS "
                         f"IDENTITY (identity={d['identity']!r})")
            elif d["identity"]:
                diff(f"{where}: identity column on PostgreSQL, not a rowid alias on SQLite")
            if (name, c["name"]) in NOT_IDENTITY and c["rowid_alias"] and not d["identity"]:
                notes.append(f"{where}: SQLite rowid alias kept a plain BIGINT key "
                             f"(always given explicitly)")
            if norm_expr(c["default"]) != norm_expr(d["default"]):
                diff(f"{where}: default {c['default']!r} on SQLite, {d['default']!r} "
                     f"on PostgreSQL")
            st = PG_STORAGE.get((name, c["name"]))
            if st and d["storage"] != st:
                diff(f"{where}: storage {d['storage']!r}, expected {st!r}")
        if a["pk"] != b["pk"]:
            diff(f"{name}: primary key ({', '.join(a['pk'])}) on SQLite, "
                 f"({', '.join(b['pk'])}) on PostgreSQL")
        for u in sorted(a["uniques"] - b["uniques"]):
            diff(f"{name}: UNIQUE ({', '.join(u)}) in SQLite only")
        for u in sorted(b["uniques"] - a["uniques"]):
            diff(f"{name}: UNIQUE ({', '.join(u)}) in PostgreSQL only")
        for f in sorted(a["fks"] - b["fks"]):
            stand_ins = PG_FK_AS_TRIGGERS.get((name, f[0], f[1]))
            if stand_ins and all(g in pg_trg for g in stand_ins):
                notes.append(f"{name}: foreign key {fmt_fk(f)} kept on PostgreSQL by "
                             f"statement triggers {', '.join(stand_ins)}")
                accepted_trg.update(stand_ins)
                continue
            diff(f"{name}: foreign key {fmt_fk(f)} in SQLite only")
        for f in sorted(b["fks"] - a["fks"]):
            diff(f"{name}: foreign key {fmt_fk(f)} in PostgreSQL only")
        if a["checks"] != b["checks"]:
            diff(f"{name}: CHECK constraints differ\n    SQLite:     {a['checks']}\n"
                 f"    PostgreSQL: {b['checks']}")
        for o in b.get("other", []):
            diff(f"{name}: PostgreSQL-only constraint {o}")

    lite_idx = {k: v for t in lite.values() for k, v in t["indexes"].items()}
    pg_idx = {k: v for t in pg.values() for k, v in t["indexes"].items()}
    for i in sorted(set(lite_idx) - set(pg_idx)):
        diff(f"index {i} (on {lite_idx[i]['table']}): in SQLite only")
    for i in sorted(set(pg_idx) - set(lite_idx)):
        diff(f"index {i} (on {pg_idx[i]['table']}): in PostgreSQL only")
    for i in sorted(set(lite_idx) & set(pg_idx)):
        if lite_idx[i] != pg_idx[i]:
            diff(f"index {i} differs\n    SQLite:     {lite_idx[i]}\n"
                 f"    PostgreSQL: {pg_idx[i]}")

    for g in sorted(set(lite_trg) - set(pg_trg)):
        diff(f"trigger {g}: in SQLite only")
    for g in sorted(set(pg_trg) - set(lite_trg) - accepted_trg):
        diff(f"trigger {g}: in PostgreSQL only")
    for g in sorted(set(lite_trg) & set(pg_trg)):
        if lite_trg[g] != pg_trg[g]:
            diff(f"trigger {g}: {lite_trg[g]} on SQLite, {pg_trg[g]} on PostgreSQL")
    return len(lite_idx), len(lite_trg)


def fmt_fk(f):
    cols, ftable, fcols, on_del, on_upd = f
    return (f"({', '.join(cols)}) -> {ftable}({', '.join(fcols)}) "
            f"ON DELETE {on_del} ON UPDATE {on_upd}")


def pair_files(diffs):
    """The PostgreSQL migrations must have the same numbers and names as the SQLite ones."""
    out = []
    for folder in (STORE, LOGS):
        lite = migrations(folder)
        pg = migrations(folder / "postgres")
        ln, pn = [p.name for p in lite], [p.name for p in pg]
        if ln != pn:
            diffs.append(f"{folder.relative_to(ROOT)}: migration files differ\n"
                         f"    SQLite:     {ln}\n    PostgreSQL: {pn}")
        out.append((lite, pg))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("url", nargs="?", default=os.environ.get("RUNLENS_TEST_DATABASE_URL"),
                    help="PostgreSQL URL (default: $RUNLENS_TEST_DATABASE_URL)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the PostgreSQL schema (and print its name)")
    args = ap.parse_args()
    if not args.url:
        ap.error("a PostgreSQL URL is required")

    diffs, notes = [], []
    (store_lite, store_pg), (logs_lite, logs_pg) = pair_files(diffs)
    schema = f"runlens_schema_check_{os.getpid()}"
    try:
        with tempfile.TemporaryDirectory(prefix="pg_schema_check.") as tmp:
            lite, lite_trg = sqlite_schema(os.path.join(tmp, "runlens.db"), store_lite)
            logs, logs_trg = sqlite_schema(os.path.join(tmp, "logs.db"), logs_lite)
        for t in sorted(set(lite) & set(logs)):
            diffs.append(f"table {t}: in both runlens.db and logs.db (they share one "
                         f"PostgreSQL database)")
        lite.update(logs)
        lite_trg.update(logs_trg)
        try:
            psql(args.url, "-A", "-t", "-c", "SELECT 1")
        except RuntimeError as e:
            raise SystemExit(f"error: cannot connect to {args.url}:\n{e}")
        try:
            pg, pg_trg = pg_schema(args.url, schema, store_pg + logs_pg)
            n_idx, n_trg = compare(lite, pg, lite_trg, pg_trg, diffs, notes)
        finally:
            if args.keep:
                print(f"kept schema {schema}", file=sys.stderr)
            else:
                try:
                    psql(args.url, "-c", f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
                except RuntimeError as e:
                    print(f"warning: could not drop schema {schema}: {e}", file=sys.stderr)
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
            sys.exit(2)
        raise

    n_files = len(store_pg) + len(logs_pg)
    n_cols = sum(len(t["cols"]) for t in lite.values())
    for n in notes:
        print(f"note: {n}")
    if diffs:
        for d in diffs:
            print(f"DIFF: {d}")
        print(f"FAILED: {len(diffs)} difference(s) between the SQLite and PostgreSQL "
              f"migrations")
        sys.exit(1)
    print(f"OK: {n_files} PostgreSQL migrations match SQLite: {len(lite)} tables, "
          f"{n_cols} columns, {n_idx} indexes, {n_trg} triggers")


if __name__ == "__main__":
    main()
