"""What the benches on an MLLM-CompBench copy share (``compare_scale.py``, ``html_report.py``,
``verify_cost.py``, ``verify_many.py``): their arguments, a work folder kept between calls
(``--workdir``), the copy built once in it, ``random_choice`` runs of it made once, the environment
of a process of this checkout or of an earlier one, and the min / median / max cell of their tables.
Imported by those scripts (their folder is first on the module path); not a bench of its own."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]  # this checkout
sys.path.insert(0, str(HERE / "tests"))
from helpers import eval_args  # noqa: E402 - the tests' lmms-eval arguments


def arguments(doc: str, per_source: int, before: bool = False) -> argparse.ArgumentParser:
    """The arguments of a bench whose docstring is ``doc``: ``[--before DIR] [--per-source N]
    [--runs N] [--workdir DIR]``, ``--before`` (an earlier checkout) where it compares with one."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    if before:
        parser.add_argument(
            "--before", required=True, help="a checkout of an earlier commit (git worktree add DIR COMMIT)"
        )
    parser.add_argument("--per-source", type=int, default=per_source)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", default=None, help="keep the data and the runs here (reused when present)")
    return parser


def work_folder(workdir: str | None, prefix: str) -> Path:
    """``--workdir``, else a new temporary folder named from ``prefix``."""
    return Path(workdir or tempfile.mkdtemp(prefix=prefix))


def compbench_copy(root: Path, per_source: int) -> Path:
    """A CompBench copy in the release's layout at ``root``, ``per_source`` items per source, built
    unless it is already there."""
    from lmms_comparative.benchmarks.compbench.fixture import build

    if not root.exists():
        build(root, per_source=per_source)
    return root


def env(root: Path, checkout: Path | None = None, **extra: str) -> dict:
    """The environment of a process on the copy at ``root``: offline, our task folder indexed
    alone, ``extra`` added; ``checkout``'s package first on ``PYTHONPATH`` where one is given."""
    found = dict(os.environ, COMPBENCH_ROOT=str(root), HF_HUB_OFFLINE="1", LMMS_COMPARATIVE_OUR_TASKS_ONLY="1", **extra)
    if checkout is not None:
        found["PYTHONPATH"] = str(checkout) + (os.pathsep + found["PYTHONPATH"] if found.get("PYTHONPATH") else "")
    return found


def random_run(root: Path, out: Path, seed: int | None = None) -> Path:
    """``out``: a ``random_choice`` run of ``compbench`` on the copy at ``root`` (``--log_samples``,
    the model's ``seed`` where one is given), made unless its results are already there."""
    if not list(out.glob("**/*_results.json")):
        model_args = f"seed={seed}" if seed is not None else None
        cmd = [sys.executable, "-m", "lmms_eval", *eval_args("random_choice", "compbench", out, model_args=model_args)]
        subprocess.run(cmd, env=env(root), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return out


def items(run: Path) -> int:
    """The samples a run logged, over all its tasks."""
    return sum(1 for f in run.glob("**/*_samples_*.jsonl") for line in f.open() if line.strip())


def cell(values: list[float], digits: int = 1) -> str:
    """``min / median / max`` of ``values``, ``digits`` after the point."""
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} / {max(values):.{digits}f}"
