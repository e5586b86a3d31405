#!/usr/bin/env python3
"""Layers point down only: app -> sinks -> table toolkit -> runtime -> data model -> SDK core,
app -> sources -> runtime -> data model -> SDK core, and the database layer beside them on the core.

Every quoted #include of a production file must resolve inside what its layer may see:
  sdk/    the connector contract: its own include/ and src/ (names no data model, runtime,
          toolkit or sink header)
  data/   its own include/ and src/, and the core's public headers (sdk/include), never the
          runtime nor the toolkit
  runtime/  its own include/ and src/, the data model's and the core's public headers; inside
          src/, each role sees only the roles below it: task -> kafka -> sink, source -> worker
          (task the floor, worker the roof; sink and source never see each other)
  db/     the database layer: db/include (DbFailure, identifiers) and, per database, db/<name>/
          (its own include/ and src/, db/include and the core's public headers) — no data model,
          toolkit, sink or source
  table/  its own include/ and src/, the runtime's, the data model's and the core's public
          headers and the database layer's common header (db/include), never their internals
  sinks/<name>/  its own include/ and src/, the toolkit's, the runtime's, the data model's and
          the core's public headers, the database layer's; no other sink, no internals of the
          SDK's libraries
  sources/<name>/  its own include/ and src/, the runtime's, the data model's, the database
          layer's and the core's public headers; no toolkit, no sink, no other source, no internals of the SDK's
          libraries
Usage: layers_test.py <source dir>; prints each offending include and exits 1.
"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1]).resolve()
core_public = [root / "sdk/include"]
data_public = [root / "data/include"]
runtime_public = [root / "runtime/include"]
table_public = [root / "table/include"]
db_common = [root / "db/include"]
db_public = db_common + [d / "include" for d in sorted((root / "db").iterdir())
                         if (d / "include").is_dir() and d.name != "include"]
runtime_roles = ("task", "kafka", "sink", "source", "worker")
# What each of the runtime's roles may see of the others (its own folder included).
runtime_below = {"task": ("task",), "kafka": ("task", "kafka"),
                 "sink": ("task", "kafka", "sink"), "source": ("task", "kafka", "source"),
                 "worker": runtime_roles}
allowed = {
    "sdk": core_public + [root / "sdk/src"],
    "data": data_public + core_public + [root / "data/src"],
    "runtime/include": runtime_public + data_public + core_public,
    "table": table_public + db_common + runtime_public + data_public + core_public +
             [root / "table/src"],
    "db/src": db_common + [root / "db/src"],
}
for role in runtime_roles:
    allowed[f"runtime/src/{role}"] = (runtime_public + data_public + core_public +
                                      [root / "runtime/src" / r for r in runtime_below[role]])
for db in (root / "db").iterdir():
    if db.is_dir() and db.name not in ("include", "src"):
        allowed[f"db/{db.name}"] = [db / "include", db / "src"] + db_common + core_public
allowed["testkit"] = ([root / "testkit/include", root / "testkit/src", root / "runtime/src/kafka"] +
                      runtime_public + data_public + core_public)
for sink in (root / "sinks").iterdir():
    if sink.is_dir():
        allowed[f"sinks/{sink.name}"] = ([sink / "include", sink / "src"] + table_public +
                                         db_public + runtime_public + data_public + core_public)

for source in (root / "sources").iterdir():
    if source.is_dir():
        allowed[f"sources/{source.name}"] = ([source / "include", source / "src"] + db_public +
                                             runtime_public + data_public + core_public)

include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
problems = []
for layer, dirs in allowed.items():
    for path in sorted((root / layer).rglob("*")):
        if path.suffix not in (".h", ".cpp"):
            continue
        for name in include.findall(path.read_text()):
            here = path.parent / name  # relative to the including file
            if here.exists() and any(d in here.resolve().parents for d in dirs):
                continue
            if any((d / name).exists() for d in dirs):
                continue
            problems.append(f"{path.relative_to(root)}: #include \"{name}\" is outside what "
                            f"{layer}/ may include")
print("\n".join(problems) if problems else f"layers ok: {', '.join(allowed)}")
sys.exit(1 if problems else 0)
