"""The package's import graph, read from its source: parts, arrows between them, the floor each
part stands on, circles of files and of parts, and how many imports sit inside functions.

    python tools/import_graph.py [--root DIR] [--json]

A part is a top-level module or subpackage of ``lmms_comparative`` (``benchmarks`` is one part, all
its folders together). An arrow A -> B: some file of A imports some file of B, at module level or
inside a function (both count: a function-level import is still a dependency, only a later one).
A part's floor is one above the highest part it imports (floor 1 imports no other part). An arrow
runs back up when it closes a circle of parts. Exit 1 when there is a circle of files or of parts:
the registry is the ground floor and everything imports downward (docs/adding-a-benchmark.md).
Standard library only, so it also runs on an old checkout for a before-and-after.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import defaultdict
from pathlib import Path

PACKAGE = "lmms_comparative"


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


def part_of(module: str) -> str:
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


def measure(root: Path) -> dict:
    known = modules(root)
    arrows, top, inside = imports(known)
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
    back_up = sorted(f"{a} -> {b}: {', '.join(why[(a, b)])}" for a, targets in parts.items() for b in targets if a in in_circle and in_circle.get(b) == in_circle[a])
    return {
        "files": len(known),
        "parts": len(names),
        "arrows between parts": sum(len(t) for t in parts.values()),
        "imports at module level": top,
        "imports inside functions": inside,
        "circles of files": circles(arrows),
        "circles of parts": part_circles,
        "arrows that close a circle of parts": back_up,
        "floors": dict(sorted(floors(parts, names).items(), key=lambda kv: (-kv[1], kv[0]))),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1], help="the checkout to read (default: this one)")
    parser.add_argument("--json", action="store_true", help="print the whole measure as JSON")
    args = parser.parse_args(argv)
    found = measure(args.root)
    if args.json:
        print(json.dumps(found, indent=1))
    else:
        for key in ("files", "parts", "arrows between parts", "imports at module level", "imports inside functions"):
            print(f"{key}: {found[key]}")
        print(f"circles of files: {len(found['circles of files'])} ({sum(len(c) for c in found['circles of files'])} files)")
        for circle in found["circles of files"]:
            print("  " + " <-> ".join(circle))
        print(f"circles of parts: {len(found['circles of parts'])}; arrows that close one: {len(found['arrows that close a circle of parts'])}")
        for arrow in found["arrows that close a circle of parts"]:
            print("  " + arrow)
        for part, floor in found["floors"].items():
            print(f"  floor {floor:2d}  {part}")
    return 1 if found["circles of files"] or found["circles of parts"] else 0


if __name__ == "__main__":
    sys.exit(main())
