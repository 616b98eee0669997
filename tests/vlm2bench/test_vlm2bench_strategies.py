"""VLM²-Bench's prompting strategies (paper §4, Fig. 5): CoT-normal on the image subtasks, CoT-special
and VP-grid on GC, through the real CLI with lmms-eval's openai class against the key-checking server:
the paper's instructions verbatim after the official question text, VP-grid's dot matrix on the images,
and reasoning replies read on their answer segment; the report's strategy table."""

from __future__ import annotations

import re

import pytest
from helpers import base_env, read_run, run_cli, run_report
from helpers.fake_openai import FakeOpenAI, message_images, message_text
from PIL import ImageChops

from lmms_comparative.benchmarks.vlm2bench.prompts import COT_NORMAL, COT_SPECIAL, VP_GRID
from lmms_comparative.benchmarks.vlm2bench.scoring import answer_segment

TASKS = "vlm2bench_cot,vlm2bench_cotspecial,vlm2bench_vpgrid"


def test_the_answer_segment_rule():
    assert answer_segment("Step 1 ... the cup moved.\nMY_ANSWER: T") == "T"
    assert answer_segment("my_answer : **F**\n") == "F"
    assert answer_segment("MY_ANSWER: (A) 1 and 2 ... wait\nMY_ANSWER: (B) None") == "(B) None"  # the last marker
    assert answer_segment("I think the answer is yes.\n\nF\n") == "F"  # no marker: the last non-empty line
    assert answer_segment("") == ""


def _reply(body: dict) -> str:
    """Reasoning, then the answer after MY_ANSWER: on T/F and counting questions, without the
    marker (answer on its own last line) on grouping questions."""
    text = message_text(body)
    if "Choices" in text or "(A)" in text:
        choice = re.search(r"\(([A-D])\)", text).group(1)
        return f"Let me compare the people.\nThey look alike.\n({choice})"
    if "number" in text.lower() or "how many" in text.lower():
        return "Counting each image...\nMY_ANSWER: 2"
    return "Step 1: the question asks about a change.\nStep 4: it is correct.\nMY_ANSWER: T"


@pytest.fixture(scope="module")
def strategy_run(fixture_roots, hf_home, tmp_path_factory):
    out = tmp_path_factory.mktemp("vlm2_strategies")
    with FakeOpenAI(_reply) as server:
        proc = run_cli(
            [*server.model_cli, "--tasks", TASKS, "--output_path", str(out), "--log_samples"],
            env=base_env(hf_home, **{k: str(v) for k, v in fixture_roots.items()}),
        )
        requests, rejected = list(server.requests), server.rejected
    results, samples = read_run(out, proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, requests, rejected, results, samples


@pytest.mark.e2e
def test_the_papers_instructions_follow_the_official_question_text(strategy_run):
    _, requests, rejected, results, samples = strategy_run
    assert rejected == 0
    texts = [message_text(b) for b in requests]
    cot = [t for t in texts if t.endswith(f"\n\n{COT_NORMAL}")]
    special = [t for t in texts if t.endswith(f"\n\n{COT_SPECIAL}")]
    grid = [t for t in texts if t.endswith(f"\n\n{VP_GRID.format(h=6, w=6)}")]
    assert len(cot) == sum(len(v) for k, v in samples.items() if k.startswith("vlm2bench_cot_"))
    assert len(special) == len(samples["vlm2bench_cotspecial_gc_mat"]) + len(samples["vlm2bench_cotspecial_gc_trk"])
    assert len(grid) == len(samples["vlm2bench_vpgrid_gc_mat"]) + len(samples["vlm2bench_vpgrid_gc_trk"])
    assert len(cot) + len(special) + len(grid) == len(requests)
    assert "2 by 6" not in grid[0] and "dimensions 6 by 6" in grid[0]


@pytest.mark.e2e
def test_vp_grid_sends_the_images_with_their_dot_matrix(strategy_run, fixture_roots):
    _, requests, _, _, _ = strategy_run
    grid = [b for b in requests if VP_GRID.format(h=6, w=6) in message_text(b)]
    special = {
        re.sub(r"\n\n[^\n]*Use the following 4 steps.*", "", message_text(b), flags=re.S): b
        for b in requests
        if COT_SPECIAL in message_text(b)
    }
    assert grid
    for body in grid:
        question = message_text(body).split("\n\nHere's the instruction")[0]
        plain = next(b for q, b in special.items() if q == question)
        drawn, original = message_images(body), message_images(plain)
        assert len(drawn) == len(original) >= 2
        assert all(ImageChops.difference(d.convert("RGB"), o.convert("RGB")).getbbox() for d, o in zip(drawn, original))


@pytest.mark.e2e
def test_reasoning_replies_are_scored_on_their_answer_segment(strategy_run):
    _, _, _, results, samples = strategy_run
    for task in ("vlm2bench_cotspecial_gc_mat", "vlm2bench_vpgrid_gc_trk", "vlm2bench_cot_oc_cpr"):
        rows = samples[task]
        assert all(r["counts"]["answer_segment"] == "T" and r["counts"]["reply"].endswith("MY_ANSWER: T") for r in rows)
        counts = results["results"][task]["counts,none"]
        assert counts["unparsed"] == 0 and counts["scored"] == len(rows)
        # Every claim answered T: the positive half of each pair right, the negative wrong.
        assert results["results"][task]["positive,none"] == 1.0 and results["results"][task]["negative,none"] == 0.0
    grp = samples["vlm2bench_cot_oc_grp"]
    assert all(re.fullmatch(r"\([A-D]\)", r["counts"]["answer_segment"]) for r in grp)


@pytest.mark.e2e
def test_the_report_has_a_row_per_strategy(strategy_run, tmp_path):
    out = strategy_run[0]
    proc = run_report(str(out), "-o", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "report" / "report.md").read_text()
    lines = [line for line in text.splitlines() if line.startswith("| vlm")]
    assert {line.split("|")[2].strip() for line in lines if "CoT" in line or "VP-grid" in line} == {
        "CoT-normal",
        "CoT-special",
        "VP-grid",
    }
