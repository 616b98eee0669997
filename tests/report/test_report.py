"""The report next to the papers: scales, reference rows, intervals, run names, charts, bad input."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import run_report

from lmms_comparative.benchmarks.subtlebench import BENCHMARK as SUBTLEBENCH
from lmms_comparative.benchmarks.subtlebench import charts as subtlebench_charts
from lmms_comparative.benchmarks.subtlebench import report as subtlebench_report
from lmms_comparative.benchmarks.vlm2bench import report as vlm2bench_report
from lmms_comparative.report import Run, charts_of, load_runs, model_colours, section_of, write_report
from lmms_comparative.reportlib.cells import cell

TYPES = [k for k, _ in subtlebench_report.SUBTLEBENCH_TYPES]


def _write_run(
    folder: Path,
    results: dict,
    samples: dict[str, list[dict]] | None = None,
    model: str = "m",
    model_args: str = "",
    stamp: str = "20260101_000000",
) -> Path:
    """A results folder as lmms-eval writes it: <output_path>/<model>/<date>_results.json."""
    path = folder / model
    path.mkdir(parents=True, exist_ok=True)
    results = {"config": {"model": model, "model_args": model_args}, **results}
    (path / f"{stamp}_results.json").write_text(json.dumps(results))
    for task, rows in (samples or {}).items():
        # lmms-eval writes an integer doc_id on every samples line (the report requires one)
        (path / f"{stamp}_samples_{task}.jsonl").write_text(
            "".join(json.dumps({"doc_id": n, **r}) + "\n" for n, r in enumerate(rows))
        )
    return folder


def _row(markdown: str, name: str, setting: str | None = None) -> list[str]:
    """A row's cells after the first; the run's name may carry the report's dagger (its items are
    not shown to be the release's: these runs carry no record of them)."""
    head = re.escape(name) + "(?: †)?" + (r" \| " + setting if setting else "")
    match = re.search(rf"^\| {head} \| (.*) \|$", markdown, re.M)
    assert match, markdown
    return match.group(1).split(" | ")


def _section(markdown: str, title: str) -> str:
    return markdown.split(f"## {title}", 1)[1].split("\n## ", 1)[0]


# ---- ViDi: the paper's scale and its human rows -------------------------------------------------

VIDI_V2 = {  # values on the paper's x100 scale (task version 2)
    "bleu1,none": 30.0, "bleu2,none": 15.0, "bleu3,none": 7.5, "bleu4,none": 3.5, "rougeL,none": 20.0,
    "cider,none": 21.2,
    "precision,none": 40.0, "recall,none": 95.0, "f1,none": 56.3,
    "ci95,none": {
        "cider": {"value": 21.2, "low": 19.0, "high": 23.9, "se": 1.2, "bounds": [0.0, 1000.0]},
        "recall": {"value": 95.0, "low": 79.1, "high": 100.0, "se": 8.0, "bounds": [0.0, 100.0]},
        "bleu2": {"value": 15.0, "low": 0.0, "high": 32.0, "se": 8.5, "bounds": [0.0, 100.0]},
    },
}  # fmt: skip


def _as_fractions(row: dict) -> dict:
    """The same row as version 1 wrote it (fractions), with its intervals unclipped."""
    out = {k: v / 100 for k, v in row.items() if not isinstance(v, dict)}
    out["ci95,none"] = {m: {k: v / 100 for k, v in e.items() if k != "bounds"} for m, e in row["ci95,none"].items()}
    out["ci95,none"]["recall"]["high"] = 0.95 + 1.96 * 0.08  # 1.107: past 100%
    out["ci95,none"]["bleu2"]["low"] = 0.15 - 1.96 * 0.085  # negative
    return out


def test_vidi_on_the_paper_scale_with_the_human_row(tmp_path):
    new = _write_run(
        tmp_path / "new",
        {"results": {}, "groups": {"vidi_global_avg": VIDI_V2}, "versions": {"vidi_global_avg": 2.0}},
        model="new",
    )
    old = _write_run(
        tmp_path / "old",
        {"results": {}, "groups": {"vidi_global_avg": _as_fractions(VIDI_V2)}, "versions": {"vidi_global_avg": 1.0}},
        model="old",
    )
    markdown = write_report([str(new), str(old)], tmp_path / "r").read_text()
    for name in ("new", "old"):  # both versions print the paper's scale: CIDEr 21.2, not 0.2
        cells = _row(markdown, name, "global")
        assert [c.split(" ")[0] for c in cells] == [
            "30.0",
            "15.0",
            "7.5",
            "3.5",
            "20.0",
            "21.2",
            "40.0",
            "95.0",
            "56.3",
        ]
        assert cells[5] == "21.2 ±2.7"
        # Clipped at the metric's range: recall's interval stops at 100, BLEU-2's at 0.
        assert cells[7] == "95.0 (79.1–100.0)" and cells[1].startswith("15.0 (0.0–")
    # ViDi Table 8 "(avg) Human" and Table 2 "Humans", global setting.
    assert _row(markdown, "Human avg (paper, 10 pairs)", "global") == [
        "35.3",
        "21.0",
        "11.5",
        "6.4",
        "26.5",
        "5.4",
        "77.9",
        "63.8",
        "70.1",
    ]
    assert "x100" in _section(markdown, "ViDi")


def test_cell_prints_a_range_where_plus_minus_would_leave_the_metric_range():
    assert cell(0.5, (0.4, 0.62)) == "50.0 ±12.0"
    assert cell(0.95, (0.79, 1.109)) == "95.0 (79.0–100.0)"
    assert cell(0.02, (-0.03, 0.05)) == "2.0 (0.0–5.0)"
    assert cell(0.3488, digits=2) == "34.88"
    assert cell(-0.05, scale=100, bounds=None) == "-5.0"


# ---- VLM²-Bench at the paper's precision ---------------------------------------------------------


def test_vlm2bench_rows_print_the_papers_two_decimals(tmp_path):
    results = {f"vlm2bench_{t}": {"score,none": 0.25} for t, _ in vlm2bench_report.VLM2_SUBTASKS}
    results["vlm2bench_oc_cnt"] = {"score,none": 0.3412, "counts,none": {"chance_acc_num": 0.34876}}
    run = _write_run(tmp_path / "v", {"results": results, "groups": {"vlm2bench": {"score,none": 0.3014}}})
    markdown = write_report([str(run)], tmp_path / "r").read_text()
    # VLM²-Bench Table 1: OC-Cnt 34.88 and PC-Cnt 34.87 stay apart.
    assert _row(markdown, "Chance-Level (paper)") == [
        "25.00",
        "25.00",
        "50.00",
        "34.88",
        "25.00",
        "50.00",
        "34.87",
        "25.00",
        "-",
        "33.72",
        "-61.44",
    ]
    assert _row(markdown, "Human-Level (paper)")[-2:] == ["95.16", "+0.00"]
    assert _row(markdown, "m")[3] == "34.12" and _row(markdown, "m")[-2:] == ["30.14", "-65.02"]
    assert _row(markdown, "chance on these items (m)")[3] == "34.88"


# ---- intervals need samples ---------------------------------------------------------------------


def _subtlebench(
    folder: Path, with_samples: bool, seed: int = 0, model_args: str = "seed=0", stamp: str = "20260101_000000"
) -> Path:
    results = {f"subtlebench_{k}": {"accuracy,none": 0.5, "chance,none": 0.5} for k in TYPES}
    samples = (
        {f"subtlebench_{k}": [{"accuracy": {"correct": (i + seed) % 2}} for i in range(20)] for k in TYPES}
        if with_samples
        else None
    )
    return _write_run(
        folder,
        {"results": results, "groups": {"subtlebench": {"accuracy,none": 0.5, "chance,none": 0.5}}},
        samples,
        model="random_choice",
        model_args=model_args,
        stamp=stamp,
    )


def test_without_samples_the_report_says_intervals_need_log_samples(tmp_path):
    markdown = write_report([str(_subtlebench(tmp_path / "plain", with_samples=False))], tmp_path / "r").read_text()
    section = _section(markdown, "VLM-SubtleBench")
    assert "--log_samples" in section and "±" not in section and "bootstrap" not in section
    markdown = write_report([str(_subtlebench(tmp_path / "logged", with_samples=True))], tmp_path / "r2").read_text()
    section = _section(markdown, "VLM-SubtleBench")
    assert "95% bootstrap interval" in section and "±" in _row(markdown, "random_choice")[0]


# ---- run names ----------------------------------------------------------------------------------


def test_runs_of_one_model_are_named_by_what_differs(tmp_path):
    a = _subtlebench(tmp_path / "a", True, 0, "seed=0,load_visuals=true")
    b = _subtlebench(tmp_path / "b", True, 1, "seed=1,load_visuals=true")
    assert [r.name for r in load_runs([str(a), str(b)])] == ["random_choice (seed=0)", "random_choice (seed=1)"]
    same_1 = _subtlebench(tmp_path / "monday", True, 0)
    same_2 = _subtlebench(tmp_path / "tuesday", True, 1)
    assert [r.name for r in load_runs([str(same_1), str(same_2)])] == [
        "random_choice (monday)",
        "random_choice (tuesday)",
    ]
    _subtlebench(tmp_path / "monday", True, 1, stamp="20260102_000000")  # a second run in the same folder
    names = [r.name for r in load_runs([str(same_1)])]
    assert names == [
        "random_choice (monday, random_choice/20260101_000000_results.json)",
        "random_choice (monday, random_choice/20260102_000000_results.json)",
    ]


# ---- charts -------------------------------------------------------------------------------------


def _distance(a, b) -> float:
    from matplotlib.colors import to_rgb

    return sum((x - y) ** 2 for x, y in zip(to_rgb(a), to_rgb(b))) ** 0.5


@pytest.mark.parametrize("n", [1, 3, 8, 9, 15, 24])
def test_model_colours_are_distinct_and_apart_from_the_reference_marks(n):
    colours = model_colours(n)
    assert len(set(colours)) == n
    for colour in colours:
        assert _distance(colour, "crimson") > 0.3 and _distance(colour, "black") > 0.5, colour
    assert min(_distance(a, b) for i, a in enumerate(colours) for b in colours[i + 1 :]) > 0.05 if n > 1 else True


def test_subtlebench_chart_has_avg_and_a_legend_over_no_bar():
    from matplotlib.patches import Rectangle

    runs = []
    for i in range(12):
        results = {f"subtlebench_{k}": {"accuracy,none": 0.3 + 0.05 * (i % 5)} for k in TYPES}
        runs.append(Run(f"model number {i}", {"results": results, "groups": {"subtlebench": {"accuracy,none": 0.97}}}))
    fig = subtlebench_charts.subtlebench_figure(SUBTLEBENCH, runs)
    fig.canvas.draw()
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()][-1] == "AVG"
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_height() > 0]
    assert len(bars) == 12 * 11
    assert {round(p.get_height(), 6) for p in bars if p.get_x() > 10} == {97.0}  # the AVG group: each run's headline
    legend = ax.get_legend().get_window_extent()
    assert not any(legend.overlaps(p.get_window_extent()) for p in bars)
    assert legend.x0 >= 0 and legend.x1 <= fig.bbox.x1 and legend.y0 >= 0  # fully on the canvas
    colours = {p.get_facecolor()[:3] for p in bars}
    assert len(colours) == 12
    import matplotlib.pyplot as plt

    plt.close(fig)


# ---- bad input, through the real console command ------------------------------------------------


@pytest.mark.e2e
def test_bad_input_gives_one_message_naming_the_file(tmp_path):
    good = _subtlebench(tmp_path / "good", with_samples=False)
    (tmp_path / "empty").mkdir()
    corrupt = _subtlebench(tmp_path / "corrupt", with_samples=False)
    corrupt_file = next(corrupt.glob("**/*_results.json"))
    corrupt_file.write_text('{"results": {"subtlebench_at": ')
    (tmp_path / "taken").write_text("not a folder")
    cases = [
        ((str(tmp_path / "missing"), "-o", str(tmp_path / "r1")), str(tmp_path / "missing")),
        ((str(tmp_path / "empty"), "-o", str(tmp_path / "r2")), str(tmp_path / "empty")),
        ((str(corrupt), "-o", str(tmp_path / "r3")), str(corrupt_file)),
        ((str(good), "-o", str(tmp_path / "taken")), str(tmp_path / "taken")),
    ]
    for args, named in cases:
        proc = run_report(*args, cwd=tmp_path)
        assert proc.returncode != 0, args
        assert "Traceback" not in proc.stderr and proc.stdout == "", proc.stderr
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("lmms-comparative report: error: ") and named in lines[0], (
            proc.stderr
        )
    assert "JSON" in run_report(str(corrupt), "-o", str(tmp_path / "r3"), cwd=tmp_path).stderr
    ok = run_report(str(good), "-o", str(tmp_path / "r4"), cwd=tmp_path)
    assert ok.returncode == 0 and (tmp_path / "r4" / "report.md").is_file()


class _Unscored(dict):
    """A results row as an unscored task writes it: every metric NaN, the reason under counts."""

    def get(self, key, default=None):
        if key == "counts,none":
            return {"failed": 3, "total": 3, "failure": "judge: 3 of 3 call(s) failed"}
        return float("nan") if key.endswith(",none") else super().get(key, default)


def test_every_section_reads_tasks_that_were_not_scored(tmp_path):
    """Whatever a task wrote NaN for (its scores, ci95, breakdowns), every benchmark's section and
    run summary read it, and the report is written."""
    from lmms_comparative.presentation import our_task_names
    from lmms_comparative.registry import BENCHMARKS
    from lmms_comparative.report import run_summary

    names = sorted(our_task_names())
    results = {
        "results": {name: _Unscored(alias=name) for name in names},
        "groups": {},
        "config": {"model": "m", "model_args": "pretrained=x"},
    }
    runs = [Run("m", results)]
    for benchmark in BENCHMARKS:
        assert section_of(benchmark, runs), benchmark.name
        charts_of(benchmark, runs, tmp_path)
    assert run_summary(results["results"], "out/")


def test_the_run_summary_points_at_the_report_only_where_something_was_saved(monkeypatch):
    from lmms_comparative import presentation
    from lmms_comparative.presentation import our_task_names
    from lmms_comparative.report import run_summary

    results = {name: _Unscored(alias=name) for name in sorted(our_task_names())}
    saved = run_summary(results, "out/")
    assert saved and all(block.endswith("lmms-comparative report out/ -o report/") for block in saved)
    monkeypatch.setattr("sys.argv", ["lmms-eval", "--model", "m", "--tasks", "subtlebench"])
    assert presentation.output_path_hint() is None
    unsaved = run_summary(results, presentation.output_path_hint())
    assert unsaved and all(
        block.endswith(
            "Nothing was saved (no --output_path): run with --output_path DIR --log_samples, then "
            "lmms-comparative report DIR -o report/ for the full tables."
        )
        for block in unsaved
    )
    assert not any("<the run's --output_path>" in block for block in unsaved)
    monkeypatch.setattr("sys.argv", ["lmms-eval", "--output_path=res"])
    assert presentation.output_path_hint() == "res"


def test_a_predict_only_run_is_told_how_to_score_not_shown_an_empty_table():
    from lmms_comparative.report import run_summary

    bypassed = {"alias": "x", "bypass,none": 999, "bypass_stderr,none": "N/A"}
    results = {"subtlebench_at": dict(bypassed), "compbench_attribute_cub": dict(bypassed)}
    (block,) = run_summary(results, "out/")
    assert block.splitlines() == [
        "A --predict_only run: replies only, nothing scored, so no table. Score them (docs/scoring.md):",
        "  lmms-comparative score subtlebench out/ -o scored/subtlebench",
        "  lmms-comparative score compbench out/ -o scored/compbench",
        "then: lmms-comparative report scored/ -o report/",
    ]
    assert "nothing was saved" in run_summary(results, None)[0]
