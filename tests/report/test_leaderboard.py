"""The leaderboard through the real CLI: four runs of SubtleBench's spatial task whose accuracies
differ by design (two perfect, so equal; one right on every other item; one never right), made by
``lmms-comparative score`` from reply files, and a fifth, a forged copy of one, that ``verify``
fails. The ranks, rank ranges and ties of ``leaderboard.json``, ``report.json`` and the page's DOM
(Chromium) must agree with the pairwise tests computed here apart (exact McNemar from the items'
outcomes, Holm over all pairs by hand); the LaTeX table's rows must match the CSV."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from itertools import combinations
from pathlib import Path
from urllib.parse import quote

import pytest
from helpers import base_env, eval_args, read_run, run_cli, run_score, run_tool
from helpers.browser import browser, wait_for  # noqa: F401 - the fixture
from helpers.verifying import verify

from lmms_comparative.benchmarks.subtlebench.fixture import build

pytestmark = pytest.mark.e2e

TASK = "subtlebench_sp"
DESIGN = ("top1", "top2", "half", "none")


def _other(letter: str) -> str:
    return "B" if letter == "A" else "A"


@pytest.fixture(scope="module")
def runs(tmp_path_factory, hf_home):
    base = tmp_path_factory.mktemp("leaderboard")
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(build(base / "root", per_category=30)))
    proc = run_cli(eval_args("random_choice", TASK, base / "r0"), env=env)
    _, samples = read_run(base / "r0", proc)
    items = [(s["accuracy"]["item_id"], s["target"]) for s in samples[TASK]]
    questions = {s["accuracy"]["item_id"]: s["input"] for s in samples[TASK]}
    replies = {
        "top1": {k: t for k, t in items},
        "top2": {k: t for k, t in items},
        "half": {k: (t if n % 2 == 0 else _other(t)) for n, (k, t) in enumerate(items)},
        "none": {k: _other(t) for k, t in items},
    }
    for name, mapping in replies.items():
        path = base / f"{name}.json"
        path.write_text(json.dumps(mapping), encoding="utf-8")
        done = run_score(
            "subtlebench", str(path), "--tasks", TASK, "--model-name", name, "-o", str(base / "runs" / name), env=env
        )
        assert done.returncode == 0, done.stderr[-2000:]
    # The forged run: "half"'s files with its accuracy raised by hand; verify fails it.
    shutil.copytree(base / "runs" / "half", base / "runs" / "forged")
    results = next((base / "runs" / "forged").glob("**/*_results.json"))
    document = json.loads(results.read_text(encoding="utf-8"))
    document["results"][TASK]["accuracy,none"] = 0.9
    document["config"]["model_args"] = document["config"]["model_args"].replace("half", "forged")
    results.write_text(json.dumps(document), encoding="utf-8")
    for name in ("top1", "half", "forged"):
        verify(base / "runs" / name, env=env)
    correct = {name: [replies[name][k] == t for k, t in items] for name in DESIGN}  # each item's outcome, in one order
    return {"base": base, "env": env, "correct": correct, "questions": questions, "keys": [k for k, _ in items]}


def _mcnemar(a: list[bool], b: list[bool]) -> float:
    from scipy.stats import binomtest

    a_only = sum(x and not y for x, y in zip(a, b))
    b_only = sum(y and not x for x, y in zip(a, b))
    return 1.0 if a_only + b_only == 0 else binomtest(a_only, a_only + b_only, 0.5).pvalue


def _expected(correct: dict[str, list[bool]]) -> dict[str, tuple[int, int]]:
    """(best, worst) rank of each run: Holm over all six pairs at 0.05, counted by hand."""
    pairs = list(combinations(DESIGN, 2))
    p = {pair: _mcnemar(correct[pair[0]], correct[pair[1]]) for pair in pairs}
    order = sorted(pairs, key=lambda pair: p[pair])
    adjusted, running = {}, 0.0
    for rank, pair in enumerate(order):
        running = max(running, min(1.0, (len(pairs) - rank) * p[pair]))
        adjusted[pair] = running
    score = {name: sum(c) for name, c in correct.items()}

    def better(x, y):  # y significantly better than x
        pair = (x, y) if (x, y) in adjusted else (y, x)
        return adjusted[pair] < 0.05 and score[y] > score[x]

    return {
        x: (1 + sum(better(x, y) for y in DESIGN if y != x), len(DESIGN) - sum(better(y, x) for y in DESIGN if y != x))
        for x in DESIGN
    }


def test_the_ranks_are_the_pairwise_tests_and_ties_are_marked(runs, tmp_path):
    out = tmp_path / "board"
    folders = [str(runs["base"] / "runs" / n) for n in DESIGN]
    proc = run_tool("leaderboard", *folders, "-o", str(out), env=runs["env"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    board = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    found = {r["run"]: (r["rank_best"], r["rank_worst"]) for r in board["standings"]}
    expected = _expected(runs["correct"])
    assert found == expected == {"top1": (1, 2), "top2": (1, 2), "half": (3, 3), "none": (4, 4)}
    ties = {r["run"]: sorted(r["tied_with"]) for r in board["standings"]}
    assert ties == {"top1": ["top2"], "top2": ["top1"], "half": [], "none": []}
    assert [r["run"] for r in board["standings"]][2:] == ["half", "none"]  # in order
    assert len(board["pairs"]) == 6 and all(p["p_holm"] is not None for p in board["pairs"])
    # The LaTeX table's rows, parsed, are the CSV's rows.
    rows = list(csv.DictReader(io.StringIO((out / "leaderboard.csv").read_text(encoding="utf-8"))))
    tex = (out / "leaderboard.tex").read_text(encoding="utf-8")
    assert "\\toprule" in tex and "\\bottomrule" in tex
    parsed = re.findall(r"^(\S+) & ([\d.]+) \$\\pm\$ ([\d.]+) & ([\d-]+)(\$\^\\dagger\$)? \\\\$", tex, re.M)
    assert len(parsed) == len(rows) == 4
    for (run, value, half_width, rank, dagger), row in zip(parsed, rows):
        assert run == row["run"] and float(value) == pytest.approx(float(row["value"]), abs=0.05)
        assert float(half_width) == pytest.approx((float(row["ci_high"]) - float(row["ci_low"])) / 2, abs=0.05)
        best, worst = row["rank_best"], row["rank_worst"]
        assert rank == (best if best == worst else f"{best}--{worst}")
        assert bool(dagger) == bool(row["tied_with"])


def test_a_failing_run_is_marked_and_left_out_on_request(runs, tmp_path):
    folders = [str(runs["base"] / "runs" / n) for n in (*DESIGN, "forged")]
    proc = run_tool("leaderboard", *folders, "-o", str(tmp_path / "all"), env=runs["env"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    board = json.loads((tmp_path / "all" / "leaderboard.json").read_text(encoding="utf-8"))
    states = {r["run"]: r["verify"] for r in board["standings"]}
    assert states["forged"] == "FAIL" and states["top1"] == states["half"] == "PASS"
    assert states["top2"] == "not verified"
    proc = run_tool("leaderboard", *folders, "--verified-only", "-o", str(tmp_path / "pass"), env=runs["env"])
    board = json.loads((tmp_path / "pass" / "leaderboard.json").read_text(encoding="utf-8"))
    ranked = {r["run"]: (r["rank_best"], r["rank_worst"]) for r in board["standings"] if not r["excluded"]}
    assert ranked == {"top1": (1, 1), "half": (2, 2)}  # the honest twins still ranked
    left_out = {r["run"]: r["excluded"] for r in board["standings"] if r["excluded"]}
    assert left_out == {"forged": "verify: FAIL", "top2": "verify: not verified", "none": "verify: not verified"}
    # The report's ranking takes the same switch.
    proc = run_tool("report", *folders, "--verified-only", "--no-html", "-o", str(tmp_path / "report"), env=runs["env"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    document = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    assert document["leaderboard"]["standings"] == board["standings"]


def test_pairs_shared_among_workers_give_the_rows_of_one_process(runs, tmp_path):
    """The report compares the six pairs in forked workers (two here); one process must write the
    same files, byte for byte."""
    folders = [str(runs["base"] / "runs" / n) for n in DESIGN]
    written = {}
    for jobs in ("1", "2"):
        env = {**runs["env"], "LMMS_COMPARATIVE_JOBS": jobs}
        proc = run_tool("report", *folders, "-o", str(tmp_path / jobs), "--no-html", env=env)
        assert proc.returncode == 0, proc.stderr[-2000:]
        written[jobs] = {p.relative_to(tmp_path / jobs): p.read_bytes() for p in (tmp_path / jobs).rglob("*.*")}
    assert written["1"] == written["2"] and len(written["1"]) > 3


def test_the_report_and_its_page_carry_the_same_ranks(runs, tmp_path, browser):  # noqa: F811
    folders = [str(runs["base"] / "runs" / n) for n in DESIGN]
    board_proc = run_tool("leaderboard", *folders, "-o", str(tmp_path / "board"), env=runs["env"])
    assert board_proc.returncode == 0
    proc = run_tool("report", *folders, "-o", str(tmp_path / "report"), env=runs["env"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    document = json.loads((tmp_path / "report" / "report.json").read_text(encoding="utf-8"))
    board = json.loads((tmp_path / "board" / "leaderboard.json").read_text(encoding="utf-8"))
    assert document["leaderboard"]["standings"] == board["standings"]
    assert len(document["comparisons"]) == 6  # every pair, once
    # The benchmark's comparison sections: every pair once too, B the later run on the command line.
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    titled = re.findall(r"^### Comparison: `(.+?)` \(B\) against `(.+?)` \(A\)", markdown, re.M)
    every = {(c["run_b"], c["run_a"]) for c in document["comparisons"]}
    assert len(titled) == len(set(titled)) == 6 and set(titled) == every
    assert (tmp_path / "report" / "tables" / "leaderboard.csv").read_text(encoding="utf-8") == (
        tmp_path / "board" / "leaderboard.csv"
    ).read_text(encoding="utf-8")
    browser.get((tmp_path / "report" / "index.html").as_uri())
    shown = wait_for(
        browser,
        "const rows = [...document.querySelectorAll('table.ranking tr[data-run-name]')];"
        "return rows.length ? rows.map(r => [r.dataset.runName, +r.dataset.rankBest, +r.dataset.rankWorst]) : null;",
    )
    assert {name: (best, worst) for name, best, worst in shown} == _expected(runs["correct"])
    tab_titles = browser.execute_script(
        "return [...document.querySelectorAll('#b-subtlebench h3')].map(h => h.textContent)"
        ".filter(t => t.startsWith('Comparison:')).length;"
    )
    assert tab_titles == 6
    path = Path(tmp_path / "report" / "index.html")
    assert path.is_file()


def test_the_item_browser_searches_combines_filters_and_opens_a_linked_item(runs, tmp_path, browser):  # noqa: F811
    """The search reads the items' text (a question's words here), combines with an outcome filter,
    and a link from compare.json's flips opens that item's card."""
    folders = [str(runs["base"] / "runs" / n) for n in ("top1", "half")]
    assert run_tool("compare", *folders, "-o", str(tmp_path / "cmp"), env=runs["env"]).returncode == 0
    rows = json.loads((tmp_path / "cmp" / "compare.json").read_text(encoding="utf-8"))
    row = next(r for r in rows if r["task"] == TASK and not r.get("category"))
    assert len(row["flipped"]["a_only"]) == row["a_only"] == 15 and row["flipped"]["b_only"] == []
    proc = run_tool("report", *folders, "-o", str(tmp_path / "report"), env=runs["env"])
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = (tmp_path / "report" / "index.html").as_uri()
    browser.get(page + "#b-subtlebench")
    box = "document.querySelector('#b-subtlebench input[type=search]')"
    count = "document.querySelector('#b-subtlebench .browser .count').textContent"
    word = "green shape"
    wanted = [k for k in runs["keys"] if word in runs["questions"][k].lower()]
    assert 0 < len(wanted) < len(runs["keys"])
    browser.execute_script(f"{box}.value = {json.dumps(word)}; {box}.dispatchEvent(new Event('input'));")
    assert wait_for(browser, f"return {count}.startsWith('{len(wanted)} of') && {count};")
    # Combined with "half: wrong" (half answers every other item wrong, in the order of r0's samples).
    wrong_under_half = {k for n, k in enumerate(runs["keys"]) if n % 2 == 1}
    both = [k for k in wanted if k in wrong_under_half]
    browser.execute_script(
        "const s = document.querySelector('#b-subtlebench select[name=outcome1]');"
        "s.value = String(LC_INDEX.outcomes.indexOf('wrong')); s.dispatchEvent(new Event('change', {bubbles: true}));"
    )
    assert wait_for(browser, f"return {count}.startsWith('{len(both)} of') && {count};")
    # A link of compare.json opens that item's card, every filter cleared.
    key = row["flipped"]["a_only"][0]
    link = row["link"] + quote(key, safe="")
    browser.get(page + link)
    opened = wait_for(
        browser,
        "const c = document.querySelector('#b-subtlebench article.item.linked');"
        "return c && !c.querySelector('.body').hidden && c.querySelector('.what code').textContent;",
    )
    assert opened == f"{TASK} · {key}"
