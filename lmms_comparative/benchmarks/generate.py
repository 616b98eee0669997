"""Writes each benchmark's task YAMLs from its source, ``benchmarks/<name>/tasks.py`` (``SOURCE``,
built with ``lmms_comparative.tasklib.yamlgen``), and the README's task table from the registered
benchmarks' sources. The YAMLs stay committed: lmms-eval and users read them.

    python -m lmms_comparative.benchmarks.generate             # every benchmark folder, and the README table
    python -m lmms_comparative.benchmarks.generate subtlebench # one, by its folder's name
    python -m lmms_comparative.benchmarks.generate tests/contract/toymcq   # a folder elsewhere (the guide's toys)
    python -m lmms_comparative.benchmarks.generate --check     # write nothing; exit 1 naming what would change

Every file written starts with a line saying where it comes from. A YAML in a ``yaml/`` folder that
the source does not produce (written by hand, or left by an older source) is removed on a write and
named by ``--check``; a folder with YAMLs and no ``tasks.py`` is an error (nothing is removed there).
A developer's and CI's tool: nothing on lmms-eval's start path imports it.
"""

from __future__ import annotations

import argparse
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from lmms_comparative.data import untrusted
from lmms_comparative.tasklib.yamlgen import Source, render

PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the package (a clone's root)
FOLDER = Path(__file__).resolve().parent
COMMAND = "python -m lmms_comparative.benchmarks.generate"
README = PACKAGE_ROOT / "README.md"
TABLE_START = "<!-- generated from benchmarks/*/tasks.py: " + COMMAND + " -->"
TABLE_END = "<!-- end of the generated table -->"


class GenerateError(Exception):
    """A folder whose files cannot be generated (no ``tasks.py``, no ``SOURCE``): one line."""


@dataclass
class Plan:
    """What a write would do in one place: the files to write (their new text) and to remove."""

    where: str
    write: dict[Path, str] = field(default_factory=dict)
    remove: list[Path] = field(default_factory=list)

    def lines(self) -> list[str]:
        """One line per file, for ``--check``."""
        return [f"{_shown(p)}: differs from what {self.where} generates" for p in self.write] + [
            f"{_shown(p)}: not produced by {self.where} (written by hand, or no longer generated)" for p in self.remove
        ]


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(PACKAGE_ROOT))
    except ValueError:
        return str(path)


def is_task_yaml(path: Path) -> bool:
    """A file lmms-eval reads as a task, group or template: ``*.yaml`` or ``_*_yaml``."""
    return path.is_file() and (path.suffix == ".yaml" or (path.name.startswith("_") and path.name.endswith("_yaml")))


def folders(targets: list[str] | None = None) -> list[Path]:
    """The benchmark folders named (a folder name under benchmarks/, or a path), or with none every
    folder under benchmarks/ that has a ``yaml/`` folder or a ``tasks.py``."""
    if not targets:
        return sorted(
            d for d in FOLDER.iterdir() if d.is_dir() and ((d / "yaml").is_dir() or (d / "tasks.py").is_file())
        )
    out = []
    for target in targets:
        folder = (
            FOLDER / target
            if re.fullmatch(r"[a-z0-9]+", target) and (FOLDER / target).is_dir()
            else Path(target).resolve()
        )
        if not folder.is_dir():
            raise GenerateError(
                f"{target}: no benchmark folder of that name under {_shown(FOLDER)}, and no such folder"
            )
        out.append(folder)
    return out


def load_source(folder: Path) -> Source:
    """The folder's ``tasks.py`` ``SOURCE``, loaded from its file (its imports are absolute)."""
    path = folder / "tasks.py"
    if not path.is_file():
        raise GenerateError(
            f"{_shown(folder)}: no tasks.py, the source its yaml/ folder is generated from (docs/adding-a-benchmark.md)"
        )
    _importable(folder)
    spec = importlib.util.spec_from_file_location(f"_task_source_{folder.name}", path)
    assert spec is not None and spec.loader is not None  # a .py file always has a spec with a loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    source = getattr(module, "SOURCE", None)
    if not isinstance(source, Source):
        raise GenerateError(f"{_shown(path)}: defines no SOURCE = Source(...)")
    return source


def _importable(folder: Path) -> None:
    """A folder outside the package (the guide's toys) made importable under the name it will have
    there, ``lmms_comparative.benchmarks.<folder>``: its ``tasks.py`` names its hooks by importing
    them, and the YAMLs name them by that path."""
    package = f"{__package__}.{folder.name}"
    init = folder / "__init__.py"
    if folder.resolve().parent == FOLDER.resolve() or package in sys.modules or not init.is_file():
        return
    spec = importlib.util.spec_from_file_location(package, init, submodule_search_locations=[str(folder)])
    if spec is None or spec.loader is None:
        raise GenerateError(f"{_shown(init)}: cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)


def _target(folder: Path) -> str:
    """How the command names the folder: its name under benchmarks/, else its path."""
    return folder.name if folder.parent == FOLDER else _shown(folder)


def header(folder: Path) -> str:
    """The first line of every generated file of the folder (without ``# ``; the prompt hash leaves
    it out: ``provenance.GENERATED_LINE``)."""
    return f"Generated from {_shown(folder / 'tasks.py')}: edit that, then run {COMMAND} {_target(folder)}"


def expected(folder: Path, source: Source | None = None) -> dict[str, str]:
    """{file name in yaml/: its text} as the folder's source generates them."""
    source = source or load_source(folder)
    line = header(folder)
    return {name: render(spec, line) for name, spec in source.by_file().items()}


def plan(folder: Path) -> Plan:
    """What writing the folder's yaml/ would change."""
    files = expected(folder)
    yaml_dir = folder / "yaml"
    out = Plan(_shown(folder / "tasks.py"))
    for name, text in sorted(files.items()):
        path = yaml_dir / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            out.write[path] = text
    out.remove = sorted(
        p for p in (yaml_dir.iterdir() if yaml_dir.is_dir() else ()) if is_task_yaml(p) and p.name not in files
    )
    return out


def readme_table(rows: list[tuple[str, str, str]]) -> str:
    """The README's task table: one row per (name, title, cell), between its markers."""
    body = [f"| [{title}](lmms_comparative/benchmarks/{name}/README.md) | {cell} |" for name, title, cell in rows]
    return "\n".join([TABLE_START, "| benchmark | tasks and groups |", "|---|---|", *body, TABLE_END])


def readme_plan(readme: Path = README) -> Plan:
    """What writing the README's task table would change (nothing where the README or its markers
    are absent: an installed package has no README)."""
    out = Plan("the registered benchmarks' tasks.py")
    if not readme.is_file():
        return out
    from lmms_comparative.record import FOLDER as BENCHMARK_FOLDER
    from lmms_comparative.registry import BENCHMARKS

    text = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(TABLE_START) + r".*?" + re.escape(TABLE_END), re.S)
    if not pattern.search(text):
        raise GenerateError(f"{_shown(readme)}: no task table between {TABLE_START} and {TABLE_END}")
    rows = [(b.name, b.title, load_source(BENCHMARK_FOLDER / b.name).readme) for b in BENCHMARKS]
    new = pattern.sub(lambda _: readme_table(rows), text, count=1)
    if new != text:
        out.write[readme] = new
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=COMMAND, description="Write the task YAMLs (and the README's task table) from each benchmark's tasks.py."
    )
    parser.add_argument(
        "targets", nargs="*", help="benchmark folder names or folder paths (default: every folder under benchmarks/)"
    )
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 naming every file that would change or be removed"
    )
    args = parser.parse_args(argv)
    plans, errors = [], []
    try:
        targets = folders(args.targets)
    except GenerateError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for folder in targets:
        try:
            plans.append(plan(folder))
        except GenerateError as exc:
            errors.append(str(exc))
    try:
        plans.append(readme_plan())
    except GenerateError as exc:
        errors.append(str(exc))
    for line in errors:
        print(f"error: {line}", file=sys.stderr)
    changes = [p for p in plans if p.write or p.remove]
    if args.check:
        for line in (line for p in changes for line in p.lines()):
            print(line)
        if not changes and not errors:
            print(f"up to date: {len(plans) - 1} folder(s) and the README's task table")
        return 1 if changes or errors else 0
    for p in changes:
        for path, text in p.write.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            untrusted.write_file(path, text)
            print(f"wrote {_shown(path)}")
        for path in p.remove:
            path.unlink()
            print(f"removed {_shown(path)}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
