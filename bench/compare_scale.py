"""``compare``, the leaderboard and the report on six runs of MLLM-CompBench's size, this checkout
side by side with an earlier one.

Builds a CompBench copy in the release's layout with ``--per-source`` items per source (1,550 gives
24,800 items over the sixteen columns), runs ``random_choice`` on it six times (seeds 0-5,
``--log_samples``), then, in fresh processes, alternating this checkout and ``--before`` (a
checkout of an earlier commit, put first on ``PYTHONPATH``), times each command and reads its peak
memory (``ru_maxrss`` of the process, which runs the CLI in-process):

- ``compare A B``: two runs;
- every pair of the six: one ``compare A B C D E F`` (this checkout), fifteen ``compare A B``
  (``--before``, which compares two runs at a time: what its users run);
- ``report`` of two runs and of six (the Markdown report and report.json, ``--no-html``; the page's
  thumbnails are ``html_report.py``'s business), and the ratio six / two.

    git worktree add ../before <commit>
    python bench/compare_scale.py --before ../before [--per-source 1550] [--runs 3] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers import eval_args  # noqa: E402 - the tests' lmms-eval arguments

HERE = Path(__file__).resolve().parents[1]
# The CLI run in-process, its own peak memory printed last (kB on Linux).
CLI = (
    "import resource, sys\n"
    "from lmms_comparative.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _env(root: Path, checkout: Path | None = None) -> dict:
    env = dict(os.environ, COMPBENCH_ROOT=str(root), HF_HUB_OFFLINE="1", LMMS_COMPARATIVE_OUR_TASKS_ONLY="1")
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _lmms_eval(root: Path, out: Path, seed: int) -> None:
    cmd = [sys.executable, "-m", "lmms_eval", *eval_args("random_choice", "compbench", out, model_args=f"seed={seed}")]
    subprocess.run(cmd, env=_env(root), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _cli(root: Path, checkout: Path, *args: str) -> tuple[float, float]:
    """(seconds, peak MB) of one ``lmms-comparative ARGS`` in a fresh process of ``checkout``."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CLI, *args], env=_env(root, checkout), capture_output=True, text=True, cwd=checkout
    )
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args[:2])} with {checkout} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    peak = next(int(line.split()[1]) for line in reversed(proc.stderr.splitlines()) if line.startswith("MAXRSS"))
    return took, peak / 1024


def _cell(values: list[float], digits: int = 1) -> str:
    return f"{min(values):.{digits}f} / {statistics.median(values):.{digits}f} / {max(values):.{digits}f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a checkout of an earlier commit")
    parser.add_argument("--per-source", type=int, default=1550)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", default=None, help="keep the data and runs here (reused when present)")
    args = parser.parse_args()
    from lmms_comparative.benchmarks.compbench.fixture import build

    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench_compare_"))
    root = work / "compbench"
    if not root.exists():
        build(root, per_source=args.per_source)
    runs = []
    for seed in range(6):
        out = work / f"run{seed}"
        if not list(out.glob("**/*_results.json")):
            _lmms_eval(root, out, seed)
        runs.append(str(out))
    items = sum(1 for f in Path(runs[0]).glob("**/*_samples_*.jsonl") for line in f.open() if line.strip())
    checkouts = {"this checkout": HERE, "before": Path(args.before).resolve()}
    measured: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for _ in range(args.runs):
        for label, checkout in checkouts.items():
            scratch = work / f"out_{label.replace(' ', '_')}"
            measured.setdefault((label, "compare, 2 runs"), []).append(
                _cli(root, checkout, "compare", runs[0], runs[1], "-o", str(scratch / "c2"))
            )
            if label == "this checkout":
                every = _cli(root, checkout, "compare", *runs, "-o", str(scratch / "c6"))
            else:  # fifteen two-run compares, one after another
                parts = [
                    _cli(root, checkout, "compare", a, b, "-o", str(scratch / "c15"))
                    for a, b in itertools.combinations(runs, 2)
                ]
                every = (sum(t for t, _ in parts), max(m for _, m in parts))
            measured.setdefault((label, "compare, all 15 pairs of 6 runs"), []).append(every)
            for n in (2, 6):
                measured.setdefault((label, f"report, {n} runs"), []).append(
                    _cli(root, checkout, "report", *runs[:n], "-o", str(scratch / f"r{n}"), "--no-html")
                )
    print(f"{items} items a run; cores: {os.cpu_count()}; {args.runs} rounds")
    print("| command | checkout | seconds (min / median / max) | peak MB (median) |")
    print("|---|---|---|---|")
    for (label, command), values in measured.items():
        seconds = [t for t, _ in values]
        peak = statistics.median(m for _, m in values)
        print(f"| {command} | {label} | {_cell(seconds)} | {peak:.0f} |")
    for label in checkouts:

        def median(command: str, who: str = label) -> float:
            return statistics.median(t for t, _ in measured[(who, command)])

        print(
            f"{label}: report 6 runs / 2 runs = {median('report, 6 runs') / median('report, 2 runs'):.2f}x; "
            f"compare 2 runs, before / this = {median('compare, 2 runs', 'before') / median('compare, 2 runs'):.2f}x"
        )


if __name__ == "__main__":
    main()
