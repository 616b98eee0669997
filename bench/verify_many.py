"""``verify`` of a folder of six runs against one run, re-scored by fresh lmms-eval processes and
forked from one server (lmms_comparative/rescoring/warm.py), side by side.

Builds an MLLM-CompBench copy in the release's layout (``--items``: about 6,200 by default, the
size of the test split; the copy gets ``items / 12.4`` per source), makes six ``random_choice``
runs of ``compbench`` on it with seeds 1 to 6 (``--log_samples``), then times, alternated in each
round, ``python -m lmms_comparative verify`` of:

- ``1 run``: one run's folder (one re-score: never a server, the same path either way);
- ``6 runs, fresh``: the folder of six with ``LMMS_COMPARATIVE_VERIFY_COLD=1``: a fresh lmms-eval
  process per re-score, as many at once as there are cores;
- ``6 runs, forked``: the folder of six, re-scored from one server that imported lmms-eval's
  libraries once.

Each ``verify`` runs inside a fresh Python process of its own, which reports the seconds and
``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``: the peak resident memory of the largest
process of the tree (verify, the server, a re-score), not the sum of those alive at once. The
script checks that both ways print the same verdicts and exit 0, and prints the ratios
6 runs / 1 run and forked / fresh.

    python bench/verify_many.py [--items 6200] [--runs 2] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

from compbench_runs import cell, compbench_copy, env, items, random_run, work_folder

SEEDS = range(1, 7)
ITEMS_PER_SOURCE_UNIT = 12.4  # CompBench's fixture: items over the sixteen columns per ``per_source``
# Run in a fresh process per measurement, so that RUSAGE_CHILDREN holds this verify's tree only.
TIMED = """
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
took = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
out = {"seconds": took, "peak_kb": peak, "rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr}
print(json.dumps(out))
"""


def _verify(root: Path, folder: Path, cold: bool) -> dict:
    """One ``verify`` of ``folder``: seconds, peak memory (kB), exit status, output."""
    for stale in folder.glob("**/*_verify.json"):
        stale.unlink()
    run_env = env(root, **({"LMMS_COMPARATIVE_VERIFY_COLD": "1"} if cold else {}))
    if not cold:
        run_env.pop("LMMS_COMPARATIVE_VERIFY_COLD", None)
    verify = [sys.executable, "-m", "lmms_comparative", "verify", str(folder)]
    done = subprocess.run(
        [sys.executable, "-c", TIMED, *verify], env=run_env, capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout)
    if found["rc"] != 0:
        raise SystemExit(f"verify {folder} exited {found['rc']}:\n{found['stdout'][-2000:]}{found['stderr'][-2000:]}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=6200, help="about this many items a run (6,200: the test split)")
    parser.add_argument("--runs", type=int, default=2, help="rounds of the three measurements")
    parser.add_argument("--workdir", default=None, help="keep the data and the runs here (reused when present)")
    args = parser.parse_args()
    from lmms_comparative.rescoring.warm import cores

    work = work_folder(args.workdir, "bench_verify_many_")
    per_source = max(1, round(args.items / ITEMS_PER_SOURCE_UNIT))
    root = compbench_copy(work / f"compbench_{per_source}", per_source)
    runs = work / f"runs_{per_source}"
    for seed in SEEDS:
        random_run(root, runs / f"seed{seed}", seed)
    one = runs / "seed1"
    cases = {"1 run": (one, True), "6 runs, fresh": (runs, True), "6 runs, forked": (runs, False)}
    seconds: dict[str, list[float]] = {name: [] for name in cases}
    peaks: dict[str, list[float]] = {name: [] for name in cases}
    outputs: dict[str, str] = {}
    for _ in range(args.runs):  # alternated, so that a slow spell of the machine falls on each
        for name, (folder, cold) in cases.items():
            found = _verify(root, folder, cold)
            seconds[name].append(found["seconds"])
            peaks[name].append(found["peak_kb"] / 1024)
            outputs[name] = found["stdout"]
    if outputs["6 runs, fresh"] != outputs["6 runs, forked"]:
        raise SystemExit("the two ways printed different verdicts")
    base = statistics.median(seconds["1 run"])
    print(f"{items(one)} items a run, six runs (seeds 1-6); cores: {cores()}; rounds: {args.runs}")
    print("| verify | seconds (min / median / max) | peak MB (largest process) | x 1 run |")
    print("|---|---|---|---|")
    for name in cases:
        ratio = statistics.median(seconds[name]) / base
        print(f"| {name} | {cell(seconds[name])} | {cell(peaks[name], 0)} | {ratio:.2f} |")
    fresh, forked = statistics.median(seconds["6 runs, fresh"]), statistics.median(seconds["6 runs, forked"])
    print(f"6 runs forked / fresh: {forked / fresh:.2f} (medians); the verdicts of both ways are the same")


if __name__ == "__main__":
    main()
