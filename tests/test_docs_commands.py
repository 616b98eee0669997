"""The docs' shell blocks (tools/docs_commands.py): each is marked run or skip (with a reason), and
the runnable ones run offline on the fixtures as a user would type them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
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
    assert problems == ["doc.md:3: a shell block without a docs-test marker (<!-- docs-test: run --> or <!-- docs-test: skip: why -->)", "doc.md:8: a skipped block must say why"]


@pytest.mark.e2e
def test_the_runnable_blocks_run_offline_on_the_fixtures():
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "docs_commands.py")], capture_output=True, text=True, timeout=1200, stdin=subprocess.DEVNULL)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert "(0 failed)" in proc.stdout and "0 problem(s)" in proc.stdout
