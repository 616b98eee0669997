"""The report on results folders the package writes, through the real CLI and the installed
command: every task family gets its table, the paper's models beside the runs with ranks, the
reproduction check of a run whose model the paper evaluated, report.json and the CSV files."""

from __future__ import annotations

import csv
import json
import re
import shutil
from types import SimpleNamespace

import pytest
from helpers import MINILM, base_env, eval_args, read_run, run_cli, run_report
from helpers.fake_openai import FakeOpenAI, message_text

from lmms_comparative.registry import BY_NAME

SUBTLEBENCH_PAPER = BY_NAME["subtlebench"].paper()["tables"]
VLM2_PAPER = BY_NAME["vlm2bench"].paper()["tables"]

pytestmark = pytest.mark.e2e
QWEN = "Qwen/Qwen2.5-VL-7B-Instruct"  # the paper's "Qwen2.5-VL-7B" (SubtleBench Table 2, VLM2 Table 1)


@pytest.fixture(scope="module")
def runs(fixture_roots, subtlebench_root, hf_home, tmp_path_factory):
    out = tmp_path_factory.mktemp("families")
    env = base_env(
        hf_home, **{**{k: str(v) for k, v in fixture_roots.items()}, "SUBTLEBENCH_ROOT": str(subtlebench_root)}
    )
    jobs = {
        "strategy": ("random_choice", "seed=0", "subtlebench_grid,subtlebench_reasoning"),
        "pair": ("random_choice", "seed=1", "compbench_pair_attribute_cub,compbench_pair_quantity_vqav2"),
        "qwen": ("random_choice", f"seed=2,pretrained={QWEN}", "subtlebench,vlm2bench_image"),
    }
    procs = {}
    for name, (model, args, tasks) in jobs.items():
        procs[name] = run_cli(
            eval_args(model, tasks, out / name, model_args=args),
            env=env,
        )
    # A caption-only and few-shot-only run: difference captions judged by an LLM, ViDi's few-shot
    # descriptions scored with the caption metrics (Java).
    if MINILM is not None and shutil.which("java"):

        def respond(body):
            text = message_text(body)
            return "Yes" if text.startswith("Reference caption:") else "The second image has a brighter shape."

        with FakeOpenAI(respond) as server:
            caption_env = {
                **env,
                "SUBTLEBENCH_SBERT_MODEL": MINILM,
                **server.judge_env("SUBTLEBENCH_JUDGE"),
                "LMMS_COMPARATIVE_LLM_CACHE": "off",
            }
            procs["caption"] = run_cli(
                [
                    *server.model_cli,
                    "--tasks",
                    "subtlebench_caption,vidi_fewshot",
                    "--output_path",
                    str(out / "caption"),
                    "--log_samples",
                ],
                env=caption_env,
            )
    return SimpleNamespace(out=out, results={name: read_run(out / name, proc)[0] for name, proc in procs.items()})


def _report(runs, tmp_path, *extra):
    proc = run_report(*(str(runs.out / n) for n in runs.results), "-o", str(tmp_path / "r"), *extra)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return (tmp_path / "r" / "report.md").read_text(), json.loads((tmp_path / "r" / "report.json").read_text())


def _cell(value) -> str:
    return f"{value * 100:.1f}"


def test_every_family_has_its_table_with_the_results_values(runs, tmp_path):
    markdown, document = _report(runs, tmp_path)
    grid = runs.results["strategy"]["results"]
    # The fixture runs are marked (†): their items are not the release's.
    row = re.search(r"^\| random_choice \(seed=0\) † \| Grid \| (.*) \|$", markdown, re.M)
    assert row, markdown
    cells = [c.split(" ")[0] for c in row.group(1).split(" | ")]
    assert cells[:10] == [
        _cell(grid[f"subtlebench_grid_{k}"]["accuracy,none"])
        for k in ("at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac")
    ]
    assert re.search(r"^\| random_choice \(seed=0\) † \| Reasoning \|", markdown, re.M)
    paper = SUBTLEBENCH_PAPER["table4"]["rows"]["GPT-5-main / Grid"]  # the paper's strategy rows beside the runs'
    assert "| GPT-5-main (Table 4) | Grid | " + " | ".join(f"{v:.1f}" for v in paper) + " |" in markdown
    pair = runs.results["pair"]["results"]
    row = re.search(r"^\| random_choice \(seed=1\) † \| two images \| (.*) \|$", markdown, re.M)
    assert row and _cell(pair["compbench_pair_attribute_cub"]["accuracy,none"]) == row.group(1).split(" | ")[3]
    if "caption" in runs.results:  # the caption-only and few-shot-only run
        caption = runs.results["caption"]["results"]
        row = re.search(r"^\| vlm † \| ([^|]+) \| ([^|]+) \| \d+ \|$", markdown, re.M)
        assert (
            row
            and row.group(1).strip() == f"{caption['subtlebench_caption']['css,none']:.2f}"
            and row.group(2).strip() == _cell(caption["subtlebench_caption"]["judge_accuracy,none"])
        )
        fewshot = re.search(r"^\| vlm † \| few-shot \(All, Table 7\) \| ([^|]+) \|", markdown, re.M)
        assert fewshot and fewshot.group(1).split(" ")[0] == f"{caption['vidi_fewshot']['bleu1,none']:.1f}"
    keys = {t["key"] for t in document["tables"]}
    assert {"subtlebench_strategies", "compbench_inputs", "subtlebench_table2", "vlm2bench_table1"} <= keys
    for table in document["tables"]:
        with open(tmp_path / "r" / table["csv"], newline="") as handle:
            rows = list(csv.reader(handle))
        assert rows[0] == table["columns"]
        assert not [cell for row in rows for cell in row if "**" in cell or "`" in cell], table[
            "csv"
        ]  # plain text, no Markdown
        assert not [r for r in table["rows"] if "**" in str(r.get(table["columns"][0], ""))]


def test_the_papers_models_ranks_and_the_reproduction_check(runs, tmp_path):
    markdown, document = _report(runs, tmp_path)
    paper = SUBTLEBENCH_PAPER["table2"]["rows"]["Qwen2.5-VL-7B"]
    assert "| Qwen2.5-VL-7B (paper) | " + " | ".join(f"{v:.1f}" for v in paper) + " |" in markdown
    assert f"Reproduction check: `{QWEN}` † is the paper's **Qwen2.5-VL-7B** (VLM-SubtleBench, Table 2)" in markdown
    assert "Not a reproduction of the paper's setting: the run's items are not the release's (subset)." in markdown
    verdict = re.search(
        rf"`{re.escape(QWEN)}` † is the paper's \*\*Qwen2.5-VL-7B\*\* \(VLM-SubtleBench, Table 2\): "
        r"reproduced in (\d+) of (\d+) columns",
        markdown,
    )
    assert verdict and int(verdict.group(2)) == 11
    ours = runs.results["qwen"]["results"]["subtlebench_at"]["accuracy,none"] * 100
    table = next(
        t for t in document["tables"] if t["key"].startswith("reproduction_table2") and t["benchmark"] == "subtlebench"
    )
    at = next(r for r in table["rows"] if r["Column"] == "at")
    assert at["Paper"]["value"] == paper[0] and at["Ours"]["value"] == pytest.approx(round(ours, 1))
    assert at["Ours - paper"]["value"] == pytest.approx(round(round(ours, 1) - paper[0], 1), abs=0.11)
    assert (
        "Reproduction check" in markdown
        and "VLM²-Bench" in markdown
        and "Qwen2.5-VL-7B** (VLM²-Bench, Table 1)" in markdown
    )
    # A fixture run: placed by its value, not ranked as if comparable.
    rank = re.search(
        rf"^\| {re.escape(QWEN)} † \| avg \| [\d.]+ \| not comparable: subset \(its value would place "
        r"(\d+) of (\d+)\) \|$",
        markdown,
        re.M,
    )
    models = [
        v for m, v in SUBTLEBENCH_PAPER["table2"]["rows"].items() if m not in SUBTLEBENCH_PAPER["table2"]["reference"]
    ]
    assert rank and int(rank.group(2)) == len(models) + 1


def test_paper_rows_options_and_a_users_alias(runs, tmp_path):
    markdown, _ = _report(runs, tmp_path, "--paper-rows", "matched")
    assert "| Qwen2.5-VL-7B (paper) |" in markdown and "| Qwen2.5-VL-72B (paper) |" not in markdown
    markdown, _ = _report(runs, tmp_path, "--paper-rows", "matched", "--alias", f"Qwen2.5-VL-72B={QWEN}")
    assert (
        f"`{QWEN}` † is the paper's **Qwen2.5-VL-72B** (VLM-SubtleBench, Table 2)" in markdown
    )  # the user's alias wins
    assert (
        "| Qwen2.5-VL-72B (paper) |" in markdown
        and "| Qwen2.5-VL-7B (paper) |" not in markdown.split("## VLM²-Bench", 1)[0]
    )
    markdown, _ = _report(runs, tmp_path, "--paper-rows", "none")
    assert "(paper) |" not in markdown.split("## VLM-SubtleBench", 1)[1].split("Reproduction check", 1)[0].replace(
        "Random Guess (paper)", ""
    ).replace("Human Eval (paper)", "")
    assert "Reproduction check" in markdown
    bad = run_report(str(runs.out / "qwen"), "-o", str(tmp_path / "bad"), "--alias", "no-equals-sign")
    assert bad.returncode == 2 and "--alias 'no-equals-sign': expected PAPER_MODEL=MODEL_ID" in bad.stderr
    assert len(VLM2_PAPER["table1"]["columns"]) == 10
