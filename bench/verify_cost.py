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

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from compbench_runs import HERE, arguments, cell, compbench_copy, env, items, random_run, work_folder


def _verify(root: Path, run: Path, checkout: Path) -> float:
    for stale in run.glob("**/*_verify.json"):
        stale.unlink()
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "lmms_comparative", "verify", str(run)],
        env=env(root, checkout),
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(
            f"verify with {checkout} exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}"
        )
    return took


def main() -> None:
    args = arguments(__doc__, per_source=2000, before=True).parse_args()
    work = work_folder(args.workdir, "bench_verify_")
    root = compbench_copy(work / "compbench", args.per_source)
    run = random_run(root, work / "run")
    size = sum(f.stat().st_size for f in run.glob("**/*") if f.is_file()) / 1e6
    before, after = [], []
    for _ in range(args.runs):  # alternated, so that a slow spell of the machine falls on both
        before.append(_verify(root, run, Path(args.before).resolve()))
        after.append(_verify(root, run, HERE))
    print(f"{items(run)} items in one run ({size:.0f} MB of results and samples); cores: {os.cpu_count()}")
    print("| verify | seconds (min / median / max) | x before |")
    print("|---|---|---|")
    print(f"| before ({args.before}) | {cell(before)} | 1.00 |")
    print(f"| this checkout | {cell(after)} | {statistics.median(after) / statistics.median(before):.2f} |")


if __name__ == "__main__":
    main()
