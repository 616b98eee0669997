"""The CaptionQA QA stage: our batched reader pass vs upstream lmms-eval's ``captionqa`` scoring path.

    python bench/captionqa_qa_stage.py [--per-domain 250] [--latency 0.1] [--slots 32] [--upstream-questions 300]

A generated CaptionQA copy in the official layout (5 scorable questions per image set, so the
default is 5,000 questions) and one caption per image set. Both paths talk to the same local
reader server (bench/latency_server.py: fixed latency per answer, ``slots`` answers at a time,
capacity = slots / latency):

- upstream: ``lmms_eval.tasks.captionqa.utils.captionqa_process_results`` (lmms-eval 0.7.3) per
  image set, which posts one question at a time; timed on the first ``--upstream-questions``
  questions (a sequential client's rate does not change with the count);
- ours: ``lmms_comparative.tasks.captionqa.qa_rows`` per domain, all questions through the engine.

Prints both rates in questions/s, their ratio, and our share of the server's capacity, beside the
share that a bare aiohttp client (no engine, one batch) reaches on the same server and machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from latency_server import LatencyServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-domain", type=int, default=250)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--slots", type=int, default=32)
    parser.add_argument("--concurrency", type=int, default=None, help="engine concurrency (default: slots)")
    parser.add_argument("--upstream-questions", type=int, default=300)
    args = parser.parse_args()

    from lmms_comparative.data import captionqa as data
    from lmms_comparative.data.fixtures import build_captionqa
    from lmms_comparative.judges import Engine
    from lmms_comparative.metrics.captionqa import DOMAINS
    from lmms_comparative.tasks import captionqa as ours

    with tempfile.TemporaryDirectory() as tmp, LatencyServer(args.latency, args.slots) as base_url:
        root = build_captionqa(Path(tmp) / "captionqa", per_domain=args.per_domain)
        os.environ.update(CAPTIONQA_ROOT=str(root), OPENAI_API_URL=base_url)
        perms = data.permutations(root)
        tables = {d: data.question_table(root, d) for d in DOMAINS}
        captions = {d: {entry_id: f"A caption of image set {entry_id}: shapes of several colours on a white background." for entry_id, _ in rows} for d, rows in tables.items()}
        n_questions = sum(1 for (entry_id, q_idx) in perms)

        # upstream lmms-eval 0.7.3: one blocking HTTP request per question
        from lmms_eval.tasks.captionqa import utils as upstream

        upstream.JUDGE_MODEL = "reader"
        done, start = 0, time.perf_counter()
        for domain in DOMAINS:
            for entry_id, questions in tables[domain]:
                shuffle = {str(q): perms[(entry_id, q)] for q in range(len(questions)) if (entry_id, q) in perms}
                doc = {"id": entry_id, "questions": questions, "shuffle_perms": json.dumps(shuffle)}
                done += len(upstream.captionqa_process_results(doc, [captions[domain][entry_id]])["captionqa_score"])
                if done >= args.upstream_questions:
                    break
            if done >= args.upstream_questions:
                break
        upstream_rate = done / (time.perf_counter() - start)

        # ours: the whole QA stage, every domain, through the engine (fresh cache)
        engine = Engine.from_env(
            "CAPTIONQA_READER",
            defaults=ours.READER_DEFAULTS,
            model="reader",
            base_url=base_url,
            concurrency=args.concurrency or args.slots,
            cache_path=Path(tmp) / "cache.sqlite",
        )
        engine.backend  # construct the client side (imports the openai package) before timing
        start = time.perf_counter()
        rows = [row for d in DOMAINS for row in ours.qa_rows(captions[d], d, engine)[0]]
        ours_seconds = time.perf_counter() - start
        assert len(rows) == n_questions and not any(r["failed"] for r in rows)
        ours_rate = n_questions / ours_seconds

        # The ceiling on this server and machine: a bare aiohttp client (no engine, no cache, no
        # scoring) posting the same number of requests at the same concurrency in one batch.
        body = json.dumps({"model": "reader", "messages": ours.reader_messages(captions["natural"][tables["natural"][0][0]], "Q?", ["A", "B"])}).encode()
        bare_rate = n_questions / asyncio.run(bare_client_seconds(base_url, body, n_questions, args.concurrency or args.slots))

    capacity = args.slots / args.latency
    report = {
        "questions": n_questions,
        "server_latency_s": args.latency,
        "server_slots": args.slots,
        "server_capacity_q_per_s": round(capacity, 1),
        "upstream_q_per_s": round(upstream_rate, 2),
        "upstream_measured_on": done,
        "ours_q_per_s": round(ours_rate, 1),
        "ours_seconds": round(ours_seconds, 2),
        "ours_vs_upstream": round(ours_rate / upstream_rate, 1),
        "ours_share_of_capacity": round(ours_rate / capacity, 3),
        "bare_client_q_per_s": round(bare_rate, 1),
        "bare_client_share_of_capacity": round(bare_rate / capacity, 3),
    }
    print(json.dumps(report, indent=2))
    print(
        f"ours / upstream: {report['ours_vs_upstream']}x; ours reaches {report['ours_share_of_capacity']:.1%} of the server's capacity "
        f"(a bare HTTP client: {report['bare_client_share_of_capacity']:.1%})"
    )


async def bare_client_seconds(base_url: str, body: bytes, n: int, concurrency: int) -> float:
    import aiohttp

    limit = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession() as session:

        async def one() -> None:
            async with limit, session.post(f"{base_url}/chat/completions", data=body, headers={"Content-Type": "application/json"}) as response:
                json.loads(await response.read())

        start = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(n)))
        return time.perf_counter() - start


if __name__ == "__main__":
    main()
