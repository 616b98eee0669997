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
  thumbnails are ``html_report.py``'s business), and the ratio six / two; this checkout's report of
  six also with its pairs compared in the one process (``LMMS_COMPARATIVE_JOBS=1``) instead of
  forked workers, one per core, and that ratio.

    git worktree add ../before <commit>
    python bench/compare_scale.py --before ../before [--per-source 1550] [--runs 3] [--workdir DIR]
"""

from __future__ import annotations

import itertools
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from compbench_runs import HERE, arguments, cell, compbench_copy, env, items, random_run, work_folder

# The CLI run in-process, its own peak memory printed last (kB on Linux).
CLI = (
    "import resource, sys\n"
    "from lmms_comparative.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _cli(root: Path, checkout: Path, *args: str, **extra: str) -> tuple[float, float]:
    """(seconds, peak MB) of one ``lmms-comparative ARGS`` in a fresh process of ``checkout``
    (``extra``: variables added to its environment). The peak is the process's own, its workers'
    apart."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", CLI, *args],
        env=env(root, checkout, **extra),
        capture_output=True,
        text=True,
        cwd=checkout,
    )
    took = time.perf_counter() - start
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args[:2])} with {checkout} exited {proc.returncode}:\n{proc.stderr[-2000:]}")
    peak = next(int(line.split()[1]) for line in reversed(proc.stderr.splitlines()) if line.startswith("MAXRSS"))
    return took, peak / 1024


def main() -> None:
    args = arguments(__doc__, per_source=1550, before=True).parse_args()
    work = work_folder(args.workdir, "bench_compare_")
    root = compbench_copy(work / "compbench", args.per_source)
    runs = [str(random_run(root, work / f"run{seed}", seed)) for seed in range(6)]
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
            if label == "this checkout":
                measured.setdefault((label, "report, 6 runs, one process"), []).append(
                    _cli(
                        root,
                        checkout,
                        "report",
                        *runs,
                        "-o",
                        str(scratch / "r6one"),
                        "--no-html",
                        LMMS_COMPARATIVE_JOBS="1",
                    )
                )
    print(f"{items(Path(runs[0]))} items a run; cores: {os.cpu_count()}; {args.runs} rounds")
    print("| command | checkout | seconds (min / median / max) | peak MB (median) |")
    print("|---|---|---|---|")
    for (label, command), values in measured.items():
        seconds = [t for t, _ in values]
        peak = statistics.median(m for _, m in values)
        print(f"| {command} | {label} | {cell(seconds)} | {peak:.0f} |")
    for label in checkouts:

        def median(command: str, who: str = label) -> float:
            return statistics.median(t for t, _ in measured[(who, command)])

        print(
            f"{label}: report 6 runs / 2 runs = {median('report, 6 runs') / median('report, 2 runs'):.2f}x; "
            f"compare 2 runs, before / this = {median('compare, 2 runs', 'before') / median('compare, 2 runs'):.2f}x"
        )
    one, forked = (
        statistics.median(t for t, _ in measured[("this checkout", "report, 6 runs, one process")]),
        statistics.median(t for t, _ in measured[("this checkout", "report, 6 runs")]),
    )
    print(f"this checkout: report 6 runs, one process / forked workers = {one / forked:.2f}x")


if __name__ == "__main__":
    main()
