"""``lmms-comparative verify`` through the real CLI: it passes an untouched results folder (a model's
run and a ``score`` run), and fails each kind of tampering, naming the task and the problem."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers import read_run, run_cli, run_report, run_score
from helpers.verifying import files as _files
from helpers.verifying import lines as _lines
from helpers.verifying import roots_env as _env
from helpers.verifying import verdicts as _verdicts
from helpers.verifying import verify as _verify
from helpers.verifying import write_lines as _write

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def run(four_benchmarks_run, tmp_path_factory):
    """A copy of the shared run: verify writes its verdicts beside the results."""
    out = tmp_path_factory.mktemp("verify_run") / "run"
    shutil.copytree(four_benchmarks_run, out)
    return out


def test_an_untouched_run_passes(run, hf_home, fixture_roots, tmp_path):
    env = _env(hf_home, fixture_roots)
    proc = _verify(run, env)
    verdicts = _verdicts(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert {
        "subtlebench_at",
        "subtlebench_ac",
        "vlm2bench_gc_mat",
        "vlm2bench_pc_grp",
        "compbench_attribute_vaw",
        "vidi_granular",
    } <= set(verdicts)
    assert all(line.startswith("PASS") for line in verdicts.values()), verdicts
    assert "verify: every task holds" in proc.stdout
    # The report shows the verdict, while the results file is the one verified.
    assert run_report(str(run), "-o", str(tmp_path / "report")).returncode == 0
    assert "| PASS (" in (tmp_path / "report" / "report.md").read_text()
    # That each benchmark's score run of this run verifies too is in test_score (same score runs).


def test_each_tampering_fails_and_is_named(run, hf_home, fixture_roots, tmp_path):
    folder = tmp_path / "tampered"
    shutil.copytree(run, folder)
    results_file, samples = _files(folder)
    results = json.loads(results_file.read_text())
    # An edited metric.
    results["results"]["subtlebench_at"]["accuracy,none"] += 0.125
    # A results file recorded on another data revision (CompBench's attribute task) and item set (VLM2's gc_mat).
    results["lmms_comparative"]["tasks"]["compbench_attribute_vaw"]["data"]["fingerprint"] = "0" * 64
    results["lmms_comparative"]["tasks"]["vlm2bench_gc_mat"]["items"]["sha256"] = "1" * 64
    results_file.write_text(json.dumps(results))
    # A dropped sample, a duplicated one.
    rows = _lines(samples["subtlebench_sp"])
    _write(samples["subtlebench_sp"], rows[1:])
    rows = _lines(samples["subtlebench_st"])
    _write(samples["subtlebench_st"], rows + rows[:1])
    # A reply changed after scoring: another letter than the one the sample's scores logged.
    rows = _lines(samples["subtlebench_em"])
    logged = rows[0]["accuracy"]["parsed"]
    other = next(letter for letter in "ABCD" if letter != logged)
    rows[0]["filtered_resps"] = other
    rows[0].pop("resps", None)
    _write(samples["subtlebench_em"], rows)
    # Samples from another task under this task's name.
    shutil.copy2(samples["subtlebench_at"], samples["subtlebench_ac"])

    proc = _verify(folder, _env(hf_home, fixture_roots))
    verdicts = _verdicts(proc)
    assert proc.returncode == 1 and "verify: NOT every task holds" in proc.stdout
    assert (
        verdicts["subtlebench_at"].startswith("FAIL")
        and "subtlebench_at accuracy,none: the results JSON says" in verdicts["subtlebench_at"]
    )
    assert verdicts["subtlebench_sp"].startswith("FAIL") and "not the recorded item set" in verdicts["subtlebench_sp"]
    assert verdicts["subtlebench_st"].startswith("FAIL") and "appear more than once" in verdicts["subtlebench_st"]
    assert (
        verdicts["subtlebench_em"].startswith("FAIL")
        and "score differently from their logged scores" in verdicts["subtlebench_em"]
    )
    assert verdicts["subtlebench_ac"].startswith("FAIL") and "not the recorded item set" in verdicts["subtlebench_ac"]
    assert (
        verdicts["compbench_attribute_vaw"].startswith("FAIL")
        and "another copy or revision of the data" in verdicts["compbench_attribute_vaw"]
    )
    assert (
        verdicts["vlm2bench_gc_mat"].startswith("FAIL") and "not the recorded item set" in verdicts["vlm2bench_gc_mat"]
    )
    assert run_report(str(folder), "-o", str(tmp_path / "report")).returncode == 0
    assert "| FAIL (" in (tmp_path / "report" / "report.md").read_text()
    results_file.write_text(results_file.read_text() + " ")  # changed after verify checked it
    assert run_report(str(folder), "-o", str(tmp_path / "report2")).returncode == 0
    assert (
        f"STALE: {results_file.name} changed after `lmms-comparative verify` checked the run"
        in (tmp_path / "report2" / "report.md").read_text()
    )
    untouched = [
        t
        for t in ("subtlebench_qn", "subtlebench_ql", "compbench_existence_spotdiff", "vlm2bench_pc_grp")
        if t in verdicts
    ]
    assert untouched and all(verdicts[t].startswith("PASS") for t in untouched), verdicts


def test_a_folder_without_provenance_or_data_is_not_passed(run, hf_home, fixture_roots, tmp_path):
    folder = tmp_path / "old"
    shutil.copytree(run, folder)
    results_file, _ = _files(folder)
    results = json.loads(results_file.read_text())
    results.pop("lmms_comparative")
    results_file.write_text(json.dumps(results))
    proc = _verify(folder, _env(hf_home, fixture_roots))
    assert proc.returncode == 1 and "no lmms_comparative record" in proc.stdout
    # The data not at hand: nothing is passed that could not be re-scored.
    env = _env(hf_home, fixture_roots)
    env.pop("COMPBENCH_ROOT")
    proc = _verify(run, env)
    verdicts = _verdicts(proc)
    assert proc.returncode == 1
    assert (
        verdicts["compbench_attribute_vaw"].startswith("UNVERIFIED")
        and "set COMPBENCH_ROOT" in verdicts["compbench_attribute_vaw"]
    )
    assert (
        f"(the run read {Path(fixture_roots['COMPBENCH_ROOT']).resolve()}: that folder, or a copy of it)"
        in verdicts["compbench_attribute_vaw"]
    )
    assert verdicts["subtlebench_at"].startswith("PASS")


def test_an_llm_scored_run_is_re_scored_from_its_logged_answers_without_the_endpoint(hf_home, fixture_roots, tmp_path):
    """CaptionQA's reader answers through a local server during the run; ``verify`` runs after the
    server is gone, so any call it made would fail and change the scores."""
    from helpers.fake_openai import FakeOpenAI, message_text

    def respond(body):
        text = message_text(body)
        return "A. yes" if "Question:" in text and len(text) % 2 else "B"

    out = tmp_path / "run"
    with FakeOpenAI(respond) as server:
        env = _env(hf_home, fixture_roots, **server.judge_env("CAPTIONQA_READER"), LMMS_COMPARATIVE_LLM_CACHE="off")
        proc = run_cli(
            [*server.model_cli, "--tasks", "captionqa_simple", "--output_path", str(out), "--log_samples"], env=env
        )
        served = len(server.requests)
        scored = run_score(
            "captionqa", str(out), "-o", str(tmp_path / "scored"), env=env
        )  # a score run, its reader answering too
        assert scored.returncode == 0, scored.stderr[-3000:]
    results, _ = read_run(out, proc)
    record = results["lmms_comparative"]
    assert (
        record["llm"]["CAPTIONQA_READER"]["endpoint_host"].startswith("127.0.0.1:")
        and record["llm_answers"]["count"] > 0
    )
    answers = next(out.glob("**/*_llm_answers.jsonl"))
    assert served > record["llm_answers"]["count"]  # the model's captions and the reader's answers
    proc = _verify(out, env)  # the server is closed now
    verdicts = _verdicts(proc)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-2000:]
    assert {f"captionqa_simple_{d}" for d in ("natural", "document", "ecommerce", "embodiedai")} <= set(verdicts)
    assert all(line.startswith("PASS") for line in verdicts.values()), verdicts
    proc = _verify(tmp_path / "scored", env)  # the score run, re-scored from its own answers log
    assert (
        proc.returncode == 0 and _verdicts(proc) and all(line.startswith("PASS") for line in _verdicts(proc).values())
    ), proc.stdout
    # The reader's log (what CaptionQA's compare and item browser read), edited after the run: re-derived, so it fails.
    edited = tmp_path / "reader_edited"
    shutil.copytree(out, edited, ignore=shutil.ignore_patterns("*_verify.json"))
    reader = next(edited.glob("**/*_reader_captionqa_simple_natural.jsonl"))
    rows = _lines(reader)
    rows[0]["score"] = 0.0 if rows[0].get("score") else 1.0
    _write(reader, rows)
    proc = _verify(edited, env)
    found = _verdicts(proc)
    assert (
        proc.returncode == 1
        and found["captionqa_simple_natural"].startswith("FAIL")
        and "its reader log" in found["captionqa_simple_natural"]
    ), proc.stdout
    assert found["captionqa_simple_document"].startswith("PASS"), found  # the untouched logs beside it
    # The record's llm entry deleted, an endpoint configured in the maintainer's shell (OPENAI_* and
    # the reader's own settings): verify calls nothing and says why it cannot re-score.
    forged = tmp_path / "no_llm_entry"
    shutil.copytree(out, forged, ignore=shutil.ignore_patterns("*_verify.json"))
    results_file = next(forged.glob("**/*_results.json"))
    results = json.loads(results_file.read_text())
    del results["lmms_comparative"]["llm"]
    results_file.write_text(json.dumps(results))
    with FakeOpenAI(respond) as live:
        shell = {
            **env,
            **live.judge_env("CAPTIONQA_READER"),
            "OPENAI_API_KEY": live.api_key,
            "OPENAI_API_BASE": live.base_url,
        }
        proc = _verify(forged, shell)
        assert live.requests == [] and live.listings == 0 and live.rejected == 0
    lines = [line for line in _verdicts(proc).values() if "captionqa_simple_" in line]
    assert (
        proc.returncode == 1
        and lines
        and all(line.startswith("UNVERIFIED") and "no llm entry for CAPTIONQA_READER" in line for line in lines)
    ), proc.stdout
    # An answers log edited after the run is not the one recorded.
    rows = _lines(answers)
    rows[0]["text"] = "D" if rows[0]["text"] != "D" else "C"
    _write(answers, rows)
    proc = _verify(out, env)
    assert proc.returncode == 1 and "is not the one the run wrote" in proc.stdout
    answers.unlink()
    proc = _verify(out, env)
    assert proc.returncode == 1 and "UNVERIFIED" in proc.stdout and "answers log" in proc.stdout
