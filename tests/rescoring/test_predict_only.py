"""Generate on the GPUs, score anywhere: a ``--predict_only`` run of every benchmark calls no
endpoint (one is configured and listens), ``score`` then scores its samples with the reader at a
local server, equal item by item to a direct run of the same model with the same server, and the
scored folders verify PASS. A predict-only folder scored against other data is refused in one line."""

from __future__ import annotations

import json
import shutil

import pytest
import yaml
from helpers import base_env, build_roots, eval_args, read_run, run_cli, run_score, run_tool
from helpers.fake_openai import FakeOpenAI, any_scorer
from helpers.verifying import export, verdicts, verify

from lmms_comparative import preflight
from lmms_comparative.registry import BENCHMARKS, of_task

pytestmark = pytest.mark.e2e
TASKS = [b.smoke_task for b in BENCHMARKS]  # CaptionQA's asks the reader
# Fields of a samples line that are not scores (lmms-eval's hashes and inputs; predict-only's bypass).
NOT_SCORES = {
    "doc_id",
    "doc_hash",
    "input_media",
    "token_counts",
    "arguments",
    "input",
    "target",
    "resps",
    "filtered_resps",
    "bypass",
}


def _scores(samples: list[dict]) -> dict[int, dict]:
    return {row["doc_id"]: {k: v for k, v in row.items() if k not in NOT_SCORES} for row in samples}


@pytest.fixture(scope="module")
def runs(tmp_path_factory, hf_home):
    base = tmp_path_factory.mktemp("predict_only")
    roots = build_roots(base / "data", subtlebench={"per_category": 3}, compbench={"per_source": 3})
    env = base_env(hf_home, **roots, LMMS_COMPARATIVE_LLM_CACHE="off")
    with FakeOpenAI(any_scorer) as server:
        served = {**env, **server.every_llm_env()}
        generated = run_cli(
            eval_args("random_choice", ",".join(TASKS), base / "generated", "--predict_only"),
            env=served,
        )
        calls = (len(server.requests), server.listings, server.rejected)
        direct = run_cli(
            eval_args("random_choice", ",".join(TASKS), base / "direct"),
            env=served,
        )
        scored = {
            b.name: run_score(b.name, str(base / "generated"), "-o", str(base / "scored" / b.name), env=served)
            for b in BENCHMARKS
        }
    return base, env, roots, generated, calls, direct, scored


def test_a_predict_only_run_calls_no_endpoint_and_records_what_score_needs(runs):
    base, _env, _roots, generated, calls, _direct, _scored = runs
    assert generated.returncode == 0, generated.stderr[-3000:]
    assert calls == (0, 0, 0)  # no reader call, no preflight listing: the endpoint was never asked
    labels = ", ".join(
        sorted({n.label for n in preflight.needs_of(TASKS)})
    )  # the CaptionQA reader, and any judge a smoke task asks
    assert f"nothing is scored in this run, so {labels} is not checked" in generated.stdout + generated.stderr
    # The run's summary says how to score it, not an empty table and a report of nothing.
    said = generated.stdout + generated.stderr
    assert (
        "A --predict_only run: replies only, nothing scored, so no table." in said
        and f"lmms-comparative score subtlebench {base / 'generated'} -o scored/subtlebench" in said
    )
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
            assert (
                record["llm"]["CAPTIONQA_READER"]["endpoint_host"].startswith("127.0.0.1:")
                and record["llm_answers"]["count"] > 0
            )
    proc = verify(base / "scored", env)  # the reader's server is gone: answered from the logs
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert set(TASKS) <= set(verdicts(proc)) and all(v.startswith("PASS") for v in verdicts(proc).values())
    # export takes a scored folder like any other (fixture items: generated, so under a dataset id of one's own).
    proc = export(
        str(base / "scored" / "subtlebench"),
        "-o",
        str(base / "exported"),
        "--allow-subset",
        "--dataset-id",
        "subtlebench=someone/subtlebench-fixture",
        env=env,
    )
    assert proc.returncode == 0 and (base / "exported" / ".eval_results" / "subtlebench.yaml").is_file(), proc.stderr[
        -3000:
    ]


def test_a_predict_only_folder_scored_against_other_data_is_refused(runs, tmp_path):
    base, env, roots, *_ = runs
    other = tmp_path / "subtlebench"
    shutil.copytree(roots["SUBTLEBENCH_ROOT"], other)
    test_file = other / "data" / "test.jsonl"
    rows = [json.loads(line) for line in test_file.read_text().splitlines() if line.strip()]
    dropped = next(i for i, r in enumerate(rows) if r["category"] == "spatial")
    test_file.write_text(
        "".join(json.dumps(r) + "\n" for i, r in enumerate(rows) if i != dropped)
    )  # one spatial item fewer
    proc = run_score(
        "subtlebench", str(base / "generated"), "-o", str(tmp_path / "out"), env={**env, "SUBTLEBENCH_ROOT": str(other)}
    )
    assert proc.returncode == 1
    assert "the docs of subtlebench_sp at hand are not the ones the predictions were generated on" in proc.stderr, (
        proc.stderr[-2000:]
    )
    assert not list((tmp_path / "out").glob("**/*_results.json"))


def _results_file(folder):
    return sorted(folder.glob("**/*_results.json"))[-1]


def _edit_record(path, edit) -> None:
    results = json.loads(path.read_text())
    edit(results["lmms_comparative"])
    path.write_text(json.dumps(results))


def test_what_the_generating_run_claims_is_shown_as_its_claim_and_what_it_must_match_is_checked(runs, tmp_path):
    """The scored record carries the generating run's record and command line: the report names
    the run by the generating run's model and shows its decoding overrides, export's notes say the
    replies came from a separate run, and verify fails a generating record whose prompts or item
    order are not the ones scored (forged before ``score``, or in the scored record after it)."""
    base, env, _roots, *_ = runs
    task = next(t for t in TASKS if of_task(t).name == "subtlebench")
    # Honest twin: the module's scored folder verifies PASS (test above); it is named and labelled here.
    results = json.loads(_results_file(base / "scored" / "subtlebench").read_text())
    assert results["lmms_comparative"]["predictions"]["generated_by"] == {"model": "random_choice"}
    # A predict-only run that overrode the decoding, scored apart: the override is the scored run's protocol.
    overridden = run_cli(
        eval_args("random_choice", task, tmp_path / "gen_t07", "--predict_only", "--gen_kwargs", "temperature=0.7"),
        env=env,
    )
    assert overridden.returncode == 0, overridden.stderr[-3000:]
    scored = run_score("subtlebench", str(tmp_path / "gen_t07"), "-o", str(tmp_path / "scored_t07"), env=env)
    assert scored.returncode == 0, scored.stderr[-3000:]
    report = tmp_path / "report"
    proc = run_tool(
        "report",
        str(base / "scored" / "subtlebench"),
        str(tmp_path / "scored_t07"),
        "-o",
        str(report),
        "--no-html",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    shown = {r["model_args"]: r for r in json.loads((report / "report.json").read_text())["runs"]}
    assert sorted(r["overrides"].get("gen_kwargs", "") for r in shown.values()) == ["", "temperature=0.7"], shown
    assert all(r["name"].startswith("random_choice") for r in shown.values()), (
        shown
    )  # the generating run's model, not "scored: ..."
    markdown = (report / "report.md").read_text()
    assert (
        markdown.count("replies generated apart, by a --predict_only run whose results name the model `random_choice`")
        == 2
    ), markdown
    assert "overridden: `--gen_kwargs temperature=0.7`" in markdown
    exported = tmp_path / "exported"
    proc = export(
        str(base / "scored" / "subtlebench"),
        "-o",
        str(exported),
        "--allow-subset",
        "--dataset-id",
        "subtlebench=someone/fixture",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    entries = yaml.safe_load((exported / ".eval_results" / "subtlebench.yaml").read_text())
    assert entries and all(
        "replies from a separate --predict_only run (lmms-comparative " in e["notes"] and "decoding" not in e["notes"]
        for e in entries
    ), entries
    proc = export(
        str(tmp_path / "scored_t07"),
        "-o",
        str(tmp_path / "exported_t07"),
        "--allow-subset",
        "--dataset-id",
        "subtlebench=someone/fixture",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    entries = yaml.safe_load((tmp_path / "exported_t07" / ".eval_results" / "subtlebench.yaml").read_text())
    assert entries and all(
        "not the paper's decoding, as the run's settings give it: --gen_kwargs temperature=0.7" in e["notes"]
        for e in entries
    ), entries
    assert json.loads((report / "report.json").read_text())["runs"][0]["generated_by"]["model"] == "random_choice"

    # Forged before score: the generating record's prompt hash. score takes it (the item order holds); verify fails it.
    forged = tmp_path / "gen_forged"
    shutil.copytree(base / "generated", forged)
    _edit_record(_results_file(forged), lambda r: r["tasks"][task].update(prompts="0" * 64))
    proc = run_score("subtlebench", str(forged), "-o", str(tmp_path / "scored_forged"), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    proc = verify(tmp_path / "scored_forged", env)
    assert (
        proc.returncode == 1
        and "the generating (--predict_only) run's record has prompt hash 000000000000..., not the installed package's"
        in verdicts(proc)[task]
    ), proc.stdout[-3000:]
    # Forged after score: the item order in the scored record's copy of the generating record.
    after = tmp_path / "scored_after"
    shutil.copytree(base / "scored" / "subtlebench", after)
    for old in after.glob("**/*_verify.json"):
        old.unlink()
    _edit_record(
        _results_file(after),
        lambda r: r["predictions"]["generation"]["tasks"][task]["items"].update(order_sha256="f" * 64),
    )
    proc = verify(after, env)
    assert proc.returncode == 1 and "in an order other than the docs re-scored here" in verdicts(proc)[task], (
        proc.stdout[-3000:]
    )
