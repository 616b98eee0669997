"""CaptionQA through the real lmms-eval CLI: captions from the local server, then the reader."""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import assert_group_interval, assert_interval, base_env, read_run, run_cli
from helpers.captionqa_runs import DOMAINS, READER_MODELS, expected_rows, fixture_entries, make_responder
from helpers.fake_openai import TEST_KEY, FakeOpenAI, message_images, message_text

from lmms_comparative.benchmarks.captionqa import data, prompts
from lmms_comparative.benchmarks.captionqa import scoring as rules
from lmms_comparative.benchmarks.captionqa.fixture import build as build_captionqa


@pytest.fixture(scope="module")
def cqa_root(tmp_path_factory) -> Path:
    return build_captionqa(tmp_path_factory.mktemp("captionqa"), per_domain=3)


@pytest.fixture(scope="module")
def server_run(cqa_root, hf_home, tmp_path_factory):
    entries = fixture_entries(cqa_root)
    failing = {entries["doc_002"][0]["question"]}  # one reader call keeps failing
    out = tmp_path_factory.mktemp("cqa_run")
    with FakeOpenAI(make_responder(entries, failing), models=READER_MODELS) as server:
        env = base_env(
            hf_home,
            CAPTIONQA_ROOT=str(cqa_root),
            **server.judge_env("CAPTIONQA_READER"),
            CAPTIONQA_READER_MODEL="reader-llm",
            LMMS_COMPARATIVE_LLM_CACHE=str(out / "llm_cache.sqlite"),
            LMMS_COMPARATIVE_LLM_MAX_RETRIES="1",
            LMMS_COMPARATIVE_MAX_FAILED="0.2",
        )
        proc = run_cli(
            [*server.model_cli, "--tasks", "captionqa_simple", "--output_path", str(out / "results"), "--log_samples"],
            env=env,
        )
        requests = list(server.requests)
        (out / "server_url").write_text(server.judge_env("CAPTIONQA_READER")["CAPTIONQA_READER_BASE_URL"])
    results, samples = read_run(out / "results", proc)
    return SimpleNamespace(
        entries=entries, failing=failing, requests=requests, results=results, samples=samples, out=out, proc=proc
    )


@pytest.mark.e2e
def test_scores_match_the_reader_policy(server_run):
    entries, failing, requests, results, _samples = (
        server_run.entries,
        server_run.failing,
        server_run.requests,
        server_run.results,
        server_run.samples,
    )
    for domain in DOMAINS:
        rows, _ = expected_rows(entries, requests, failing, domain)
        row = results["results"][f"captionqa_simple_{domain}"]
        n = len(rows)
        assert row["score,none"] == pytest.approx(sum(r["score"] for r in rows) / n)
        assert row["accuracy,none"] == pytest.approx(sum(r["correct"] for r in rows) / n)
        assert row["cannot_rate,none"] == pytest.approx(sum(r["cannot"] for r in rows) / n)
        assert row["counts,none"]["scored"] == n
        assert row["counts,none"]["reader_failed"] == (1 if domain == "document" else 0)
        cats = defaultdict(list)
        for r in rows:
            cats[r["category"]].append(r["score"])
        assert {k: v["score"] for k, v in row["by_category,none"].items()} == pytest.approx(
            {k: sum(v) / len(v) for k, v in cats.items()}
        )
    overall = results["groups"]["captionqa_simple"]["score,none"]
    assert overall == pytest.approx(sum(results["results"][f"captionqa_simple_{d}"]["score,none"] for d in DOMAINS) / 4)
    # 95% intervals: per domain over images (each with its questions), Overall from the domains.
    parts = []
    for domain in DOMAINS:
        row = results["results"][f"captionqa_simple_{domain}"]
        assert row["ci95,none"]["unit"] == "image"
        for metric in ("score", "accuracy", "cannot_rate"):
            assert_interval(row["ci95,none"], metric, row[f"{metric},none"])
        parts.append(row["ci95,none"])
    assert_group_interval(results["groups"]["captionqa_simple"]["ci95,none"], parts, "score")


@pytest.mark.e2e
def test_reader_sees_official_prompts_and_the_all_split_order(server_run, cqa_root):
    entries, failing, requests = server_run.entries, server_run.failing, server_run.requests
    reader = [b for b in requests if not message_images(b)]
    assert all(b["messages"][0] == {"role": "system", "content": prompts.READER_SYSTEM_PROMPT} for b in reader)
    assert all(b["temperature"] == 0.0 and b["max_tokens"] == 4 and b["model"] == "reader-llm" for b in reader)
    _, shown = expected_rows(entries, requests, failing, "natural")
    walk_all = rules.official_permutations(data.question_table(cqa_root, "all"))
    walk_domains = rules.official_permutations([(i, entries[i]) for i in entries])  # domain order
    differs = 0
    for (entry_id, q_idx), perm in walk_all.items():
        q = entries[entry_id][q_idx]
        options = rules.choices_with_cannot(q["question"], q["choices"])
        if q["question"] in shown:
            assert shown[q["question"]] == [options[i] for i in perm]
        differs += walk_domains[(entry_id, q_idx)] != perm
    assert differs > 0  # the fixture's "all" order really differs from domain order


@pytest.mark.e2e
def test_caption_requests_follow_caption_py(server_run):
    requests, samples = server_run.requests, server_run.samples
    captioning = [b for b in requests if message_images(b)]
    assert len(captioning) == 12
    for body in captioning:
        text = message_text(body)
        n = len(message_images(body))
        assert text == (
            "You are viewing 2 related images. Describe this image in detail."
            if n == 2
            else "Describe this image in detail."
        )
        assert body["temperature"] == 0.7 and body["max_tokens"] == 500
    assert {s["score"]["caption"] for d in DOMAINS for s in samples[f"captionqa_simple_{d}"]} == {
        "A caption of 1 image(s): shapes on a white background.",
        "A caption of 2 image(s): shapes on a white background.",
    }


@pytest.mark.e2e
def test_rescoring_from_the_samples_makes_no_new_call_and_agrees(server_run, cqa_root, monkeypatch):
    from lmms_comparative.benchmarks.captionqa import hooks

    _entries, _failing, results, samples, out = (
        server_run.entries,
        server_run.failing,
        server_run.results,
        server_run.samples,
        server_run.out,
    )
    monkeypatch.setenv("CAPTIONQA_ROOT", str(cqa_root))
    monkeypatch.setenv("CAPTIONQA_READER_MODEL", "reader-llm")
    # The same endpoint as the run (it is part of the cache key), but its server is gone now:
    # only the cache can answer.
    monkeypatch.setenv("CAPTIONQA_READER_BASE_URL", (out / "server_url").read_text())
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_MAX_RETRIES", "0")
    monkeypatch.setenv("LMMS_COMPARATIVE_LLM_CACHE", str(out / "llm_cache.sqlite"))
    for domain in ("natural", "ecommerce"):
        captions = {s["score"]["id"]: s["score"]["caption"] for s in samples[f"captionqa_simple_{domain}"]}
        engine = hooks.reader_engine()
        rows, failed = hooks.qa_rows(captions, domain, engine)
        assert failed == 0 and engine.stats.calls == 0
        assert rules.summarize(rows)["score"] == pytest.approx(
            results["results"][f"captionqa_simple_{domain}"]["score,none"]
        )


@pytest.mark.e2e
def test_export_captions_in_the_submission_format(server_run, tmp_path):
    from lmms_comparative.cli import main

    out = server_run.out
    target = tmp_path / "captions.json"
    assert main(["captionqa-export", str(out / "results"), "-o", str(target)]) == 0
    import json

    captions = json.loads(target.read_text())
    assert len(captions) == 12 and set(captions) >= {"nat_001", "doc_003", "emb_002"}


@pytest.mark.e2e
def test_report_tables_and_radar(server_run, tmp_path):
    from lmms_comparative.report import write_report

    out = server_run.out
    markdown = write_report([str(out / "results")], tmp_path).read_text()
    assert "## CaptionQA" in markdown and re.search(
        r"^\| vlm † \| simple \| [\d.]+ ±[\d.]+ \| [\d.]+ ±[\d.]+ \|", markdown, re.M
    )
    radar = tmp_path / "captionqa_simple_natural_radar.png"
    from PIL import Image

    image = Image.open(radar).convert("RGB")
    assert image.width >= 500 and len(image.getcolors(maxcolors=1 << 20) or []) > 20


@pytest.mark.e2e
def test_empty_caption_is_not_asked_and_takes_no_shuffle_draws(hf_home, tmp_path):
    """An empty (whitespace-only) caption: caption.py stores nothing, so qa.py neither asks its
    questions nor draws their option orders; every later question, in every later domain of the
    "all" walk, gets the options qa.py would show. Data in the release's order (natural first)."""
    from io import BytesIO

    import pyarrow.parquet as pq
    from PIL import Image

    root = build_captionqa(tmp_path / "cqa", per_domain=3, all_order=tuple(DOMAINS))
    entries = fixture_entries(root)
    by_image = {}
    for domain in DOMAINS:
        for row in pq.read_table(root / "data" / f"{domain}-00000-of-00001.parquet").to_pylist():
            by_image[Image.open(BytesIO(row["images"][0]["bytes"])).convert("RGB").tobytes()] = row["id"]
    empty_id = "nat_002"  # the walk's second image set: everything after it shifts

    def respond(body):
        images = message_images(body)
        if images:
            return " \n " if by_image[images[0].convert("RGB").tobytes()] == empty_id else "Shapes on white."
        return make_responder(entries, set())(body)

    with FakeOpenAI(respond) as server:
        env = base_env(
            hf_home, CAPTIONQA_ROOT=str(root), **server.judge_env("CAPTIONQA_READER"), LMMS_COMPARATIVE_LLM_CACHE="off"
        )
        proc = run_cli(
            [*server.model_cli, "--tasks", "captionqa_simple", "--output_path", str(tmp_path / "r"), "--log_samples"],
            env=env,
        )
        requests = list(server.requests)
    results, samples = read_run(tmp_path / "r", proc)
    assert {s["score"]["caption"] for s in samples["captionqa_simple_natural"] if s["score"]["id"] == empty_id} == {""}
    row = results["results"]["captionqa_simple_natural"]
    assert row["counts,none"]["caption_empty"] == 1 and row["counts,none"]["questions"] == 10  # 2 captioned sets x 5
    # qa.py's walk of the "all" split with nat_002 skipped before its draws.
    walk = rules.official_permutations(data.question_table(root, "all"), uncaptioned={empty_id})
    unskipped = rules.official_permutations(data.question_table(root, "all"))
    where = {q["question"]: (entry_id, i) for entry_id, qs in entries.items() for i, q in enumerate(qs)}
    asked, shifted = set(), 0
    for body in requests:
        text = message_text(body)
        if message_images(body):
            continue
        entry_id, q_idx = where[re.search(r"Question:\n(.*)\n", text).group(1)]
        q = entries[entry_id][q_idx]
        options = rules.choices_with_cannot(q["question"], q["choices"])
        assert re.findall(r"^[A-Z]\. (.*)$", text, re.M) == [options[i] for i in walk[(entry_id, q_idx)]], (
            entry_id,
            q_idx,
        )
        shifted += walk[(entry_id, q_idx)] != unskipped[(entry_id, q_idx)]
        asked.add(entry_id)
    assert empty_id not in asked and len(asked) == 11
    assert shifted > 20  # later domains' orders really moved
    captioned = {k: v for k, v in entries.items() if k != empty_id}
    for domain in DOMAINS:
        rows, _ = expected_rows(captioned, requests, set(), domain)
        got = results["results"][f"captionqa_simple_{domain}"]["score,none"]
        assert got == pytest.approx(sum(r["score"] for r in rows) / len(rows))


def test_walk_takes_earlier_domains_uncaptioned_sets_and_warns_when_too_late(cqa_root, monkeypatch):
    """The fixture's "all" split walks embodiedai, ecommerce, document, natural."""
    from loguru import logger

    from lmms_comparative.benchmarks.captionqa import hooks

    monkeypatch.setenv("CAPTIONQA_ROOT", str(cqa_root))
    monkeypatch.setattr(hooks, "_known_uncaptioned", {})
    monkeypatch.setattr(hooks, "_known_when_drawn", {})
    assert data.walk_domains(cqa_root) == ["embodiedai", "ecommerce", "document", "natural"]

    def items(domain, prefix, empty=(), failed=(), prompt="simple"):
        return [
            {
                "id": f"{prefix}_{i:03d}",
                "domain": domain,
                "prompt": prompt,
                "caption_failed": f"{prefix}_{i:03d}" in failed,
                "caption_empty": f"{prefix}_{i:03d}" in empty,
            }
            for i in (1, 2, 3)
        ]

    warnings = []
    sink = logger.add(lambda m: warnings.append(str(m)), level="WARNING")
    try:
        assert hooks._walk_uncaptioned(items("ecommerce", "eco", empty={"eco_002"})) == {"eco_002"}
        # document is walked after ecommerce: it skips eco_002 too, and its own failed caption.
        assert hooks._walk_uncaptioned(items("document", "doc", failed={"doc_001"})) == {"eco_002", "doc_001"}
        # another caption prompt is another caption set
        assert hooks._walk_uncaptioned(items("document", "doc", prompt="long")) == set()
        assert not warnings
        # embodiedai comes first in the walk but is aggregated last: too late for the others.
        assert hooks._walk_uncaptioned(items("embodiedai", "emb", empty={"emb_003"})) == {"emb_003"}
    finally:
        logger.remove(sink)
    assert len(warnings) == 1 and "before drawing the option order of ecommerce, document" in warnings[0]


@pytest.mark.e2e
def test_the_results_file_records_the_reader_and_data_that_scored_it_never_the_key(server_run, cqa_root):
    """Provenance (lmms_comparative key): the reader's settings, the data root and its fingerprint,
    each task's item set; the key the reader sent appears nowhere in the file."""

    from lmms_comparative import provenance

    record = server_run.results["lmms_comparative"]
    reader = record["llm"]["CAPTIONQA_READER"]
    url = (server_run.out / "server_url").read_text()
    assert (
        reader["model"] == "reader-llm"
        and reader["backend"] == "openai"
        and reader["endpoint_host"] == url.split("//")[1].split("/")[0]
    )
    assert reader["temperature"] == 0 and reader["max_tokens"] == 4
    for domain in DOMAINS:
        task = record["tasks"][f"captionqa_simple_{domain}"]
        assert task["benchmark"] == "captionqa"
        assert task["data"] == {
            "source": "local",
            "variable": "CAPTIONQA_ROOT",
            "root": str(cqa_root.resolve()),
            "fingerprint": provenance.fingerprint(cqa_root.resolve()),
        }
        ids = sorted(
            {
                value["id"]
                for sample in server_run.samples[f"captionqa_simple_{domain}"]
                for value in sample.values()
                if isinstance(value, dict) and "id" in value
            }
        )
        assert {k: v for k, v in task["items"].items() if k != "order_sha256"} == {
            "count": len(ids),
            "sha256": hashlib.sha256("\n".join(ids).encode()).hexdigest(),
        }
    text = next((server_run.out / "results").glob("**/*_results.json")).read_text()
    assert TEST_KEY not in text
    assert not [name for name in record["settings"] if "API_KEY" in name]
