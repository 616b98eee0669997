"""Generate on the GPUs, score anywhere: a ``--predict_only`` run of every benchmark calls no
endpoint (one is configured and listens), ``score`` then scores its samples with the reader at a
local server, equal item by item to a direct run of the same model with the same server, and the
scored folders verify PASS. A predict-only folder scored against other data is refused in one line."""

from __future__ import annotations

import json
import shutil

import pytest
from helpers import base_env, build_roots, read_run, run_cli, run_score
from helpers.fake_openai import FakeOpenAI, any_scorer
from helpers.verifying import export, verdicts, verify

from lmms_comparative import preflight
from lmms_comparative.registry import BENCHMARKS, of_task

pytestmark = pytest.mark.e2e
TASKS = [b.smoke_task for b in BENCHMARKS]  # CaptionQA's asks the reader
# Fields of a samples line that are not scores (lmms-eval's hashes and inputs; predict-only's bypass).
NOT_SCORES = {"doc_id", "doc_hash", "input_media", "token_counts", "arguments", "input", "target", "resps", "filtered_resps", "bypass"}


def _scores(samples: list[dict]) -> dict[int, dict]:
    return {row["doc_id"]: {k: v for k, v in row.items() if k not in NOT_SCORES} for row in samples}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, hf_home):
    base = tmp_path_factory.mktemp("predict_only")
    roots = build_roots(base / "data", subtlebench={"per_category": 3}, compbench={"per_source": 3})
    env = base_env(hf_home, **roots, LMMS_COMPARATIVE_LLM_CACHE="off")
    with FakeOpenAI(any_scorer) as server:
        served = {**env, **server.every_llm_env()}
        generated = run_cli(["--model", "random_choice", "--tasks", ",".join(TASKS), "--output_path", str(base / "generated"), "--log_samples", "--predict_only"], env=served)
        calls = (len(server.requests), server.listings, server.rejected)
        direct = run_cli(["--model", "random_choice", "--tasks", ",".join(TASKS), "--output_path", str(base / "direct"), "--log_samples"], env=served)
        scored = {b.name: run_score(b.name, str(base / "generated"), "-o", str(base / "scored" / b.name), env=served) for b in BENCHMARKS}
    return base, env, roots, generated, calls, direct, scored


def test_a_predict_only_run_calls_no_endpoint_and_records_what_score_needs(runs):
    base, _env, _roots, generated, calls, _direct, _scored = runs
    assert generated.returncode == 0, generated.stderr[-3000:]
    assert calls == (0, 0, 0)  # no reader call, no preflight listing: the endpoint was never asked
    labels = ", ".join(sorted({n.label for n in preflight.needs_of(TASKS)}))  # the CaptionQA reader, and any judge a smoke task asks
    assert f"nothing is scored in this run, so {labels} is not checked" in generated.stdout + generated.stderr
    # The run's summary says how to score it, not an empty table and a report of nothing.
    said = generated.stdout + generated.stderr
    assert "A --predict_only run: replies only, nothing scored, so no table." in said and f"lmms-comparative score subtlebench {base / 'generated'} -o scored/subtlebench" in said
    assert f"lmms-comparative report {base / 'generated'} -o report/" not in said
    results, samples = read_run(base / "generated", generated)
    record = results["lmms_comparative"]
    assert record["predict_only"] is True and set(record["tasks"]) == set(TASKS)
    for task in TASKS:
        items = record["tasks"][task]["items"]
        assert items["count"] == len(samples[task]) and len(items["order_sha256"]) == 64
    proc = verify(base / "generated", base_env(base / "hf_verify", **{k: str(v) for k, v in _roots.items()}))
    assert proc.returncode == 1 and "a --predict_only run: replies, no scores to check" in proc.stdout


def test_score_of_the_predict_only_samples_equals_the_direct_run_item_by_item(runs):
    base, env, _roots, _generated, _calls, direct, scored = runs
    assert direct.returncode == 0, direct.stderr[-3000:]
    direct_results, direct_samples = read_run(base / "direct", direct)
    for name, proc in scored.items():
        assert proc.returncode == 0, name + proc.stderr[-3000:]
        results, samples = read_run(base / "scored" / name, proc)
        tasks = [t for t in TASKS if of_task(t).name == name]
        for task in tasks:
            assert results["results"][task] == direct_results["results"][task], task
            assert _scores(samples[task]) == _scores(direct_samples[task]), task
        record = results["lmms_comparative"]
        assert record["predictions"]["generation"]["predict_only"] is True  # both steps recorded
        if name == "captionqa":
            assert record["llm"]["CAPTIONQA_READER"]["endpoint_host"].startswith("127.0.0.1:") and record["llm_answers"]["count"] > 0
    proc = verify(base / "scored", env)  # the reader's server is gone: answered from the logs
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert set(TASKS) <= set(verdicts(proc)) and all(v.startswith("PASS") for v in verdicts(proc).values())
    # export takes a scored folder like any other (fixture items: generated, so under a dataset id of one's own).
    proc = export(str(base / "scored" / "subtlebench"), "-o", str(base / "exported"), "--allow-subset", "--dataset-id", "subtlebench=someone/subtlebench-fixture", env=env)
    assert proc.returncode == 0 and (base / "exported" / ".eval_results" / "subtlebench.yaml").is_file(), proc.stderr[-3000:]


def test_a_predict_only_folder_scored_against_other_data_is_refused(runs, tmp_path):
    base, env, roots, *_ = runs
    other = tmp_path / "subtlebench"
    shutil.copytree(roots["SUBTLEBENCH_ROOT"], other)
    test_file = other / "data" / "test.jsonl"
    rows = [json.loads(line) for line in test_file.read_text().splitlines() if line.strip()]
    dropped = next(i for i, r in enumerate(rows) if r["category"] == "spatial")
    test_file.write_text("".join(json.dumps(r) + "\n" for i, r in enumerate(rows) if i != dropped))  # one spatial item fewer
    proc = run_score("subtlebench", str(base / "generated"), "-o", str(tmp_path / "out"), env={**env, "SUBTLEBENCH_ROOT": str(other)})
    assert proc.returncode == 1
    assert "the docs of subtlebench_sp at hand are not the ones the predictions were generated on" in proc.stderr, proc.stderr[-2000:]
    assert not list((tmp_path / "out").glob("**/*_results.json"))
