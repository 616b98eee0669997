"""The package's import graph, read from its source: parts, arrows between them, the floor each
part stands on, circles of files and of parts, and how many imports sit inside functions.

    python tools/import_graph.py [--root DIR] [--json]

A part is a top-level module or subpackage of ``lmms_comparative`` (``benchmarks`` is one part, all
its folders together). An arrow A -> B: some file of A imports some file of B, at module level or
inside a function (both count: a function-level import is still a dependency, only a later one).
A part's floor is one above the highest part it imports (floor 1 imports no other part). An arrow
runs back up when it closes a circle of parts.

A lookup by name is an arrow too: ``importlib.import_module("lmms_comparative.x")`` to that module;
an ``import_module`` whose name is built at run time, in a file that names the benchmarks' package,
to every benchmark's record (``benchmarks/<name>/__init__.py``), in a package's ``__init__.py`` from
its own ``__name__``, to every module of the package (a face that loads them on first use);
``benchmark.part("report", ...)`` or ``.optional("report", ...)`` (the registry's lookups before the
parts were typed) to every benchmark's module of that name. ``--no-lookups`` leaves them out (imports only).

The three layers (docs/adding-a-benchmark.md): the kit, which benchmarks import and which never
calls a benchmark (``KIT`` below); the benchmarks; the drivers, which call benchmarks (everything
else: the registry, CLI, report, verify, export, rescoring, preflight, harness, models). An arrow
that runs up a layer (kit to benchmark or driver, benchmark to driver) is listed. Exit 1 when there
is a circle of files or of parts, or an arrow up a layer. Standard library only, so it also runs on
an old checkout for a before-and-after.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = "lmms_comparative"
BENCHMARKS = f"{PACKAGE}.benchmarks"
# The kit: modules and folders that benchmarks import and that never call a benchmark.
KIT = ("data", "judges", "metrics", "tasklib", "reportlib", "record", "failures", "switches", "provenance", "subsets")
# Modules of the benchmarks' folder that are drivers (they call every benchmark).
DRIVERS_IN_BENCHMARKS = (f"{BENCHMARKS}.contract", f"{BENCHMARKS}.contract_parts", f"{BENCHMARKS}.generate")


def layer(module: str) -> int:
    """0 the kit, 1 a benchmark, 2 a driver; the package face (``lmms_comparative``) counts as the kit."""
    if module == PACKAGE or any(module == f"{PACKAGE}.{k}" or module.startswith(f"{PACKAGE}.{k}.") for k in KIT):
        return 0
    if module.startswith(BENCHMARKS + ".") and not any(module == d for d in DRIVERS_IN_BENCHMARKS):
        return 1
    return 2


def modules(root: Path) -> dict[str, Path]:
    """Module name -> file, for every ``.py`` of the package under ``root``."""
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _targets(name: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: dict) -> list[str]:
    """The package modules an import statement in module ``name`` loads (the deepest known one)."""
    if isinstance(node, ast.Import):
        wanted = [alias.name for alias in node.names]
    else:
        if node.level:
            base = name.split(".") if is_package else name.split(".")[:-1]
            base = base[: len(base) - (node.level - 1)]
            module = ".".join(base + ([node.module] if node.module else []))
        else:
            module = node.module or ""
        wanted = [f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module for alias in node.names]
    out = []
    for target in wanted:
        if not (target == PACKAGE or target.startswith(PACKAGE + ".")):
            continue
        while target not in known and "." in target:
            target = target.rsplit(".", 1)[0]
        if target != name:
            out.append(target)
    return out


def imports(known: dict[str, Path]) -> tuple[dict[str, set[str]], int, int]:
    """File-level arrows (module -> modules it imports) among the ``known`` modules (``modules``),
    and the counts of package imports made at module level and inside a function or method."""
    arrows: dict[str, set[str]] = defaultdict(set)
    top = inside = 0
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        in_function: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                in_function.update(id(child) for child in ast.walk(node) if child is not node)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets = _targets(name, path.name == "__init__.py", node, known)
                if not targets:
                    continue
                arrows[name].update(targets)
                if id(node) in in_function:
                    inside += 1
                else:
                    top += 1
    return arrows, top, inside


def _benchmark_records(known: dict[str, Path]) -> list[str]:
    return [m for m in known if m.startswith(BENCHMARKS + ".") and m.count(".") == 2 and known[m].name == "__init__.py"]


def lookups(known: dict[str, Path]) -> dict[str, set[str]]:
    """File-level arrows made by name, not by an import statement (the module docstring says which)."""
    arrows: dict[str, set[str]] = defaultdict(set)
    records = _benchmark_records(known)
    for name, path in known.items():
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text, filename=str(path))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            first = node.args[0]
            if called == "import_module":
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    target = first.value
                    while target not in known and "." in target:
                        target = target.rsplit(".", 1)[0]
                    if target in known and target != name:
                        arrows[name].add(target)
                elif "BENCHMARKS_PACKAGE" in text or BENCHMARKS in text:
                    arrows[name].update(r for r in records if r != name)
                elif path.name == "__init__.py" and any(
                    isinstance(n, ast.Name) and n.id == "__name__" for n in ast.walk(first)
                ):
                    arrows[name].update(
                        m for m in known if m.startswith(name + ".")
                    )  # a package face that loads its modules on first use
            elif (
                called in ("part", "optional")
                and isinstance(func, ast.Attribute)
                and isinstance(first, ast.Constant)
                and isinstance(first.value, str)
            ):
                arrows[name].update(
                    f"{r}.{first.value}"
                    for r in records
                    if f"{r}.{first.value}" in known and f"{r}.{first.value}" != name
                )
    return arrows


def part_of(module: str) -> str:
    if module in DRIVERS_IN_BENCHMARKS:
        return "contract"  # a driver that lives beside the benchmarks
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(package face)"


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    counter = 0
    nodes = sorted(set(graph) | {t for ts in graph.values() for t in ts})
    for start in nodes:
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def floors(graph: dict[str, set[str]], nodes: set[str]) -> dict[str, int]:
    """Floor of each node of an acyclic graph (nodes in a circle share the circle's floor)."""
    result: dict[str, int] = {}

    def floor(node: str, seen: frozenset) -> int:
        if node in result:
            return result[node]
        below = [floor(t, seen | {node}) for t in graph.get(node, ()) if t not in seen and t != node]
        result[node] = 1 + max(below, default=0)
        return result[node]

    for node in sorted(nodes):
        floor(node, frozenset())
    return result


def measure(root: Path, with_lookups: bool = True) -> dict:
    known = modules(root)
    arrows, top, inside = imports(known)
    by_name = lookups(known) if with_lookups else {}
    for source, targets in by_name.items():
        arrows[source] = arrows.get(source, set()) | targets
    up = sorted(f"{s} -> {t}" for s, ts in arrows.items() for t in ts if layer(t) > layer(s))
    parts: dict[str, set[str]] = defaultdict(set)
    why: dict[tuple[str, str], list[str]] = defaultdict(list)
    for source, targets in arrows.items():
        for target in targets:
            a, b = part_of(source), part_of(target)
            if a != b and "(package face)" not in (a, b):
                parts[a].add(b)
                why[(a, b)].append(f"{source} -> {target}")
    names = {part_of(m) for m in known} - {"(package face)"}
    part_circles = circles(parts)
    in_circle = {p: i for i, c in enumerate(part_circles) for p in c}
    back_up = sorted(
        f"{a} -> {b}: {', '.join(why[(a, b)])}"
        for a, targets in parts.items()
        for b in targets
        if a in in_circle and in_circle.get(b) == in_circle[a]
    )
    return {
        "files": len(known),
        "parts": len(names),
        "arrows between parts": sum(len(t) for t in parts.values()),
        "imports at module level": top,
        "imports inside functions": inside,
        "lookups by name": sum(len(t) for t in by_name.values()),
        # Besides the benchmark packages (their records) and the kit (the record's type): none.
        "files the registry imports": sorted(
            t for t in arrows.get(f"{PACKAGE}.registry", ()) if t not in _benchmark_records(known) and layer(t) != 0
        ),
        "arrows up a layer": up,
        "circles of files": circles(arrows),
        "circles of parts": part_circles,
        "arrows that close a circle of parts": back_up,
        "floors": dict(sorted(floors(parts, names).items(), key=lambda kv: (-kv[1], kv[0]))),
        "part arrows": {a: sorted(ts) for a, ts in sorted(parts.items())},
    }


def _node(part: str) -> str:
    return "p_" + part.strip("_")


def mermaid(found: dict) -> str:
    """The parts as a Mermaid flowchart, bottom to top in three boxes (the kit, the benchmarks, the
    drivers), each arrow one part importing another; an arrow implied by a longer path is left out
    (the transitive reduction), so what is drawn is what a part stands on directly."""
    arrows = {a: set(ts) for a, ts in found["part arrows"].items()}

    def reaches(start: str, goal: str, skip: tuple[str, str]) -> bool:
        seen, stack = set(), [start]
        while stack:
            node = stack.pop()
            for nxt in arrows.get(node, ()):
                if (node, nxt) == skip or nxt in seen:
                    continue
                if nxt == goal:
                    return True
                seen.add(nxt)
                stack.append(nxt)
        return False

    kept = sorted((a, b) for a, ts in arrows.items() for b in ts if not reaches(a, b, (a, b)))
    parts = sorted(found["floors"])
    boxes = {0: "kit", 1: "benchmarks", 2: "drivers"}
    lines = ["flowchart BT"]
    for level, title in boxes.items():
        members = [
            p for p in parts if layer(f"{PACKAGE}.{p}" if p != "contract" else DRIVERS_IN_BENCHMARKS[0]) == level
        ]
        members = ["benchmarks"] if level == 1 else [p for p in members if p != "benchmarks"]
        lines.append(f"  subgraph {title}")
        lines += [f"    {_node(p)}[{p}]" for p in members]
        lines.append("  end")
    lines += [f"  {_node(a)} --> {_node(b)}" for a, b in kept]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root",
        type=Path,
        default=Path(__file__).resolve().parents[1],
        help="the checkout to read (default: this one)",
    )
    parser.add_argument("--json", action="store_true", help="print the whole measure as JSON")
    parser.add_argument("--mermaid", action="store_true", help="print the parts as a Mermaid flowchart")
    parser.add_argument("--no-lookups", action="store_true", help="count import statements only, not lookups by name")
    args = parser.parse_args(argv)
    found = measure(args.root, with_lookups=not args.no_lookups)
    if args.mermaid:
        print(mermaid(found), end="")
    elif args.json:
        print(json.dumps(found, indent=1))
    else:
        for key in (
            "files",
            "parts",
            "arrows between parts",
            "imports at module level",
            "imports inside functions",
            "lookups by name",
        ):
            print(f"{key}: {found[key]}")
        print(f"files the registry imports: {len(found['files the registry imports'])}")
        print(f"arrows up a layer: {len(found['arrows up a layer'])}")
        for arrow in found["arrows up a layer"]:
            print("  " + arrow)
        print(
            f"circles of files: {len(found['circles of files'])} "
            f"({sum(len(c) for c in found['circles of files'])} files)"
        )
        for circle in found["circles of files"]:
            print("  " + " <-> ".join(circle))
        print(
            f"circles of parts: {len(found['circles of parts'])}; arrows that close one: "
            f"{len(found['arrows that close a circle of parts'])}"
        )
        for arrow in found["arrows that close a circle of parts"]:
            print("  " + arrow)
        for part, floor in found["floors"].items():
            print(f"  floor {floor:2d}  {part}")
    return 1 if found["circles of files"] or found["circles of parts"] or found["arrows up a layer"] else 0


if __name__ == "__main__":
    sys.exit(main())
