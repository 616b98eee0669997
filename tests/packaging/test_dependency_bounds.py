"""The package's dependency ranges (pyproject.toml): every bound has its reason beside it, the
reasons still hold against the installed packages, and lmms-eval is left unbounded above."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest
from packaging.requirements import Requirement

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parents[2]


def _requirements_with_comments() -> list[tuple[Requirement, str]]:
    """Each ``[project] dependencies`` entry with the comment lines right above it."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    block = text[text.index("dependencies = [") : text.index("]\n", text.index("dependencies = ["))]
    found, comment = [], []
    for line in block.splitlines()[1:]:
        stripped = line.strip()
        if stripped.startswith("#"):
            comment.append(stripped.lstrip("# "))
        elif stripped.startswith('"'):
            found.append((Requirement(stripped.strip('",')), " ".join(comment)))
            comment = []
    parsed = tomllib.loads(text)["project"]["dependencies"]
    assert [str(r) for r, _ in found] == [str(Requirement(d)) for d in parsed]  # read every entry
    return found


def test_every_bound_has_its_reason_beside_it():
    for requirement, comment in _requirements_with_comments():
        if requirement.specifier:
            assert comment, f"{requirement} has a bound and no comment giving its reason"


def test_lmms_eval_has_a_lower_bound_only():
    (lmms_eval,) = [r for r, _ in _requirements_with_comments() if r.name == "lmms-eval"]
    assert {s.operator for s in lmms_eval.specifier} == {">="}, (
        "an upper bound on lmms-eval replaces a team's own lmms-eval (a git install reports 0.7.2)"
    )


def test_the_filelock_bound_still_has_its_reason():
    """``filelock<4.3``: lmms-eval imports ``filelock._api``, which filelock 4.3 removed. When the
    installed lmms-eval no longer imports it, this fails: lift the bound (and refresh the
    constraints)."""
    (filelock,) = [r for r, _ in _requirements_with_comments() if r.name == "filelock"]
    assert str(filelock.specifier) == "<4.3"
    source = Path(importlib.util.find_spec("lmms_eval.evaluator").origin).read_text(encoding="utf-8")
    assert re.search(r"import filelock\._api|from filelock\._api import|from filelock import _api", source), (
        "lmms-eval's evaluator no longer imports filelock._api: the filelock<4.3 bound in pyproject.toml can go"
    )
