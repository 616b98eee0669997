"""The first page's rows come from each benchmark's report part (``ReportPart.headlines``): the
headline where a run has its group, else each column of the headline's table the run has, labelled
as the part says. Unit tests on results dicts; the browser test of the page is in test_pair_report.py."""

from __future__ import annotations

from lmms_comparative.registry import BENCHMARKS, BY_NAME
from lmms_comparative.report import overview
from lmms_comparative.reportlib.runs import Run


def _run(rows: dict) -> Run:
    return Run(
        "m", {"results": {task: {"overall,none": 0.5, "easy_recall,none": 0.4, "accuracy,none": 0.3} for task in rows}}
    )


def test_every_benchmark_with_paper_tables_has_a_headline_in_them():
    for benchmark in BENCHMARKS:
        tables = benchmark.paper()["tables"]
        headlines = benchmark.report_part().headlines
        assert headlines, benchmark.name
        for headline in headlines:
            assert headline.column in tables[headline.table]["columns"], (benchmark.name, headline)


def test_a_run_with_the_group_shows_the_headline_and_one_without_it_the_columns_it_has():
    diffspot = BY_NAME["diffspot"]
    full = overview.entries(diffspot, [_run({"diffspot": 1})])
    assert [(e.label, e.table, e.column, e.tasks) for e in full] == [
        ("Overall", "leaderboard", "overall_accuracy", ["diffspot"])
    ]
    tier = overview.entries(diffspot, [_run({"diffspot_easy": 1})])
    assert [(e.label, e.column, e.tasks) for e in tier] == [("Easy", "easy_recall", ["diffspot_easy"])]
    # SubtleBench labels a type's column in capitals, as Table 2 does.
    types = overview.entries(BY_NAME["subtlebench"], [_run({"subtlebench_sp": 1})])
    assert [(e.label, e.tasks) for e in types] == [("SP", ["subtlebench_sp"])]
    assert overview.entries(diffspot, [_run({"subtlebench_sp": 1})]) == []  # nothing of its own: no row
