"""compbench_twostage (paper Table 3 left; the authors' MB_eval.py, celebA_eval.py, depth_eval.py)
through the real CLI and ``--model multiround`` with lmms-eval's openai class against the
key-checking server: each image asked alone with the authors' prompt (text, then one image); the
MagicBrush comparison holds both descriptions exactly; CelebA and NYU-Depth compare the two numbers
as the authors' code does."""

from __future__ import annotations

import re

import pytest
from helpers import base_env, eval_args, read_run, run_cli
from helpers.fake_openai import FakeOpenAI

from lmms_comparative.benchmarks.compbench.prompts import (
    TWO_STAGE_CELEBA_1,
    TWO_STAGE_MAGICBRUSH_1,
    TWO_STAGE_MAGICBRUSH_2,
)
from lmms_comparative.benchmarks.compbench.scoring import two_stage_side

pytestmark = pytest.mark.e2e


def _parts(body: dict) -> list[dict]:
    content = body["messages"][-1]["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _text(body: dict) -> str:
    return "".join(p.get("text", "") for p in _parts(body) if p.get("type") == "text")


class Responder:
    """Stage 1: a description or number per request (numbered); MagicBrush's stage 2: the first
    option named in the comparison prompt."""

    def __init__(self):
        self.n = 0

    def __call__(self, body: dict) -> str:
        text = _text(body)
        self.n += 1
        if text.startswith("These are descriptions for two images."):
            return re.search(r"Options: None,([^,.]+)", text).group(1).strip()
        if "describe the image" in text:
            return f"description {self.n}: a blue door and a red chair"
        if text == TWO_STAGE_CELEBA_1:
            return ["3", "7", "5.5", "ten"][self.n % 4]
        return ["2", "inf", "4", "4"][self.n % 4]


@pytest.fixture(scope="module")
def run(fixture_roots, hf_home, tmp_path_factory):
    out = tmp_path_factory.mktemp("twostage")
    with FakeOpenAI(Responder()) as server:
        args = f"inner=openai,model_version=vlm,base_url={server.base_url},api_key={server.api_key}"
        env = base_env(hf_home, **{k: str(v) for k, v in fixture_roots.items()})
        proc = run_cli(
            eval_args("multiround", "compbench_twostage", out, model_args=args),
            env=env,
        )
        requests, rejected = list(server.requests), server.rejected
    results, samples = read_run(out, proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return requests, rejected, results, samples


def test_stage_one_asks_each_image_alone_with_the_authors_prompt(run):
    requests, rejected, _, samples = run
    assert rejected == 0
    stage_one = [b for b in requests if not _text(b).startswith("These are descriptions")]
    for body in stage_one:
        parts = _parts(body)
        assert [p["type"] for p in parts] == ["text", "image_url"] and len(
            body["messages"]
        ) == 1  # text, then one image; no system turn
    n_items = sum(len(rows) for rows in samples.values())
    assert len(stage_one) == 2 * n_items


def test_magicbrush_compares_both_descriptions_verbatim(run):
    requests, _, results, samples = run
    rows = samples["compbench_twostage_existence_magicbrush"]
    comparisons = {_text(b) for b in requests if _text(b).startswith("These are descriptions")}
    assert len(comparisons) == len(rows)
    for row in rows:
        first, second, final = row.get("resps", row["filtered_resps"])
        prompt = next(c for c in comparisons if f"Left images: {first}. Right image: {second}. " in c)
        options = re.search(r"Options: None,(.*)\.Please only return", prompt).group(1)
        assert prompt == TWO_STAGE_MAGICBRUSH_2.format(first=first, second=second, options=options)
        assert row["accuracy"]["final"] == final and row["accuracy"]["rounds"] == [first, second, final]
    describe = [b for b in requests if "describe the image" in _text(b)]
    options = re.search(r"following options: (.*)\.\n", _text(describe[0])).group(1)
    assert _text(describe[0]) == TWO_STAGE_MAGICBRUSH_1.format(options=options)
    counts = results["results"]["compbench_twostage_existence_magicbrush"]["counts,none"]
    assert counts["n"] == len(rows) and counts["failed"] == 0


@pytest.mark.parametrize("task", ["compbench_twostage_emotion_celeba", "compbench_twostage_spatiality_nyudepth"])
def test_the_numbers_are_compared_as_the_authors_code_does(run, task):
    _, _, results, samples = run
    rows = samples[task]
    correct = 0
    for row in rows:
        first, second = row.get("resps", row["filtered_resps"])
        final = two_stage_side(first, second)
        assert row["accuracy"]["final"] == final and row["accuracy"]["rounds"] == [first, second]
        correct += final == row["accuracy"]["answer"]
    counts = results["results"][task]["counts,none"]
    assert counts["n"] == len(rows) and counts["correct"] == correct
    assert counts["unparsed"] == sum(1 for r in rows if r["accuracy"]["final"] == "Error")


def test_two_stage_side_follows_the_authors_code():
    assert two_stage_side("7", "3") == "Left" and two_stage_side("3", "7") == "Right"
    assert two_stage_side("4", "4") == "Right"  # a tie is Right
    assert (
        two_stage_side("inf", "4") == "Left" and two_stage_side(" 5.5\n", "5") == "Left"
    )  # float() strips white space
    assert two_stage_side("ten", "4") == "Error" and two_stage_side("7 feet", "4") == "Error"
