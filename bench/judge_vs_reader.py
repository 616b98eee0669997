"""DiffSpot's judge against CaptionQA's reader, side by side on one local endpoint: the same engine
(``judges.Engine``) with each benchmark's own settings, each asked ``--n`` distinct requests of its
own shape.

    python bench/judge_vs_reader.py [--n 2000] [--latency 0.05] [--slots 64] [--runs 3]

One local server (bench/latency_server.py: a fixed latency per answer, ``--slots`` at a time, so
its capacity is slots / latency; it requires the key) answers both clients in turn, in each run:

- the reader: CaptionQA's reader requests (its system prompt, a caption, a question and its
  lettered options: ``captionqa.hooks.reader_messages``), from ``reader_engine()``, the engine
  its aggregation builds (``CAPTIONQA_READER_*`` settings, its defaults otherwise);
- the judge: DiffSpot's judge prompts (``diffspot.scoring.render_judge_prompt``: the authors'
  ``judge.txt`` filled with a mutation list, a description and a reply of a few hundred words),
  from the engine its scoring builds (``DIFFSPOT_JUDGE_*``), with ``reasoning_effort`` sent as the
  scoring sends it. The server answers "A", which the judge cannot parse: only the requests are
  timed here, not the authors' re-asks of an unparseable verdict.

Each client at its own default concurrency (the reader 32, the judge 50), or both at
``--concurrency``. A fresh cache file per client and run, so every request reaches the server. The server counts
each client's requests, with and without the key: each must reach it exactly once, with the key.
Prints each rate (requests/s), the judge's over the reader's, per run and their median, and the
request sizes; exits non-zero if a client lost or repeated a request or sent one without the key.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency_server import LatencyServer, server_stats

KEY = "sk-bench"


def reader_requests(n: int) -> list:
    from lmms_comparative.benchmarks.captionqa.hooks import reader_messages

    caption = "A red mug stands on a wooden desk beside a laptop; a window behind shows a street at dusk. " * 4
    return [
        reader_messages(
            caption, f"Question {i}: what stands beside the laptop?", ["a mug", "a lamp", "a plant", "a phone"]
        )
        for i in range(n)
    ]


def judge_requests(n: int) -> list[str]:
    from lmms_comparative.benchmarks.diffspot import scoring

    reply = (
        "In image B the navigation bar's background is darker and the second button's label moved 4 px to the right. "
        * 12
    )
    mutations = [
        {"type": "color", "selector": ".nav", "property": "background-color", "before": "#ffffff", "after": "#eeeeee"}
    ]
    return [
        scoring.render_judge_prompt(
            scoring.mutations_of([json.dumps(m) for m in mutations]), f"pair {i}: the nav bar colour changed", reply
        )
        for i in range(n)
    ]


def timed(make_engine, requests: list, **extra) -> float:
    engine = make_engine()
    start = time.perf_counter()
    answers = engine.run(requests, desc="bench", progress=False, **extra)
    seconds = time.perf_counter() - start
    failed = [a for a in answers if a.failed]
    if failed:
        raise SystemExit(f"{len(failed)} request(s) failed: {failed[0].error}")
    return len(requests) / seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=2000, help="requests per client and run")
    parser.add_argument("--latency", type=float, default=0.05, help="seconds per answer at the server")
    parser.add_argument("--slots", type=int, default=64, help="answers the server gives at once")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--concurrency",
        type=int,
        default=None,
        help="both clients' concurrency (default: each its own: the reader 32, the judge 50, the authors' workers)",
    )
    args = parser.parse_args(argv)

    from lmms_comparative.benchmarks.captionqa.hooks import reader_engine
    from lmms_comparative.benchmarks.diffspot import hooks as diffspot
    from lmms_comparative.benchmarks.diffspot.table import JUDGE
    from lmms_comparative.judges import Engine

    reader, judge = reader_requests(args.n), judge_requests(args.n)
    sizes = {
        "reader": statistics.median(len(json.dumps(r)) for r in reader),
        "judge": statistics.median(len(json.dumps(r)) for r in judge),
    }
    effort = diffspot.reasoning_effort()
    extra = {"reasoning_effort": effort} if effort else {}
    ratios, bad = [], 0
    with LatencyServer(args.latency, args.slots, api_key=KEY) as base_url, tempfile.TemporaryDirectory() as scratch:
        for prefix in ("CAPTIONQA_READER", JUDGE.setting):
            os.environ.update({f"{prefix}_BASE_URL": base_url, f"{prefix}_API_KEY": KEY, f"{prefix}_MODEL": "bench"})
            if args.concurrency:
                os.environ[f"{prefix}_CONCURRENCY"] = str(args.concurrency)
        print(
            f"server: {args.latency} s per answer, {args.slots} at a time (capacity "
            f"{args.slots / args.latency:.0f}/s); {args.n} requests per client; median request body: "
            f"reader {sizes['reader']:.0f} B, judge {sizes['judge']:.0f} B"
        )
        for run in range(args.runs):
            rates = {}
            for name, make, requests, kw in (
                ("reader", reader_engine, reader, {}),
                ("judge", lambda: Engine.from_env(JUDGE.setting, defaults=JUDGE.default), judge, extra),
            ):
                os.environ["LMMS_COMPARATIVE_LLM_CACHE"] = str(Path(scratch) / f"{name}-{run}.sqlite")
                server_stats(base_url)  # reset the counts
                rates[name] = timed(make, requests, **kw)
                stats = server_stats(base_url)
                if stats["with_key"] != args.n or stats["without_key"] or stats["distinct_bodies"] != args.n:
                    print(f"  {name}: the server saw {stats} (expected {args.n} distinct requests, all with the key)")
                    bad += 1
            ratios.append(rates["judge"] / rates["reader"])
            print(
                f"run {run + 1}: reader {rates['reader']:.0f}/s, judge {rates['judge']:.0f}/s, "
                f"judge/reader {ratios[-1]:.2f}"
            )
    print(f"judge/reader, median of {args.runs}: {statistics.median(ratios):.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
