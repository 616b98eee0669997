"""DiffSpot's ``compare`` and Overview through the CLI: two runs on the fixture, their judge the
local fake OpenAI server (found / missed / a hallucination, by the prompt's hash, so that the two
runs' replies are judged apart). compare has a row per tier (the leaderboard's Easy, Med, Hard and
No-Diff: each tier row's A and B are the run's own recall or specificity), per mutation operator
and per domain, each set Holm-adjusted apart; the Overview's chance is the paper's always-no-diff
row, labelled as the paper's."""

from __future__ import annotations

import hashlib
import json

import pytest
from helpers import eval_args, judged_env, read_run, run_cli, run_tool
from helpers.fake_openai import FakeOpenAI, message_text

from lmms_comparative.benchmarks.diffspot.fixture import build

pytestmark = pytest.mark.e2e

VERDICTS = (
    '{"mutations": [{"verdict": "correct"}], "hallucinations": []}',
    '{"mutations": [{"verdict": "missed"}], "hallucinations": []}',
    '{"mutations": [{"verdict": "correct"}], "hallucinations": ["a new banner"]}',
)
# tier (the judge log's split) -> the run's metric that is its share of right pairs
TIERS = {"easy": "easy_recall", "medium": "medium_recall", "hard": "hard_recall", "no_diff": "nodiff_specificity"}


def _judge(body: dict) -> str:
    return VERDICTS[int(hashlib.sha256(message_text(body).encode()).hexdigest(), 16) % len(VERDICTS)]


@pytest.fixture(scope="module")
def compared(tmp_path_factory, hf_home):
    base = tmp_path_factory.mktemp("diffspot_compare")
    root = build(base / "root", per_split=4)
    with FakeOpenAI(_judge) as server:
        env = judged_env(hf_home, server, "DIFFSPOT_JUDGE", DIFFSPOT_ROOT=root)
        for name, seed in (("a", 1), ("b", 2)):
            proc = run_cli(
                eval_args("random_choice", "diffspot", base / name, model_args=f"seed={seed}"),
                env=env,
            )
            read_run(base / name, proc)
            assert proc.returncode == 0, proc.stderr[-3000:]
    proc = run_tool("compare", str(base / "a"), str(base / "b"), "-o", str(base / "cmp"), env=env)
    return base, env, proc


def test_compare_has_a_row_per_tier_operator_and_domain(compared):
    base, _env, proc = compared
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = json.loads((base / "cmp" / "compare.json").read_text())
    head = next(r for r in rows if r["task"] == "diffspot" and not r.get("category"))
    results = {name: read_run(base / name)[0]["results"]["diffspot"] for name in ("a", "b")}
    assert head["a"] == pytest.approx(100 * results["a"]["overall,none"]) and head["b"] == pytest.approx(
        100 * results["b"]["overall,none"]
    )
    by_facet: dict[str, dict[str, dict]] = {}
    for row in rows:
        if row.get("category"):
            assert row["category"].startswith(row["facet"] + ": ") and row["task"] == "diffspot"
            by_facet.setdefault(row["facet"], {})[row["category"].split(": ", 1)[1]] = row
    assert set(by_facet) == {"tier", "operator", "domain"}, by_facet.keys()
    assert set(by_facet["tier"]) == set(TIERS)
    for tier, metric in TIERS.items():  # a tier's A and B: the run's own recall (specificity) there
        row = by_facet["tier"][tier]
        assert row["a"] == pytest.approx(100 * results["a"][f"{metric},none"]) and row["b"] == pytest.approx(
            100 * results["b"][f"{metric},none"]
        ), (tier, row)
    for facet, found in by_facet.items():
        assert sum(r["n"] for r in found.values()) == (
            head["n"] if facet != "operator" else head["n"] - by_facet["tier"]["no_diff"]["n"]
        ), facet
        assert all(r["p_adjusted"] >= r["p_value"] for r in found.values())
    operators = {op: entry["n"] for op, entry in results["a"]["by_operator,none"].items()}
    assert {op: r["n"] for op, r in by_facet["operator"].items()} == operators
    assert any(
        line.split()[1:3] == ["tier:", "easy"] for line in proc.stdout.splitlines() if line.startswith("diffspot ")
    ), proc.stdout


def test_the_overview_shows_the_papers_chance_row_as_the_papers(compared):
    base, env, _proc = compared
    out = base / "report"
    proc = run_tool("report", str(base / "a"), str(base / "b"), "-o", str(out), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    page = (out / "index.html").read_text()
    block = page[page.index('data-benchmark="diffspot"') :]
    block = block[: block.index("</section>")]
    assert '<th scope="col">paper\'s chance <span class="source">on the paper\'s items</span></th>' in block, block[
        :2000
    ]
    assert (
        '<td data-label="paper\'s chance">11.4<span class="model">Always no-diff (trivial baseline), the '
        "paper's items</span></td>" in block
    ), block
    assert 'class="delta' in block  # B − A on the Overall
