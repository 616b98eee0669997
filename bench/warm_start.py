"""What the test suite's warm start (tests/helpers/warm_python.py) saves per process, side by side.

    python bench/warm_start.py [--runs 5]

The suite starts most of its lmms-eval and ``lmms-comparative`` processes through a fork server
that imported torch, pandas, scipy and the Hugging Face libraries once. This script runs the same
commands both ways, alternating cold and warm (each kind of server), on a SubtleBench fixture in a scratch folder:

- ``lmms-eval --model random_choice --tasks subtlebench_sp --log_samples`` (a typical e2e test run);
- ``lmms-comparative score subtlebench`` on that run's samples (a re-score starts lmms-eval inside);
- ``python -m lmms_comparative.benchmarks.contract subtlebench`` (imports lmms-eval's task layer).

For each it prints the wall seconds (min / median / max over ``--runs``), the warm/cold ratio of
the medians and the seconds saved per process. The server's start (paid once per server, a few per
test worker) is measured and printed apart. Multiply the savings by the number of process starts
in a suite run (``WARM_PYTHON_KEEP=1 python -m pytest`` keeps the servers' logs, a line per request,
in the temporary folder) for the suite's figure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from helpers import base_env, eval_args  # noqa: E402
from helpers.warm_python import SOCKET_ENV  # noqa: E402
from helpers.warm_servers import server_for  # noqa: E402


def _timed(cmd: list[str], env: dict, cwd: Path) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ.pop("WARM_PYTHON_OFF", None)
    scratch = Path(tempfile.mkdtemp(prefix="warm-start-bench-"))
    try:
        from lmms_comparative.registry import BY_NAME

        root = BY_NAME["subtlebench"].build_fixture(scratch / "fixture")
        env = base_env(scratch / "hf", SUBTLEBENCH_ROOT=str(root))
        # The two kinds of server for this environment, each started and timed apart (the suite
        # pays a start a few times per worker): "base" preloads torch, scipy, pandas...; "hf" also
        # the Hugging Face libraries and lmms-eval's filters.
        servers, started = {}, {}
        for tier in ("base", "hf"):
            start = time.perf_counter()
            servers[tier] = server_for(env, tier=tier)
            started[tier] = time.perf_counter() - start
            if servers[tier] is None:
                sys.exit(f"no {tier} server started")
        ways = {
            "cold": ([sys.executable], env),
            **{f"warm ({t})": ([s.shim], {**env, SOCKET_ENV: s.socket}) for t, s in servers.items()},
        }

        def commands(out: Path) -> dict[str, list[str]]:
            return {
                "lmms-eval run (subtlebench_sp)": [
                    "-m",
                    "lmms_eval",
                    *eval_args("random_choice", "subtlebench_sp", out / "run"),
                ],
                "lmms-comparative score": [
                    "-m",
                    "lmms_comparative",
                    "score",
                    "subtlebench",
                    str(out / "run"),
                    "-o",
                    str(out / "scored"),
                ],
                "contract check": ["-m", "lmms_comparative.benchmarks.contract", "subtlebench"],
            }

        times: dict[str, dict[str, list[float]]] = {}
        for index in range(args.runs):
            for n, (way, (python, run_env)) in enumerate(ways.items()):
                out = scratch / f"{n}-{index}"
                out.mkdir()
                for label, rest in commands(out).items():
                    times.setdefault(label, {}).setdefault(way, []).append(_timed([*python, *rest], run_env, out))
                print(f"run {index + 1}/{args.runs} {way} done", file=sys.stderr)
        print("server start (once per server): " + ", ".join(f"{t} {s:.1f} s" for t, s in started.items()))
        print(f"{'command':32s} {'way':12s} {'s (min/med/max)':>16s} {'/cold':>6s} {'saved s':>8s}")
        for label, by_way in times.items():
            cold = statistics.median(by_way["cold"])
            for way, values in by_way.items():
                median = statistics.median(values)
                spread = f"{min(values):.1f}/{median:.1f}/{max(values):.1f}"
                print(f"{label:32s} {way:12s} {spread:>16s} {median / cold:6.2f} {cold - median:8.1f}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
