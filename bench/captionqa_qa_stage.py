"""The CaptionQA QA stage, side by side on one server: upstream lmms-eval's ``captionqa`` scoring
as lmms-eval runs it, ours as our tasks run it, and a bare aiohttp client.

    python bench/captionqa_qa_stage.py [--per-domain 250] [--latency 0.1] [--slots 32] [--runs 3]
                                       [--upstream-workers 4 32 64] [--upstream-questions 1000:4]

A generated CaptionQA copy in the official layout (5 scorable questions per image set: 5,000
questions at the default size) and one caption per image set. One local reader server
(bench/latency_server.py: a fixed latency per answer, ``--slots`` answers at a time, so its
capacity is slots / latency; it requires a key) answers every client in turn, in each run:

- upstream at N workers: ``lmms_eval.tasks.captionqa.utils.captionqa_process_results`` (the
  installed lmms-eval) mapped over the docs by ``lmms_eval.evaluator._thread_map_ordered``, the
  pool lmms-eval's evaluator runs ``process_results`` in (``--process_docs_parallel``: 4 by
  default; 32 matches the server's 32 slots; 64 keeps a queue waiting at the server, so no slot
  ever idles between a worker's requests). It posts one question at a time per worker, with no
  key (its launcher's server needs none; our server serves key-less requests and counts them).
  ``--upstream-questions 1000:4`` times 4 workers on the first 1,000 questions only (its rate is
  flat in the count; the whole set would take minutes);
- ours: ``lmms_comparative.benchmarks.captionqa.hooks.qa_rows`` for each domain in turn, each with the
  engine our aggregation builds (``reader_engine()``, settings from the environment, a fresh
  cache file per run), as lmms-eval calls our four domain aggregations;
- bare: an aiohttp client posting the same request bodies (pre-encoded) at the same
  concurrency, no engine, cache or scoring: the practical ceiling of a client on this machine.

Every client's requests are counted by the server: each question must reach it exactly once, and
ours must carry the key. Prints every rate (questions/s), our ratio to the bare client and to
upstream at each worker count, per run, then min/median/max over the runs, and exits non-zero if
a client lost or repeated a question.
"""

from __future__ import annotations

import argparse
import asyncio
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


def upstream_docs(tables, perms, captions, domains):
    """(doc, caption) in upstream's doc format: id, questions and the shuffle permutations."""
    docs = []
    for domain in domains:
        for entry_id, questions in tables[domain]:
            shuffle = {str(q): perms[(entry_id, q)] for q in range(len(questions)) if (entry_id, q) in perms}
            docs.append(
                (
                    {"id": entry_id, "questions": questions, "shuffle_perms": json.dumps(shuffle)},
                    captions[domain][entry_id],
                    len(shuffle),
                )
            )
    return docs


def run_upstream(docs, workers: int) -> tuple[float, int]:
    from lmms_eval.evaluator import _thread_map_ordered
    from lmms_eval.tasks.captionqa import utils as upstream

    start = time.perf_counter()
    out = _thread_map_ordered(
        lambda item: upstream.captionqa_process_results(item[0], [item[1]]), docs, max_workers=workers
    )
    seconds = time.perf_counter() - start
    return seconds, sum(len(r["captionqa_score"]) for r in out)


def run_ours(captions, domains, cache_path: Path) -> tuple[float, int, int]:
    from lmms_comparative.benchmarks.captionqa import hooks as ours

    os.environ["LMMS_COMPARATIVE_LLM_CACHE"] = str(cache_path)
    start = time.perf_counter()
    rows, failed = [], 0
    for domain in domains:  # one QA pass per domain task, as lmms-eval runs our aggregations
        domain_rows, domain_failed = ours.qa_rows(captions[domain], domain, ours.reader_engine())
        rows += domain_rows
        failed += domain_failed
    return time.perf_counter() - start, len(rows), failed


async def bare_client_seconds(url: str, bodies: list[bytes], concurrency: int) -> float:
    import aiohttp

    limit = asyncio.Semaphore(concurrency)
    headers = {"Content-Type": "application/json", "Authorization": f"Bearer {KEY}"}
    async with aiohttp.ClientSession() as session:

        async def one(body: bytes) -> None:
            async with limit, session.post(url, data=body, headers=headers) as response:
                json.loads(await response.read())

        start = time.perf_counter()
        await asyncio.gather(*(one(b) for b in bodies))
        return time.perf_counter() - start


def check(name: str, stats: dict, questions: int, keyed: bool, problems: list) -> None:
    if stats["answered"] != questions or stats["distinct_bodies"] != questions or stats["refused"]:
        problems.append(
            f"{name}: {questions} questions, server answered {stats['answered']} "
            f"({stats['distinct_bodies']} distinct, {stats['refused']} refused)"
        )
    if keyed and stats["with_key"] != questions:
        problems.append(f"{name}: {stats['without_key']} request(s) without the key")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-domain", type=int, default=250)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--slots", type=int, default=32)
    parser.add_argument(
        "--concurrency", type=int, default=None, help="our engine's and the bare client's concurrency (default: slots)"
    )
    parser.add_argument("--upstream-workers", type=int, nargs="+", default=[4, 32, 64])
    parser.add_argument(
        "--upstream-questions",
        default="1000:4",
        help="COUNT:WORKERS[,COUNT:WORKERS]: time upstream at WORKERS on the first COUNT questions only",
    )
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    concurrency = args.concurrency or args.slots
    os.environ.setdefault("TQDM_DISABLE", "1")  # the engine's progress bars
    subsets = {int(w): int(n) for n, w in (part.split(":") for part in args.upstream_questions.split(",") if part)}

    from lmms_eval.tasks.captionqa import utils as upstream

    from lmms_comparative.benchmarks.captionqa import data
    from lmms_comparative.benchmarks.captionqa import hooks as ours
    from lmms_comparative.benchmarks.captionqa.fixture import build as build_captionqa
    from lmms_comparative.benchmarks.captionqa.scoring import DOMAINS
    from lmms_comparative.judges.cache import encode_request

    runs = []
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, LatencyServer(args.latency, args.slots, api_key=KEY) as base_url:
        root = build_captionqa(Path(tmp) / "captionqa", per_domain=args.per_domain)
        os.environ.update(
            CAPTIONQA_ROOT=str(root),
            OPENAI_API_URL=base_url,  # upstream's reader URL
            CAPTIONQA_READER_BASE_URL=base_url,
            CAPTIONQA_READER_API_KEY=KEY,
            CAPTIONQA_READER_MODEL="reader",
            CAPTIONQA_READER_CONCURRENCY=str(concurrency),
        )
        upstream.JUDGE_MODEL = "reader"
        perms = data.permutations(root)
        tables = {d: data.question_table(root, d) for d in DOMAINS}
        captions = {
            d: {
                entry_id: f"A caption of image set {entry_id}: shapes of several colours on a white background."
                for entry_id, _ in rows
            }
            for d, rows in tables.items()
        }
        docs = upstream_docs(tables, perms, captions, DOMAINS)
        n_questions = sum(n for _, _, n in docs)
        # The bare client's bodies: the very requests our engine sends.
        params = {"temperature": 0.0, "max_tokens": 4}
        bodies = []
        for domain in DOMAINS:
            questions = data.questions_by_id(root, domain)
            for entry_id, caption in captions[domain].items():
                for q_idx, q in enumerate(questions.get(entry_id, [])):
                    if (entry_id, q_idx) in perms:
                        options = ours.rules.choices_with_cannot(q["question"], q["choices"])
                        bodies.append(
                            encode_request(
                                "",
                                "reader",
                                ours.reader_messages(
                                    caption, q["question"], [options[i] for i in perms[(entry_id, q_idx)]]
                                ),
                                params,
                            )[1]
                        )
        assert len(bodies) == n_questions
        _ = (
            ours.reader_engine().backend
        )  # import the openai package before timing (every client's imports are outside the timing)
        server_stats(base_url)

        for run in range(1, args.runs + 1):
            rates = {}
            for workers in args.upstream_workers:
                subset, total = [], 0
                for doc in docs:
                    if workers in subsets and total >= subsets[workers]:
                        break
                    subset.append(doc)
                    total += doc[2]
                seconds, _ = run_upstream(subset, workers)
                check(f"upstream x{workers}", server_stats(base_url), total, False, problems)
                rates[f"upstream_{workers}_workers"] = (total / seconds, total)
            seconds, rows, failed = run_ours(captions, DOMAINS, Path(tmp) / f"cache-{run}.sqlite")
            check("ours", server_stats(base_url), n_questions, True, problems)
            if rows != n_questions or failed:
                problems.append(f"ours: {rows} rows, {failed} failed")
            rates["ours"] = (n_questions / seconds, n_questions)
            seconds = asyncio.run(bare_client_seconds(f"{base_url}/chat/completions", bodies, concurrency))
            check("bare", server_stats(base_url), n_questions, True, problems)
            rates["bare_aiohttp"] = (n_questions / seconds, n_questions)
            # A rerun on the same cache makes no call.
            run_ours(captions, DOMAINS, Path(tmp) / f"cache-{run}.sqlite")
            if server_stats(base_url)["answered"]:
                problems.append("ours: a rerun on the same cache made calls")
            runs.append({name: rate for name, (rate, _) in rates.items()})
            ratios = ratios_of(runs[-1], args.upstream_workers)
            print(
                f"run {run}: "
                + ", ".join(f"{name} {rate:.1f} q/s ({count} q)" for name, (rate, count) in rates.items()),
                flush=True,
            )
            print("        " + ", ".join(f"{name} {value:.3f}" for name, value in ratios.items()), flush=True)

    capacity = args.slots / args.latency
    summary = {
        "questions": n_questions,
        "server": {"latency_s": args.latency, "slots": args.slots, "capacity_q_per_s": capacity},
        "concurrency": concurrency,
        "runs": len(runs),
    }
    table = {}
    for name in runs[0]:
        values = [r[name] for r in runs]
        table[name + "_q_per_s"] = spread(values)
    for name in ratios_of(runs[0], args.upstream_workers):
        table[name] = spread([ratios_of(r, args.upstream_workers)[name] for r in runs])
    print(json.dumps(summary))
    print(f"min / median / max over {len(runs)} run(s):")
    for name, (lo, med, hi) in table.items():
        print(f"  {name:32s} {lo:10.3f} {med:10.3f} {hi:10.3f}")
    targets = [("ours_share_of_bare", 0.95)] + [
        (f"ours_vs_upstream_{w}_workers", 1.05) for w in args.upstream_workers if w >= args.slots
    ]
    for name, target in targets:
        lo, med, hi = table[name]
        print(
            f"{name}: min {lo:.3f}, median {med:.3f}, max {hi:.3f} (issue's target >= {target}: "
            f"{'met' if lo >= target else 'met in the median' if med >= target else 'NOT met'})"
        )
    if problems:
        sys.exit("problems: " + "; ".join(problems))


def ratios_of(rates: dict, workers: list[int]) -> dict:
    out = {"ours_share_of_bare": rates["ours"] / rates["bare_aiohttp"]}
    for w in workers:
        out[f"ours_vs_upstream_{w}_workers"] = rates["ours"] / rates[f"upstream_{w}_workers"]
    out["bare_vs_upstream_best"] = rates["bare_aiohttp"] / max(rates[f"upstream_{w}_workers"] for w in workers)
    return out


def spread(values: list[float]) -> list[float]:
    return [round(min(values), 3), round(statistics.median(values), 3), round(max(values), 3)]


if __name__ == "__main__":
    main()
