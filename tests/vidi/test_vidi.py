"""ViDi: caption metrics on hand-checked sentences, the release layout, and the real CLI."""

from __future__ import annotations

import hashlib
import re
import statistics
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import assert_group_interval, assert_interval, base_env, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, message_images, message_text

from lmms_comparative.benchmarks.vidi.data import load_pairs
from lmms_comparative.benchmarks.vidi.fixture import build as build_vidi
from lmms_comparative.benchmarks.vidi.hooks import parse_judge_score
from lmms_comparative.benchmarks.vidi.scoring import caption_scores
from lmms_comparative.data import DataError

PAPER = Path(__file__).parents[2].parent / "shared" / "papers" / "001_f8112380c4b83f9e.txt"


@pytest.mark.skipif(not PAPER.is_file(), reason="the ViDi paper text is not beside the repository")
def test_precision_prompt_holds_appendix_g_worked_example_verbatim():
    from lmms_comparative.benchmarks.vidi.prompts import JUDGE_PRECISION, JUDGE_RECALL

    text = PAPER.read_text(encoding="utf-8")
    start = text.index("Example Input:")
    end = text.index("The response was not exessicely redundant.", start) + len(
        "The response was not exessicely redundant."
    )
    # The paper's lines, without the conversion's blank lines and its "- " before "1.".
    lines = [line.replace("- 1. **", "1. **") for line in text[start:end].splitlines() if line.strip()]
    split = lines.index("Example Output:")
    example_in, example_out = "\n".join(lines[:split]), "\n".join(lines[split:])
    assert len(lines) == 17 and example_out.startswith(
        'Example Output:\n"\nPrecision Evaluation Report:\n- Total Model-Generated Differences: 4'
    )
    assert f"{example_in}\n\n{example_out}\n\nYOUR TASK:" in JUDGE_PRECISION
    assert f"{example_in}\n\nExample Output:" in JUDGE_RECALL  # the recall prompt (ours) shows the same input ...
    assert example_out not in JUDGE_RECALL  # ... with its own, mirrored output
    assert (
        "Recall Evaluation Report:\n- Total Reference Differences: 3\n- Reference Differences Found: 2\n- "
        "Recall Score: 0.67" in JUDGE_RECALL
    )
    for prompt in (JUDGE_PRECISION, JUDGE_RECALL):  # the example comes before the task, which still ends the prompt
        assert prompt.index("Example Input:") < prompt.index("YOUR TASK:") and prompt.rstrip().endswith("{predictions}")
    # the judge's own report is what is parsed, never the example's (which is in the prompt only)
    assert parse_judge_score("Precision Evaluation Report:\n- Precision Score: 3/4") == pytest.approx(0.75)


def test_identical_prediction_scores_one_and_unrelated_near_zero():
    refs = {
        "a": ["the red car is on the left or right of the house"],
        "b": ["a dog sits near the old tree or the bench"],
    }
    same = caption_scores(
        refs,
        {"a": "the red car is on the left or right of the house", "b": "a dog sits near the old tree or the bench"},
    )
    assert (
        same["bleu1"] == pytest.approx(1.0)
        and same["bleu4"] == pytest.approx(1.0)
        and same["rougeL"] == pytest.approx(1.0)
    )
    other = caption_scores(refs, {"a": "purple elephants dance quietly", "b": "quantum chromodynamics explained"})
    assert other["bleu1"] < 0.01 and other["rougeL"] == 0.0 and other["cider"] == 0.0


def test_multiple_references_take_the_closest():
    refs = {"a": ["the sign reads open or closed", "the bird on the roof is black or white"]}
    one = caption_scores(refs, {"a": "the bird on the roof is black or white"})
    assert one["bleu1"] == pytest.approx(1.0) and one["rougeL"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "text, value",
    [
        ("Precision Evaluation Report:\n- Precision Score: 3/4\n", 0.75),
        ("- Recall Score: **2/5**", 0.4),
        ("Precision Score: 0.5", 0.5),
        ("Precision Score: 5/4", 1.0),
        ("Precision Score: 0/0", None),
        ("I cannot evaluate this.", None),
        (None, None),
    ],
)
def test_judge_score_parsing(text, value):
    assert parse_judge_score(text) == (pytest.approx(value) if value is not None else None)


def test_release_layout_and_errors(tmp_path):
    root = build_vidi(tmp_path / "v")
    pairs = load_pairs(root)
    assert [p["pair_id"] for p in pairs] == ["pair_000", "pair_001", "pair_002", "pair_003"]
    assert pairs[0]["url"] == "https://example.org/pairs/0" and len(pairs[2]["differences"]) == 5
    from lmms_comparative.data import items

    # Item-level problems: the pair is skipped and named, the others load.
    (root / "pair_001" / "2.png").unlink()
    (root / "pair_002" / next(p.name for p in (root / "pair_002").glob("*.txt"))).unlink()
    with items.collecting(items.Skips()) as skips:
        assert [p["pair_id"] for p in load_pairs(root)] == ["pair_000", "pair_003"]
    assert skips.counts() == {"malformed record": 1, "pair without its text file": 1}
    assert "pair 'pair_001' has 1 image file" in skips.by_reason["malformed record"][0]
    assert skips.by_reason["pair without its text file"][0].startswith("pair_002")
    # Run-level: nothing that looks like a pair at all.
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(DataError, match=r"no image pairs under"):
        load_pairs(empty)


@pytest.fixture(scope="module")
def vidi_run(tmp_path_factory, hf_home):
    root = build_vidi(tmp_path_factory.mktemp("vidi"))
    pairs = load_pairs(root)
    from PIL import Image

    by_image = {}
    for pair in pairs:
        for field in ("image_1", "image_2"):
            by_image[hashlib.md5(Image.open(pair[field]).convert("RGB").tobytes()).hexdigest()] = pair
    calls: Counter = Counter()

    def respond(body):
        text = message_text(body)
        if "Evaluation Report" in text:  # the judge
            return (
                "Precision Evaluation Report:\n- Precision Score: 3/4"
                if "Precision Evaluation Report" in text
                else "Recall Evaluation Report:\n- Recall Score: 1/2"
            )
        images = message_images(body)
        pair = by_image[hashlib.md5(images[0].convert("RGB").tobytes()).hexdigest()]
        if text.startswith("List all"):
            return "\n".join(pair["differences"])
        if text.startswith("Consider the following"):
            return next(d for d in pair["differences"] if d not in text)
        calls[pair["pair_id"]] += 1
        return pair["differences"][0] if calls[pair["pair_id"]] % 2 else "Nothing at all is different here."

    out = tmp_path_factory.mktemp("vidi_out")
    with FakeOpenAI(respond) as server:
        env = base_env(hf_home, VIDI_ROOT=str(root), **server.judge_env("VIDI_JUDGE"), LMMS_COMPARATIVE_LLM_CACHE="off")
        model = server.model_cli
        first = run_cli(
            [*model, "--tasks", "vidi_global_avg,vidi_fewshot", "--output_path", str(out / "a"), "--log_samples"],
            env=env,
        )
        second = run_cli(
            [*model, "--tasks", "vidi_granular", "--repeats", "2", "--output_path", str(out / "b"), "--log_samples"],
            env=env,
        )
        requests = list(server.requests)
    return SimpleNamespace(
        pairs=pairs,
        requests=requests,
        both_orders=read_run(out / "a", first),
        repeats=read_run(out / "b", second),
        dirs={"both_orders": out / "a"},
    )


@pytest.mark.e2e
def test_global_setting_metrics_and_judge(vidi_run):
    pairs, requests, (results, _) = vidi_run.pairs, vidi_run.requests, vidi_run.both_orders
    for task in ("vidi_global", "vidi_global_swap"):
        row = results["results"][task]
        # The answer lists every reference sentence: same tokens as the joined paragraph. Every
        # metric is on the paper's x100 scale.
        assert row["bleu1,none"] == pytest.approx(100.0) and row["bleu4,none"] == pytest.approx(100.0)
        assert row["precision,none"] == pytest.approx(75.0) and row["recall,none"] == pytest.approx(50.0)
        assert row["f1,none"] == pytest.approx(100 * 2 * 0.75 * 0.5 / 1.25)
        assert row["counts,none"]["unjudged"] == 0 and row["counts,none"]["judge_requests"] == 2 * len(pairs)
    for task in ("vidi_global", "vidi_global_swap"):
        row = results["results"][task]
        for metric in ("bleu1", "bleu4", "rougeL", "cider", "precision", "recall", "f1"):
            assert_interval(row["ci95,none"], metric, row[f"{metric},none"])
    group = results["groups"]["vidi_global_avg"]
    # The two orders score the same pairs: combined as fully correlated.
    parts = [results["results"][t]["ci95,none"] for t in ("vidi_global", "vidi_global_swap")]
    assert_group_interval(group["ci95,none"], parts, "cider", correlated=True)
    assert group["cider,none"] == pytest.approx(
        (results["results"]["vidi_global"]["cider,none"] + results["results"]["vidi_global_swap"]["cider,none"]) / 2
    )
    captioning = [b for b in requests if message_images(b)]
    assert all(len(message_images(b)) == 2 and b["temperature"] == 0.5 for b in captioning)


@pytest.mark.e2e
def test_fewshot_asks_for_each_left_out_difference(vidi_run):
    pairs, _requests, (results, samples) = vidi_run.pairs, vidi_run.requests, vidi_run.both_orders
    assert len(samples["vidi_fewshot"]) == sum(len(p["differences"]) for p in pairs)
    row = results["results"]["vidi_fewshot"]
    assert row["bleu1,none"] == pytest.approx(100.0) and row["rougeL,none"] == pytest.approx(100.0)


@pytest.mark.e2e
def test_repeats_are_scored_per_repeat_and_averaged(vidi_run):
    pairs, (results, samples) = vidi_run.pairs, vidi_run.repeats
    row = results["results"]["vidi_granular"]
    assert row["repeats,none"]["k"] == 2
    predictions = {s["bleu1"]["item_id"]: s["bleu1"]["predictions"] for s in samples["vidi_granular"]}
    assert all(len(p) == 2 for p in predictions.values())
    refs = {p["pair_id"]: p["differences"] for p in pairs}
    runs = [
        {m: 100 * v for m, v in caption_scores(refs, {k: v[r] for k, v in predictions.items()}).items()}
        for r in range(2)
    ]  # x100: the paper's scale
    for metric in ("bleu1", "rougeL", "cider"):
        assert row[f"{metric},none"] == pytest.approx(statistics.fmean(run[metric] for run in runs))
        assert row["repeats,none"][f"{metric}_std"] == pytest.approx(statistics.stdev(run[metric] for run in runs))


def test_without_java_the_error_says_what_to_install(monkeypatch):
    from lmms_comparative.benchmarks.vidi import scoring as caption_metrics

    monkeypatch.setattr(caption_metrics.shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="needs Java: install a JRE"):
        caption_metrics.caption_scores({"a": ["x"]}, {"a": "x"})


@pytest.mark.e2e
def test_report_intervals_and_image_order_consistency(vidi_run, tmp_path):
    from lmms_comparative.report import write_report

    results = vidi_run.both_orders[0]["results"]
    markdown = write_report([str(vidi_run.dirs["both_orders"])], tmp_path).read_text()
    avg = re.search(r"^\| vlm † \| global \| (.*) \|$", markdown, re.M).group(1).split(" | ")
    assert len(avg) == 9 and all("±" in cell or "–" in cell for cell in avg)  # six caption metrics, judge P/R/F1
    # CIDEr (x100) near CIDEr-D's top: the interval of the two orders' average is clipped at 1000
    # and printed as its range.
    cider = vidi_run.both_orders[0]["groups"]["vidi_global_avg"]["ci95,none"]["cider"]
    assert cider["high"] == 1000.0 and avg[5] == f"{cider['value']:.1f} ({cider['low']:.1f}–1000.0)"
    deltas = re.findall(r"^\| vlm † \| global \| ([-\d. |]+) \|$", markdown, re.M)
    assert deltas, markdown
    expected = [
        results["vidi_global_swap"][f"{m},none"] - results["vidi_global"][f"{m},none"]
        for m in ("bleu1", "bleu2", "bleu3", "bleu4", "rougeL", "cider")
    ]
    cells = [float(c) for c in deltas[-1].split(" | ")]
    assert cells == pytest.approx(expected, abs=0.051)  # results and report both on the paper's x100 scale
