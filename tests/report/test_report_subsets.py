"""A number that is not the released benchmark never stands beside the paper's rows unmarked: runs
on fewer or other items (a subset, fixture or synthetic data, skipped items) carry a dagger and a
footnote with ``subsets``'s reason in every table, are not ranked as if comparable, and say so in
report.json, the CSV files and the charts; a run of the release's full item set is not marked.
Results are built in-process, as lmms-eval and our provenance write them; no process is started."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from lmms_comparative.benchmarks.compbench.report import COMPBENCH_COLUMNS
from lmms_comparative.benchmarks.subtlebench.report import SUBTLEBENCH_TYPES
from lmms_comparative.provenance import KEY, item_set
from lmms_comparative.registry import BY_NAME
from lmms_comparative.report import write_report
from lmms_comparative.report.run_folders import load_runs

TYPES = [k for k, _ in SUBTLEBENCH_TYPES]
COLUMNS = [c for c, _ in COMPBENCH_COLUMNS]
LOCAL = {"source": "local", "variable": "X_ROOT", "root": "/data/x", "fingerprint": "f" * 64}


def _write(folder: Path, results: dict, model: str, stamp: str = "20260101_000000") -> Path:
    """A results folder as lmms-eval writes it: <output_path>/<model>/<date>_results.json."""
    path = folder / model
    path.mkdir(parents=True, exist_ok=True)
    (path / f"{stamp}_results.json").write_text(json.dumps({"config": {"model": model, "model_args": ""}, **results}))
    return folder


def _record(tasks: dict[str, dict], benchmark: str, data: dict | None = None, limit=None) -> dict:
    """Our provenance record: per task its benchmark, data and items (and skips)."""
    entries = {t: {"benchmark": benchmark, "data": dict(data or LOCAL), **e} for t, e in tasks.items()}
    return {"schema": 2, "tasks": entries, "seeds": {} if limit is None else {"limit": limit}}


def _subtlebench(
    folder: Path,
    model: str,
    n: int = 45,
    data: dict | None = None,
    skipped: dict | None = None,
    by_source: str | None = None,
) -> Path:
    """A standard-prompt run over the ten types and the group (AVG), ``n`` items per type."""
    results = {
        f"subtlebench_{k}": {"accuracy,none": 0.6, "chance,none": 0.4, "counts,none": {"n": n, "skipped": 0}}
        for k in TYPES
    }
    if skipped:
        results["subtlebench_at"]["counts,none"]["skipped"] = len(skipped)
    if by_source:
        for k in TYPES:
            results[f"subtlebench_{k}"]["by_source,none"] = {f"{by_source}_{k}": {"accuracy": 0.6}}
    tasks = {f"subtlebench_{k}": {"items": item_set(f"{k}_{i}" for i in range(n))} for k in TYPES}
    if skipped:
        tasks["subtlebench_at"]["skipped"] = skipped
    record = _record(tasks, "subtlebench", data)
    doc = {
        "results": results,
        "groups": {"subtlebench": {"accuracy,none": 0.6, "chance,none": 0.4}},
        "group_subtasks": {"subtlebench": [f"subtlebench_{k}" for k in TYPES]},
    }
    return _write(folder, {**doc, KEY: record}, model)


def _compbench(folder: Path, model: str, release: bool) -> Path:
    """A run of the sixteen columns and Avg: the release's items (its count and sha256 per task,
    release.json), or four fixture items per column."""
    known = BY_NAME["compbench"].release_items()["tasks"]
    tasks = {}
    for column in COLUMNS:
        task = f"compbench_{column}"
        tasks[task] = {
            "items": {"count": known[task]["count"], "sha256": known[task]["sha256"]}
            if release
            else item_set(f"{column}:{i}" for i in range(4))
        }
    data = LOCAL if release else {**LOCAL, "generated": {"generated": "fixture", "benchmark": "compbench"}}
    results = {t: {"accuracy,none": 0.9 if release else 0.95} for t in tasks}
    doc = {
        "results": results,
        "groups": {"compbench": {"accuracy,none": 0.9 if release else 0.95}},
        "group_subtasks": {"compbench": list(tasks)},
    }
    return _write(folder, {**doc, KEY: _record(tasks, "compbench", data)}, model)


def _rank(markdown: str, run: str) -> str:
    found = re.search(rf"^\| {re.escape(run)}(?: †)? \| avg \| [^|]+ \| ([^|]+) \|$", markdown, re.M)
    assert found, markdown
    return found.group(1)


def _report(tmp_path: Path, *folders: Path) -> tuple[str, dict]:
    out = tmp_path / "report"
    markdown = write_report([str(f) for f in folders], out).read_text()
    return markdown, json.loads((out / "report.json").read_text())


def test_a_subset_run_is_marked_in_the_ranking_and_everywhere_else_with_the_reason(tmp_path):
    markdown, document = _report(tmp_path, _subtlebench(tmp_path / "a", "tiny", n=45))
    reason = "subset: 450 of 11688 items of KRAFTON/VLM-SubtleBench"
    # Among the paper's models: the row marked, no rank as if comparable, the footnote's reason.
    assert re.search(r"^\| \*\*tiny\*\* † \| 60\.0 \|", markdown, re.M), markdown
    assert _rank(markdown, "tiny").startswith("not comparable: subset (its value would place ")
    assert re.search(r"^\| tiny † \| avg \| 60\.0 \|", markdown, re.M)
    ranking = markdown.split("Rank among the paper's models", 1)[1].split("\n### ", 1)[0]
    assert f"- `tiny`: {reason}" in ranking and "subtlebench_at: 45 of 1444 items" in ranking
    # The benchmark's own Table 2 too, and the run's overview.
    table2 = markdown.split("paper Table 2.", 1)[1].split("\n\n", 2)[1:]
    assert re.search(r"^\| tiny † \| 60\.0 \|", table2[0], re.M) and f"- `tiny`: {reason}" in table2[1]
    assert "| VLM-SubtleBench: subset |" in markdown
    # report.json and the CSV files carry the reason per run and per row.
    assert document["runs"][0]["subset"]["subtlebench"].startswith(reason)
    rank = next(t for t in document["tables"] if t["key"] == "rank_table2")
    assert (
        rank["columns"][-1] == "subset"
        and rank["rows"][0]["Run"] == "tiny"
        and rank["rows"][0]["subset"].startswith(reason)
    )
    paper = next(t for t in document["tables"] if t["key"] == "paper_table2")
    assert {r["Model"]: r["subset"] for r in paper["rows"]}["GPT-5-thinking (paper)"] is None
    with open(tmp_path / "report" / rank["csv"], newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0][-1] == "subset" and rows[1][0] == "tiny" and rows[1][-1].startswith(reason)


def test_a_full_release_run_is_not_marked_and_a_fixture_run_beside_it_is(tmp_path):
    markdown, document = _report(
        tmp_path,
        _compbench(tmp_path / "full", "release-model", True),
        _compbench(tmp_path / "fix", "fixture-model", False),
    )
    assert re.fullmatch(r"\d+ of 5", _rank(markdown, "release-model")), _rank(markdown, "release-model")
    assert "release-model †" not in markdown and "`release-model`:" not in markdown
    assert re.search(r"^\| release-model \| 90\.0 \|", markdown, re.M)  # Table 2 of the section, unmarked
    assert _rank(markdown, "fixture-model").startswith("not comparable: generated items (its value would place 1 of 5)")
    assert "- `fixture-model`: not the release: 64 items made by lmms-comparative fixture" in markdown
    assert {r["name"]: r["subset"]["compbench"] is None for r in document["runs"]} == {
        "release-model": True,
        "fixture-model": False,
    }


def test_the_compbench_header_repeats_no_label(tmp_path):
    markdown, _ = _report(tmp_path, _compbench(tmp_path / "full", "release-model", True))
    section = markdown.split("## MLLM-CompBench", 1)[1].split("\n### ", 1)[0]
    header = next(line for line in section.splitlines() if line.startswith("| Model |"))
    labels = [c.strip() for c in header.strip("|").split("|")]
    assert len(labels) == len(set(labels)) == 18
    assert (
        labels[1] == "Attribute ST"
        and labels[8] == "State ST"
        and labels[3] == "Attribute VA"
        and labels[9] == "State VA"
    )


def test_skipped_items_are_counted_beside_the_score(tmp_path):
    skipped = {"at_3": "truncated image", "at_7": "missing image"}
    markdown, _ = _report(tmp_path, _subtlebench(tmp_path / "s", "skipper", n=43, skipped=skipped))
    assert re.search(r"^\| skipper † \| 60\.0 \(2 skipped\) \| 60\.0 \|", markdown, re.M), markdown
    assert re.search(r"\| 60\.0 \(2 skipped\) \|$", markdown, re.M)  # AVG: the group's items
    assert "subtlebench_at: 2 item(s) skipped" in markdown
    assert re.search(r"^\| skipper † \| avg \| 60\.0 \(2 skipped\) \| not comparable: subset", markdown, re.M)


@pytest.mark.parametrize(
    "data, by_source, heading",
    [
        ({**LOCAL, "generated": {"generated": "synthetic", "benchmark": "subtlebench"}}, None, "Synthetic"),
        ({**LOCAL, "generated": {"generated": "fixture", "benchmark": "subtlebench"}}, None, "Fixture"),
        (LOCAL, "synthetic", "Synthetic"),  # a record from before the marker: the writers' source names
        (LOCAL, "fixture", "Fixture"),
        (LOCAL, "coco", None),  # a copy of the release (its synthetic domain included)
    ],
)
def test_fixture_and_synthetic_items_get_their_own_heading(tmp_path, data, by_source, heading):
    markdown, _ = _report(tmp_path, _subtlebench(tmp_path / "g", "gen", data=data, by_source=by_source))
    section = markdown.split("## VLM-SubtleBench", 1)[1]
    found = [h for h in ("Synthetic", "Fixture") if f"**{h} items.** Run `gen`" in section]
    assert found == ([heading] if heading else [])
    if heading == "Fixture":
        assert (
            "`lmms-comparative fixture subtlebench`" in section
            and "`lmms-comparative synthetic`" not in section.split("**What next.**")[0]
        )


def test_the_writers_leave_a_marker_that_the_record_and_the_rule_read(tmp_path, monkeypatch):
    from lmms_comparative import provenance
    from lmms_comparative.benchmarks.subtlebench import synthetic
    from lmms_comparative.data.roots import local_root
    from lmms_comparative.subsets import subset_of

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    provenance.reset()
    roots = {
        "fixture": BY_NAME["subtlebench"].build_fixture(tmp_path / "fx", per_category=1),
        "synthetic": synthetic.generate(tmp_path / "syn", per_type=1, types=("attribute",)),
    }
    try:
        for kind, root in roots.items():
            monkeypatch.setenv("SUBTLEBENCH_ROOT", str(root))
            local_root("SUBTLEBENCH_ROOT", "the release's layout")
            data = provenance.data_of("SUBTLEBENCH_ROOT")
            assert data["generated"]["generated"] == kind and data["fingerprint"]
    finally:
        provenance.reset()
    # Generated items are never the release's, even at the release's count.
    count = BY_NAME["subtlebench"].release_items()["tasks"]["subtlebench_at"]["count"]
    record = _record(
        {"subtlebench_at": {"items": {"count": count}}},
        "subtlebench",
        {**LOCAL, "generated": {"generated": "synthetic"}},
    )
    run = type("R", (), {"results": {KEY: record}})()
    assert subset_of(run, BY_NAME["subtlebench"], "subtlebench_at").startswith(
        f"not the release: {count} items made by lmms-comparative synthetic"
    )


def test_the_chart_labels_such_runs_and_claims_no_missing_avg(tmp_path):
    import matplotlib.pyplot as plt

    from lmms_comparative.benchmarks.subtlebench import BENCHMARK
    from lmms_comparative.benchmarks.subtlebench.charts import subtlebench_figure

    folder = _subtlebench(tmp_path / "c", "pixel_diff", data={**LOCAL, "generated": {"generated": "synthetic"}})
    path = next(folder.glob("**/*_results.json"))
    results = json.loads(path.read_text())
    results.pop("groups")  # the demo's run: the five synthetic types, no group, so no AVG
    results["results"] = {t: v for t, v in results["results"].items() if t[-2:] in ("at", "ex", "qn", "vp", "sp")}
    path.write_text(json.dumps(results))
    fig = subtlebench_figure(BENCHMARK, load_runs([str(path)]))  # a results file, as the demo reports its own run
    ax = fig.axes[0]
    title = ax.get_title()
    assert "AVG" not in title and "† not the release's items, not comparable with the paper's numbers" in title.replace(
        ":", ""
    )
    assert "AVG" not in [t.get_text() for t in ax.get_xticklabels()]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "pixel_diff † (generated items)" in labels and "Human Eval (paper)" in labels
    fig.savefig(tmp_path / "chart.png", bbox_inches="tight")
    plt.close(fig)


def test_a_second_demo_replaces_only_what_the_first_one_wrote(tmp_path):
    from lmms_comparative.demo import DEMO_MANIFEST, _files, clear_previous_demo, record_demo

    out = tmp_path / "demo_output"
    (out / "results" / "random_choice").mkdir(parents=True)
    mine = out / "results" / "random_choice" / "notes.txt"  # the user's, there before the demo
    mine.write_text("keep me")
    before = _files(out)
    for rel in (
        "results/random_choice/random_choice/20260101_000000_results.json",
        "report/report.md",
        "report/tables/t.csv",
        "data/test.jsonl",
    ):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text("{}")
    record_demo(out, before)
    listed = json.loads((out / DEMO_MANIFEST).read_text())["files"]
    assert "results/random_choice/notes.txt" not in listed and len(listed) == 4
    assert sorted(clear_previous_demo(out)) == sorted(listed)
    left = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    assert (
        left == ["results", "results/random_choice", "results/random_choice/notes.txt"]
        and mine.read_text() == "keep me"
    )
    assert clear_previous_demo(out) == []  # no manifest: nothing removed


def test_report_json_names_the_benchmarks_a_run_holds_as_the_release_by_item_count_alone(tmp_path):
    """A SubtleBench run of a local copy with the release's count per type is the release on the
    submitter's word (no key list is known here): report.json lists it in the run's
    ``release_by_count_only``, as the tables say "by item count"; a CompBench run whose key hashes
    match the release's is checked, not listed."""
    known = BY_NAME["subtlebench"].release_items()["tasks"]
    results = {
        f"subtlebench_{k}": {
            "accuracy,none": 0.6,
            "counts,none": {"n": known[f"subtlebench_{k}"]["count"], "skipped": 0},
        }
        for k in TYPES
    }
    tasks = {
        f"subtlebench_{k}": {"items": {"count": known[f"subtlebench_{k}"]["count"], "sha256": "0" * 64}} for k in TYPES
    }
    doc = {
        "results": results,
        "groups": {"subtlebench": {"accuracy,none": 0.6}},
        "group_subtasks": {"subtlebench": list(tasks)},
        KEY: _record(tasks, "subtlebench"),
    }
    markdown, document = _report(
        tmp_path, _write(tmp_path / "s", doc, "counted"), _compbench(tmp_path / "c", "checked", True)
    )
    runs = {r["name"]: r for r in document["runs"]}
    assert runs["counted"]["subset"] == {"subtlebench": None} and runs["counted"]["release_by_count_only"] == [
        "subtlebench"
    ], runs["counted"]
    assert runs["checked"]["subset"] == {"compbench": None} and runs["checked"]["release_by_count_only"] == [], runs[
        "checked"
    ]
    assert (
        "VLM-SubtleBench: the release by item count (keys not checked)" in markdown
        and "MLLM-CompBench: the release |" in markdown
    )
