"""Run the shell blocks of the docs, so that what they tell a user to type keeps working.

Every fenced ``bash``/``sh``/``shell``/``console`` block in README.md, docs/*.md and the benchmarks'
READMEs carries a marker on the line before it (an HTML comment, invisible on the rendered page):

    <!-- docs-test: run -->
    <!-- docs-test: run with RESULTS_DIR=results/a M=random_choice -->
    <!-- docs-test: skip: needs a GPU and a 7B checkpoint from the hub -->

``run`` blocks are run as they stand (``with``: placeholders replaced, each a whole word), with
``bash -euo pipefail``, in a scratch folder, offline: every benchmark's data root points at its
generated fixture (``Benchmark.build_fixture``), the hub is offline, and this environment's
``lmms-eval`` and ``lmms-comparative`` come first on PATH. Before the blocks, two small runs are made
there for the blocks that read a run's output: ``results/a`` and ``results/b`` (``random_choice`` on
``subtlebench_at`` with ``--log_samples``, seeds 0 and 1). ``skip`` blocks need what this machine
has not (a GPU, the hub, an API key) or are not commands (a synopsis); the reason is required. A
block without a marker is an error: each new block must say which it is.

    python tools/docs_commands.py            # run them; exit 1 on a failure or an unmarked block
    python tools/docs_commands.py --list     # what would run and what is skipped, and why
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FENCE = re.compile(r"^```(bash|sh|shell|console)\s*$")
MARKER = re.compile(r"^<!--\s*docs-test:\s*(?P<what>run|skip)(?P<rest>.*?)\s*-->\s*$")
SETUP = [  # our task only: lmms-eval's own task files need not be indexed for these
    "LMMS_COMPARATIVE_OUR_TASKS_ONLY=1 lmms-eval --model random_choice --model_args seed=0 --tasks "
    "subtlebench_at --output_path results/a --log_samples",
    "LMMS_COMPARATIVE_OUR_TASKS_ONLY=1 lmms-eval --model random_choice --model_args seed=1 --tasks "
    "subtlebench_at --output_path results/b --log_samples",
]


@dataclass
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    text: str
    action: str | None  # "run", "skip" or None (unmarked)
    detail: str  # the skip reason, or the run's "with" substitutions

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    def substitutions(self) -> dict[str, str]:
        if self.action != "run" or not self.detail.startswith("with "):
            return {}
        return dict(pair.split("=", 1) for pair in shlex.split(self.detail[5:]))

    def script(self) -> str:
        text = self.text
        for name, value in self.substitutions().items():
            text = re.sub(rf"(?<![\w/.-]){re.escape(name)}(?![\w/.-])", value, text)
        return text


def doc_files() -> list[Path]:
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
        *sorted((ROOT / "lmms_comparative" / "benchmarks").glob("*/README.md")),
    ]


def blocks(files: list[Path] | None = None) -> list[Block]:
    found = []
    for path in files or doc_files():
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            if FENCE.match(lines[i]):
                end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("```")), len(lines))
                marker = MARKER.match(lines[i - 1].strip()) if i > 0 else None
                action = marker.group("what") if marker else None
                detail = marker.group("rest").strip().lstrip(":").strip() if marker else ""
                found.append(Block(path, i + 1, "\n".join(lines[i + 1 : end]), action, detail))
                i = end
            i += 1
    return found


def problems(found: list[Block]) -> list[str]:
    """Blocks without a marker, skips without a reason."""
    out = []
    for block in found:
        if block.action is None:
            out.append(
                f"{block.where}: a shell block without a docs-test marker (<!-- docs-test: run --> or <!-- "
                "docs-test: skip: why -->)"
            )
        elif block.action == "skip" and not block.detail:
            out.append(f"{block.where}: a skipped block must say why")
    return out


def environment(scratch: Path) -> dict[str, str]:
    """Offline, every benchmark's root at its generated fixture, this environment's tools first."""
    sys.path.insert(0, str(ROOT))
    from lmms_comparative.registry import BENCHMARKS

    env = dict(os.environ)
    for benchmark in BENCHMARKS:
        env[benchmark.root_variable] = str(benchmark.build_fixture(scratch / "data" / benchmark.name))
    bin_dir = str(Path(sys.executable).parent)
    env.update(
        PATH=bin_dir + os.pathsep + env.get("PATH", ""),
        HF_HOME=str(scratch / "hf_home"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
    )
    for name in ("OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_API_URL", "HF_TOKEN"):
        env.pop(name, None)
    return env


def run_script(script: str, cwd: Path, env: dict, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def run_all(found: list[Block], scratch: Path) -> list[tuple[Block, subprocess.CompletedProcess, float]]:
    env = environment(scratch)
    work = scratch / "work"
    work.mkdir(parents=True, exist_ok=True)
    for command in SETUP:
        done = run_script(command, work, env)
        if done.returncode != 0:
            raise SystemExit(f"setup failed: {command}\n{done.stderr[-3000:]}")
    outcomes = []
    for block in found:
        if block.action != "run":
            continue
        start = time.monotonic()
        outcomes.append((block, run_script(block.script(), work, env), time.monotonic() - start))
    return outcomes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list the blocks and what happens to each, run nothing")
    args = parser.parse_args(argv)
    found = blocks()
    bad = problems(found)
    for line in bad:
        print(f"error: {line}")
    for block in found:
        if block.action == "skip":
            print(f"marked  {block.where}: {block.detail}")
        elif block.action == "run" and args.list:
            print(f"run     {block.where}" + (f" ({block.detail})" if block.detail else ""))
    if args.list:
        return 1 if bad else 0
    failed = 0
    with tempfile.TemporaryDirectory(prefix="docs-commands-") as scratch:
        for block, done, seconds in run_all(found, Path(scratch)):
            status = "ok" if done.returncode == 0 else f"FAILED (exit {done.returncode})"
            print(f"run     {block.where}: {status} in {seconds:.0f} s")
            for command in block.script().splitlines():
                if command.strip() and not command.lstrip().startswith("#"):
                    print(f"        $ {command.strip()}")
            if done.returncode != 0:
                failed += 1
                print(done.stdout[-2000:] + done.stderr[-3000:])
    ran = sum(1 for b in found if b.action == "run")
    skipped = sum(1 for b in found if b.action == "skip")
    print(f"{len(found)} shell blocks: {ran} run ({failed} failed), {skipped} marked, {len(bad)} problem(s)")
    return 1 if failed or bad else 0


if __name__ == "__main__":
    sys.exit(main())
