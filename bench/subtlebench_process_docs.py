"""SubtleBench ``process_docs`` over the ten type tasks: the release is read and validated once.

    python bench/subtlebench_process_docs.py [--per-category 300]

Builds a generated release (``--per-category`` items per difference type, the official layout)
and calls the ten type tasks' ``process_docs`` in one process, as lmms-eval does when a run lists
``subtlebench``. Prints the first task's time (it parses the JSONL and checks every image file),
each later task's time, and the total against ten times the first (what reading the release per
task would cost), with the number of JSONL parses and image checks the run made.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-category", type=int, default=300)
    args = parser.parse_args()

    from lmms_comparative.benchmarks.subtlebench import data
    from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench
    from lmms_comparative.data import items

    counts = {"jsonl_parses": 0, "image_checks": 0}
    read_records, bytes_problem = data.read_records, items.image_bytes_problem

    def counting_read(path):
        counts["jsonl_parses"] += 1
        return read_records(path)

    def counting_check(raw):
        counts["image_checks"] += 1
        return bytes_problem(raw)

    data.read_records, items.image_bytes_problem = counting_read, counting_check
    with tempfile.TemporaryDirectory() as tmp:
        root = build_subtlebench(Path(tmp) / "subtlebench", per_category=args.per_category, val_per_category=1)
        os.environ["SUBTLEBENCH_ROOT"] = str(root)
        from lmms_comparative.benchmarks.subtlebench import hooks as task

        seconds = []
        for category in data.CATEGORIES.values():
            start = time.perf_counter()
            getattr(task, f"process_docs_{category}")(None)
            seconds.append(time.perf_counter() - start)
    report = {
        "items": 10 * args.per_category,
        "first_task_s": round(seconds[0], 3),
        "later_tasks_s": [round(s, 3) for s in seconds[1:]],
        "total_s": round(sum(seconds), 3),
        "ten_times_first_s": round(10 * seconds[0], 3),
        **counts,
    }
    print(json.dumps(report))
    print(
        f"ten type tasks: {sum(seconds):.2f} s in all, against {10 * seconds[0]:.2f} s for ten reads of "
        f"the release; {counts['jsonl_parses']} JSONL parse(s), {counts['image_checks']} image check(s) "
        f"for {2 * 10 * args.per_category} image files"
    )


if __name__ == "__main__":
    main()
