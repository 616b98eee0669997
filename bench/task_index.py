"""lmms-eval indexing our task folder, side by side: with its own YAML reader (the pure-Python
parser) and with ours (libyaml's parser for the files of our folder, lmms-eval's constructors).

    python bench/task_index.py [--runs 5]

Each run builds a fresh ``TaskManager`` on our folder only (``include_defaults=False``), once with
lmms-eval's reader and once with ours, in the same process, alternating which goes first. This is
what every lmms-eval run pays for our tasks being installed, before it loads anything. Both
indexes must be equal (the same names, types, paths and group members); the script prints each
time, min/median/max over the runs and the ratio, and exits non-zero if the indexes differ.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()

    from lmms_eval import utils
    from lmms_eval.tasks import TaskManager

    from lmms_comparative import yaml_dir
    from lmms_comparative.harness import task_path

    plain_reader = getattr(utils.load_yaml_config, "__wrapped__", utils.load_yaml_config)
    utils.load_yaml_config = plain_reader
    if not task_path._read_ours_with_libyaml():
        print("our YAML reader cannot be installed here (no libyaml in this PyYAML?)", file=sys.stderr)
        return 1
    ours_reader = utils.load_yaml_config

    def index(reader):
        utils.load_yaml_config = reader
        start = time.perf_counter()
        manager = TaskManager(include_path=yaml_dir(), include_defaults=False)
        return time.perf_counter() - start, manager.task_index

    times = {"lmms-eval's reader": [], "ours": []}
    for run in range(args.runs):
        order = [("lmms-eval's reader", plain_reader), ("ours", ours_reader)]
        results = {}
        for name, reader in order if run % 2 == 0 else order[::-1]:
            seconds, results[name] = index(reader)
            times[name].append(seconds)
        if results["ours"] != results["lmms-eval's reader"]:
            print("the two indexes differ", file=sys.stderr)
            return 1
        print(
            f"run {run + 1}: {len(results['ours'])} entries; "
            + ", ".join(f"{name} {times[name][-1]:.3f} s" for name in times)
        )
    for name, values in times.items():
        print(f"{name:20s} min {min(values):.3f} s, median {statistics.median(values):.3f} s, max {max(values):.3f} s")
    ratio = statistics.median(times["lmms-eval's reader"]) / statistics.median(times["ours"])
    print(f"ours is {ratio:.1f}x faster (median over {args.runs} runs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
