"""Reader-style requests: one at a time (as the upstream captionqa task calls its reader) vs the engine.

    python bench/engine_throughput.py [--n 2000] [--latency 0.02] [--slots 32] [--concurrency 32]

A local OpenAI-compatible server (bench/latency_server.py, its own process) answers every request
after a fixed latency, ``slots`` at a time: its capacity is slots / latency. Prints, measured in
this one run on the same server: (a) sequential requests/s (one blocking request at a time, as the
upstream captionqa task calls its reader), (b) the engine's requests/s, their ratio, and (b) as a
share of the server's capacity; then a second engine run over the same requests, which must make
0 calls (all answered from the cache).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency_server import LatencyServer  # noqa: E402


def reader_prompts(n: int) -> list[list[dict]]:
    """CaptionQA-reader-shaped requests: a system prompt, a caption and one MCQ each."""
    system = "You are given a detailed image description. Answer the multiple-choice question using only the description."
    return [
        [
            {"role": "system", "content": system},
            {"role": "user", "content": f"Description: a red car parked beside house {i // 50}.\nQuestion {i}: What colour is the car?\nA. red\nB. blue\nC. green\nD. Cannot answer from the caption\nAnswer:"},
        ]
        for i in range(n)
    ]


def sequential(base_url: str, prompts) -> float:
    from openai import OpenAI

    client = OpenAI(api_key="EMPTY", base_url=base_url, max_retries=0)
    start = time.perf_counter()
    for messages in prompts:
        client.chat.completions.create(model="reader", messages=messages, temperature=0, max_tokens=16)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--slots", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=32)
    args = parser.parse_args()

    from lmms_comparative.judges import Engine, EngineConfig

    prompts = reader_prompts(args.n)
    with LatencyServer(args.latency, args.slots) as base_url, tempfile.TemporaryDirectory() as tmp:
        config = EngineConfig(model="reader", base_url=base_url, concurrency=args.concurrency, max_tokens=16, cache_path=Path(tmp) / "cache.sqlite")
        t_seq = sequential(base_url, prompts)
        engine = Engine(config)
        engine.backend  # construct the client side (imports the openai package) before timing
        start = time.perf_counter()
        results = engine.run(prompts, desc="engine")
        t_engine = time.perf_counter() - start
        assert not any(r.failed for r in results), "the engine lost requests"
        rerun = Engine(config)
        start = time.perf_counter()
        rerun.run(prompts, desc="engine, rerun")
        t_rerun = time.perf_counter() - start

    n = args.n
    report = {
        "requests": n,
        "server_latency_s": args.latency,
        "concurrency": args.concurrency,
        "sequential_req_per_s": round(n / t_seq, 1),
        "engine_req_per_s": round(n / t_engine, 1),
        "engine_vs_sequential": round(t_seq / t_engine, 2),
        "server_capacity_req_per_s": round(args.slots / args.latency, 1),
        "engine_share_of_capacity": round(n / t_engine / (args.slots / args.latency), 3),
        "rerun_calls_made": rerun.stats.calls,
        "rerun_seconds": round(t_rerun, 2),
    }
    print(json.dumps(report, indent=2))
    print(
        f"engine / sequential: {report['engine_vs_sequential']}x; engine reaches {report['engine_share_of_capacity']:.0%} "
        f"of the server's capacity; rerun made {rerun.stats.calls} calls"
    )
    if rerun.stats.calls:
        sys.exit("the rerun made calls: the cache did not serve them")


if __name__ == "__main__":
    main()
