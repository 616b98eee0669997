"""Every benchmark part takes and returns what its caller gives, as a type checker reads it: each
function a registered benchmark's parts hold is assigned to its protocol (``record.py``) in a
module that mypy checks. A function of the wrong shape is named (its forged twin below)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lmms_comparative import record
from lmms_comparative.benchmarks.contract_parts import MAPPINGS, SHAPES
from lmms_comparative.registry import BENCHMARKS


def _importable(function) -> tuple[str, str] | None:
    """(module, name) of a module-level function, or None (a closure or a bound object)."""
    name = getattr(function, "__qualname__", "")
    return (function.__module__, name) if name and "<" not in name and "." not in name else None


def check_module(benchmarks) -> tuple[str, int]:
    """The module mypy checks: one assignment per part function, and how many it holds."""
    lines = ["from lmms_comparative.record import *  # noqa: F403", ""]
    count = 0
    for benchmark in benchmarks:
        for part_name, (_, fields) in SHAPES.items():
            part = getattr(benchmark, f"{part_name}_part")()
            if part is None:
                continue
            found = [(getattr(part, f), shape.__name__) for f, shape in fields.items() if getattr(part, f) is not None]
            for table, shape in MAPPINGS.get(part_name, {}).items():
                found += [(function, shape.__name__) for function in getattr(part, table).values()]
            for function, shape in found:
                where = _importable(function)
                if where is None:
                    continue
                count += 1
                lines += [f"from {where[0]} import {where[1]} as f{count}", f"c{count}: {shape} = f{count}"]
        for command in benchmark.command_parts():
            for function, shape in ((command.arguments, "Arguments"), (command.run, "RunCommand")):
                if (where := _importable(function)) is not None:
                    count += 1
                    lines += [f"from {where[0]} import {where[1]} as f{count}", f"c{count}: {shape} = f{count}"]
    return "\n".join(lines) + "\n", count


def _mypy(path: Path) -> subprocess.CompletedProcess:
    if shutil.which("mypy") is None and not Path(sys.executable).with_name("mypy").exists():
        pytest.skip("mypy is not installed (the test extra)")
    args = [
        "--follow-imports=silent",
        "--ignore-missing-imports",
        "--no-error-summary",
        "--cache-dir",
        str(path.parent / ".mypy_cache"),
        str(path),
    ]
    # The package's own folder on mypy's path: an editable install's import hook is not one mypy reads.
    env = dict(os.environ, MYPYPATH=str(Path(record.__file__).resolve().parents[1]))
    return subprocess.run(
        [sys.executable, "-m", "mypy", *args], capture_output=True, text=True, timeout=600, cwd=path.parent, env=env
    )


@pytest.mark.slow
def test_every_part_function_has_its_protocols_shape(tmp_path):
    text, count = check_module(BENCHMARKS)
    assert count >= 25  # every benchmark's report functions, fixtures, readers and commands
    # A forged twin: a section that takes a run where a list of runs is given, and a fixture builder
    # that needs a size its caller never passes.
    forged = text + "\n".join(
        [
            "from pathlib import Path",
            "def bad_section(run: int) -> str | None: ...",
            "def bad_build(root: str | Path, size: int) -> Path:\n    return Path(root)",
            "x1: Section = bad_section",
            "x2: BuildFixture = bad_build",
        ]
    )
    (tmp_path / "parts_check.py").write_text(text)
    (tmp_path / "forged_check.py").write_text(forged)
    honest = _mypy(tmp_path / "parts_check.py")
    assert honest.returncode == 0, honest.stdout + honest.stderr
    found = _mypy(tmp_path / "forged_check.py")
    assert found.returncode == 1
    errors = [line for line in found.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2 and all("forged_check.py" in e for e in errors), found.stdout
    assert record.Section.__name__ in errors[0] and record.BuildFixture.__name__ in errors[1]
