"""What a person reads after a run: lmms-eval's printed table, the results JSON, W&B and the
closing summary of the run log."""

from __future__ import annotations

import glob
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml
from helpers import base_env, eval_args, read_run, run_cli
from helpers.fake_openai import FakeOpenAI, any_scorer, message_text

from lmms_comparative import yaml_dir
from lmms_comparative.benchmarks.subtlebench import hooks as sb_task
from lmms_comparative.benchmarks.subtlebench.table import COLUMN_METRICS
from lmms_comparative.benchmarks.vidi import hooks as vidi_task
from lmms_comparative.benchmarks.vlm2bench import hooks as v2_task
from lmms_comparative.presentation import CELL_WIDTH, compact, readable_results
from lmms_comparative.registry import BENCHMARKS
from lmms_comparative.tasklib import Share, group_share

# ---- one-line cells ------------------------------------------------------------------------------


def test_counts_cell_keeps_the_numbers_and_puts_a_failure_first():
    counts = {"n": 40, "scored": 40, "correct": 14, "unparsed": 0, "failed": 0, "skipped": 0}
    assert compact(counts) == "n=40, scored=40, correct=14, unparsed=0, failed=0, skipped=0"
    failed = {"failed": 10, "total": 10, "failure": "judge: 10 of 10 call(s) failed"}
    assert compact(failed) == "failure=judge: 10 of 10 call(s) failed, failed=10, total=10"
    # What does not fit is counted, never cut mid-entry; a single entry too long is cut with "…".
    many = {**counts, "skipped_by_reason": {"missing image": 3, "truncated image": 1}}
    assert compact(many) == "n=40, scored=40, correct=14, unparsed=0, failed=0, skipped=0, … +1 more"
    assert compact({"reason": "x" * 100}, width=20) == "reason=xxxxxxxxxxxx…"


def test_breakdown_and_interval_cells():
    sources = {f"src{i:02d}": {"accuracy": i / 8, "correct": i, "n": 8} for i in range(40)}
    cell = compact(sources)
    assert cell.startswith("src00 0, src01 0.125, src02 0.25, ") and cell.endswith(" more") and len(cell) <= CELL_WIDTH
    shown = cell.count(", ")  # entries shown before the note
    assert cell.endswith(f"… +{40 - shown} more")
    ci = {"score": {"value": 0.24, "low": 0.1305, "high": 0.357, "se": 0.06}, "unit": "image"}
    assert compact(ci) == "score [0.1305, 0.357], unit=image"


def test_only_our_rows_are_summarised_for_the_table():
    results = {
        "results": {
            "subtlebench_at": {"counts,none": {"n": 1}, "accuracy,none": 0.5},
            "mmmu_val": {"detail,none": {"a": 1}},
        }
    }
    shown = readable_results(results)
    assert shown["results"]["subtlebench_at"] == {"counts,none": "n=1", "accuracy,none": 0.5}
    assert shown["results"]["mmmu_val"] is results["results"]["mmmu_val"]  # lmms-eval's own tasks untouched
    assert results["results"]["subtlebench_at"]["counts,none"] == {"n": 1}  # the saved values untouched


# ---- the paper's columns as scalars ---------------------------------------------------------------


def test_group_column_is_the_micro_average_over_the_tasks_items():
    # Natural items: 3 of 4 right in one type, 0 of 2 in another. Micro average 3/6; lmms-eval's
    # size-weighted mean (task sizes 10 and 2) would give 0.625, the plain mean 0.375.
    value = group_share([Share(3, 4), Share(0, 2)], [10, 2])
    assert value == pytest.approx(0.5) and (value.hits, value.n) == (3, 6)
    assert group_share([Share(1, 2), 0.25], [2, 4]) == pytest.approx(
        (1 + 1) / 6
    )  # a bare value counts with its task size
    assert json.dumps({"a": Share(1, 4)}) == '{"a": 0.25}'


def _metric_names(path: Path, key: str = "metric_list") -> list[str]:
    text = re.sub(r"!function \S+", "f", path.read_text())
    return [entry["metric"] for entry in yaml.safe_load(text)[key]]


def test_yaml_declares_the_paper_columns():
    folder = Path(yaml_dir()) / "subtlebench" / "yaml"
    task_metrics = _metric_names(folder / "_default_template_yaml")
    assert set(COLUMN_METRICS) <= set(task_metrics)
    assert COLUMN_METRICS[:10] == tuple(
        f"accuracy_{k}" for k in ("at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac")
    )
    group_metrics = _metric_names(folder / "_group_template_yaml", "aggregate_metric_list")
    # lmms-eval applies an entry to every metric whose name contains it, the last entry winning:
    # the columns' own entries must come after `accuracy`.
    assert all(group_metrics.index(m) > group_metrics.index("accuracy") for m in COLUMN_METRICS)


def test_each_item_reports_its_own_type_and_domain_columns_only():
    doc = {
        "item_id": "x",
        "category": "temporal",
        "domain": "game",
        "source": "yt8m",
        "options": ["first image", "second image"],
        "answer_letter": "A",
        "answer": "first image",
    }
    out = sb_task.process_results(doc, ["A"])
    assert sorted(k for k in out if k.startswith("accuracy_")) == ["accuracy_game", "accuracy_tm"]
    assert out["accuracy_tm"] == {"item_id": "x", "correct": 1, "status": "ok", "score": 1}
    industrial = sb_task.process_results({**doc, "domain": "industrial"}, ["B"])
    assert industrial["accuracy_industry"]["correct"] == 0  # the release's spelling, the paper's column
    unknown = sb_task.process_results({**doc, "domain": "underwater"}, ["B"])
    assert sorted(k for k in unknown if k.startswith("accuracy_")) == ["accuracy_tm"]  # by_domain still has it


def test_metrics_that_do_not_apply_are_not_returned():
    pair = {"item_id": "p", "differences": ["a", "b"], "target": ""}
    assert not {"precision", "recall", "f1"} & set(vidi_task.process_results(pair, ["text"]))
    assert {"precision", "recall", "f1"} <= set(vidi_task.process_results_global(pair, ["text"]))
    count = {"uid": "c", "kind": "cnt", "gt": "2", "n_images": 3}
    assert set(v2_task.process_results(count, ["2"])) == {"score", "exact", "counts", "ci95"}
    half = {"uid": "1_p", "kind": "tf", "gt": "T", "pair_id": "1", "half": "p"}
    assert set(v2_task.process_results(half, ["T"])) == {"score", "positive", "negative", "counts", "ci95"}


# ---- every benchmark through the CLI ---------------------------------------------------------------


def _judge(body: dict) -> str:
    """The CaptionQA reader (lettered options, no score asked) always answers A; every judge as
    ``any_scorer`` answers it."""
    text = message_text(body)
    if re.search(r"^[A-Z]\. ", text, re.M) and "Score" not in text:
        return "A"
    return any_scorer(body)


def _wandb_summary(run_dir: Path) -> dict:
    """The summary of an offline W&B run, read from its .wandb file."""
    from wandb.proto import wandb_internal_pb2
    from wandb.sdk.internal import datastore

    store = datastore.DataStore()
    store.open_for_scan(str(next(run_dir.glob("wandb/offline-run-*/run-*.wandb"))))
    summary = {}
    while (data := store.scan_data()) is not None:
        record = wandb_internal_pb2.Record()
        record.ParseFromString(data)
        if record.WhichOneof("record_type") == "summary":
            for item in record.summary.update:
                summary["/".join(item.nested_key) if item.nested_key else item.key] = json.loads(item.value_json)
    return summary


TABLE_CELL = 80  # the bound for one cell
TABLE_LINE = 180  # lmms-eval's columns around the cells (task names up to 36 characters)


@pytest.mark.e2e
def test_every_benchmark_prints_a_readable_table_and_summary(subtlebench_root, fixture_roots, hf_home, tmp_path):
    wandb = pytest.importorskip("wandb")
    roots = {**fixture_roots, "SUBTLEBENCH_ROOT": subtlebench_root}
    # Each registered benchmark's first family (its main group or task), and variants with other tables.
    java = shutil.which("java") is not None  # ViDi's caption metrics
    tasks = [b.task_families[0] for b in BENCHMARKS if java or b.name != "vidi"] + [
        "subtlebench_swap",
        "captionqa_image",
    ]
    if java:
        tasks += ["vidi_global_avg"]
    out = tmp_path / "out"
    with FakeOpenAI(_judge) as server:
        env = base_env(
            hf_home,
            **roots,
            LMMS_COMPARATIVE_LLM_CACHE="off",
            WANDB_MODE="offline",
            WANDB_DIR=str(tmp_path),
            WANDB_SILENT="true",
        )
        env.update(server.every_llm_env())
        proc = run_cli(
            eval_args(
                "random_choice",
                ",".join(tasks),
                out,
                "--wandb_args",
                "project=lmms-comparative-test",
                log_samples=False,
            ),
            env=env,
        )
    results, _ = read_run(out, proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = proc.stdout + proc.stderr

    # The printed tables: every cell within bounds, counts without a direction arrow.
    table = [line for line in proc.stdout.splitlines() if line.startswith("|")]
    assert len(table) > 100
    assert max(len(cell.strip()) for line in table for cell in line.strip("|").split("|")) <= TABLE_CELL
    assert max(len(line) for line in table) <= TABLE_LINE
    counts_rows = [line.split("|") for line in table if "|counts " in line]
    assert counts_rows and all(row[5].strip() == "" for row in counts_rows)
    assert any(re.search(r"\|accuracy_natural +\|↑", line) for line in table)
    assert "ignores model_args" not in log  # the CLI's own --batch_size default is no news

    # The results JSON: nothing reported that does not apply, breakdowns whole.
    rows = {**results["results"], **results.get("groups", {})}
    empty = [
        (task, key) for task, row in rows.items() for key, value in row.items() if isinstance(value, list) and not value
    ]
    assert not empty
    assert "exact,none" not in rows["vlm2bench_gc_mat"] and "exact,none" in rows["vlm2bench_oc_cnt"]
    assert (
        "left_bias,none" not in rows["compbench_existence_magicbrush"]
        and "predicted_left" in rows["compbench_attribute_cub"]["left_bias,none"]
    )
    if "vidi_granular" in rows:
        assert "precision,none" not in rows["vidi_granular"] and "precision,none" in rows["vidi_global"]
    assert (
        results["higher_is_better"]["subtlebench_at"]["counts"] is None
        and results["higher_is_better"]["subtlebench_at"]["accuracy_at"] is True
    )
    group = rows["subtlebench"]
    for code in ("at", "st", "em", "tm", "sp", "ex", "qn", "ql", "vp", "ac"):
        assert group[f"accuracy_{code},none"] == rows[f"subtlebench_{code}"]["accuracy,none"]
    columns = {
        "natural": "natural",
        "industrial": "industry",
        "aerial": "aerial",
        "synthetic": "synthetic",
        "medical": "medical",
    }
    assert set(group["by_domain,none"]) == set(columns)  # the fixture's five domains, whole in the JSON
    for domain, cell in group["by_domain,none"].items():
        assert group[f"accuracy_{columns[domain]},none"] == pytest.approx(cell["correct"] / cell["n"])
    assert "accuracy_game,none" not in group  # no Game item in the fixture: not reported
    at_domains = {
        k
        for k in rows["subtlebench_at"]
        if k.startswith("accuracy_") and "_stderr" not in k and not k.startswith("accuracy_at")
    }
    assert 0 < len(at_domains) < len(columns)  # a type reports the domains of its own items only

    # The run log: a short summary per benchmark in its paper's layout, pointing to the report.
    for title in (
        "VLM-SubtleBench: accuracy (%)",
        "CaptionQA: Overall",
        "VLM²-Bench: scores (%)",
        "MLLM-CompBench: accuracy (%)",
    ):
        assert title in log
    assert log.count(f"lmms-comparative report {out} -o report/") >= 4
    avg = f"{group['accuracy,none'] * 100:.1f}"
    assert re.search(rf"^subtlebench( +[\d.]+){{10}} +{re.escape(avg)}$", log, re.M)

    # W&B (offline): the paper's columns arrive as scalars.
    summary = _wandb_summary(tmp_path)
    assert summary["subtlebench/accuracy_at"] == pytest.approx(group["accuracy_at,none"])
    assert summary["subtlebench/accuracy_natural"] == pytest.approx(group["accuracy_natural,none"])
    assert summary["vlm2bench/score"] == pytest.approx(rows["vlm2bench"]["score,none"])
    del wandb

    # The report reads the same results: the domain table from the breakdown.
    from lmms_comparative.report import write_report

    markdown = write_report([str(out)], tmp_path / "report").read_text()
    assert (
        "By domain (paper Table 10):" in markdown
        and "| Model | aerial | industrial | medical | natural | synthetic |" in markdown
    )
    assert glob.glob(str(tmp_path / "report" / "*.png"))


def test_random_choice_warns_only_about_arguments_it_was_given():
    from loguru import logger

    from lmms_comparative.models.random_choice import RandomChoice

    messages: list[str] = []
    sink = logger.add(messages.append, level="WARNING", format="{message}")
    try:
        RandomChoice(seed=1, batch_size=1, max_batch_size=4, device="cpu")  # the CLI's own settings
        assert messages == []
        RandomChoice(seed=1, batch_size=1, temperature=0.2)
        assert [m.strip() for m in messages] == ["random_choice ignores model_args ['temperature']"]
    finally:
        logger.remove(sink)
