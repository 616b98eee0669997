"""``verify`` on a run of MLLM-CompBench's size, this checkout side by side with another one.

Builds a CompBench copy in the release's layout with ``--per-source`` items per source (2,000 gives
about 32,000 items over the sixteen columns), runs ``random_choice`` on it once (``--log_samples``),
then times ``python -m lmms_comparative verify RUN`` in fresh processes, alternating between this
checkout and ``--before`` (a checkout of an earlier commit, put first on ``PYTHONPATH``), and
prints both with their ratio. What the newer verify adds per run: each file it reads is opened
with no link followed and bounded in size and depth, the fields around the numbers are compared,
and the verdict hashes every file of the run (results, samples, side logs).

    git worktree add /tmp/before <commit>
    python bench/verify_cost.py --before /tmp/before [--per-source 2000] [--runs 3] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))
from helpers import eval_args  # noqa: E402 - the tests' lmms-eval arguments


def _env(root: Path, checkout: Path | None = None) -> dict:
    env = dict(os.environ, COMPBENCH_ROOT=str(root), HF_HUB_OFFLINE="1", LMMS_COMPARATIVE_OUR_TASKS_ONLY="1")
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _verify(root: Path, run: Path, checkout: Path) -> float:
    for stale in run.glob("**/*_verify.json"):
        stale.unlink()
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "lmms_comparative", "verify", str(run)],
        env=_env(root, checkout),
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(
            f"verify with {checkout} exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return took


def _cell(values: list[float]) -> str:
    return f"{min(values):.1f} / {statistics.median(values):.1f} / {max(values):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--before", required=True, help="a checkout of the earlier commit (git worktree add DIR COMMIT)"
    )
    parser.add_argument("--per-source", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", default=None, help="keep the data and the run here (reused when present)")
    args = parser.parse_args()
    from lmms_comparative.benchmarks.compbench.fixture import build

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench_verify_"))
    root, run = work / "compbench", work / "run"
    if not root.exists():
        build(root, per_source=args.per_source)
    if not list(run.glob("**/*_results.json")):
        cmd = [sys.executable, "-m", "lmms_eval", *eval_args("random_choice", "compbench", run)]
        subprocess.run(cmd, env=_env(root), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    items = sum(1 for f in run.glob("**/*_samples_*.jsonl") for line in f.open() if line.strip())
    size = sum(f.stat().st_size for f in run.glob("**/*") if f.is_file()) / 1e6
    before, after = [], []
    for _ in range(args.runs):  # alternated, so that a slow spell of the machine falls on both
        before.append(_verify(root, run, Path(args.before).resolve()))
        after.append(_verify(root, run, HERE))
    print(f"{items} items in one run ({size:.0f} MB of results and samples); cores: {os.cpu_count()}")
    print("| verify | seconds (min / median / max) | x before |")
    print("|---|---|---|")
    print(f"| before ({args.before}) | {_cell(before)} | 1.00 |")
    print(f"| this checkout | {_cell(after)} | {statistics.median(after) / statistics.median(before):.2f} |")


if __name__ == "__main__":
    main()
