"""The docs' shell blocks (tools/docs_commands.py): each is marked run or skip (with a reason), and
the runnable ones run offline on the fixtures as a user would type them."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest
from helpers import python_for

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import docs_commands  # noqa: E402


def test_every_shell_block_of_the_docs_is_marked_run_or_skip_with_a_reason():
    found = docs_commands.blocks()
    assert len(found) >= 10 and docs_commands.problems(found) == []
    assert {b.action for b in found} == {"run", "skip"}


def test_an_unmarked_block_is_named(tmp_path):
    doc = tmp_path / "doc.md"
    doc.write_text("text\n\n```bash\nlmms-eval --help\n```\n\n<!-- docs-test: skip -->\n```sh\nx\n```\n")
    docs_commands.ROOT = tmp_path  # the paths are shown relative to the project
    try:
        problems = docs_commands.problems(docs_commands.blocks([doc]))
    finally:
        docs_commands.ROOT = ROOT
    assert problems == [
        "doc.md:3: a shell block without a docs-test marker (<!-- docs-test: run --> or <!-- docs-test: skip: why -->)",
        "doc.md:8: a skipped block must say why",
    ]


@pytest.mark.e2e
def test_the_runnable_blocks_run_offline_on_the_fixtures(monkeypatch, capsys):
    """The tool's own run (its main, its environment), with ``lmms-eval`` and ``lmms-comparative``
    on PATH started warm (helpers/warm_python.py) where a server serves that environment."""
    original = docs_commands.environment

    def warm_environment(scratch: Path) -> dict[str, str]:
        env = original(scratch)
        python, env = python_for(env)
        if python != [sys.executable]:
            shims = scratch / "warm-bin"
            shims.mkdir()
            for script in ("lmms-eval", "lmms-comparative"):
                real = Path(sys.executable).with_name(script)
                (shims / script).write_text(f'#!/bin/sh\nexec {shlex.quote(python[0])} {shlex.quote(str(real))} "$@"\n')
                (shims / script).chmod(0o755)
            env["PATH"] = str(shims) + os.pathsep + env["PATH"]
        return env

    monkeypatch.setattr(docs_commands, "environment", warm_environment)
    status = docs_commands.main([])
    out = capsys.readouterr().out
    print(out)
    assert status == 0, out[-6000:]
    assert "(0 failed)" in out and "0 problem(s)" in out
