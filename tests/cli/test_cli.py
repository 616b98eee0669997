"""Task registration, the random_choice baseline, bad data and two processes, through the real CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import FULL_INDEX, SUBTLEBENCH_TASKS, base_env, eval_args, read_run, run_cli, run_python, torchrun

from lmms_comparative import yaml_dir


@pytest.mark.e2e
def test_lmms_eval_lists_our_tasks_without_include_path(hf_home):
    proc = run_cli(["--tasks", "list"], env=base_env(hf_home, **FULL_INDEX))
    listed = proc.stdout + proc.stderr
    for name in ["subtlebench", "subtlebench_reasoning", *SUBTLEBENCH_TASKS, "mme"]:
        assert f" - {name}\n" in listed, name
    # LMMS_COMPARATIVE_OUR_TASKS_ONLY (what score and verify set): our tasks, none of lmms-eval's.
    proc = run_cli(["--tasks", "list"], env=base_env(hf_home, LMMS_COMPARATIVE_OUR_TASKS_ONLY="1"))
    listed = proc.stdout + proc.stderr
    assert all(
        f" - {name}\n" in listed for name in ["subtlebench", *SUBTLEBENCH_TASKS, "captionqa_simple", "vidi_granular"]
    ), listed[-2000:]
    assert " - mme\n" not in listed


@pytest.mark.e2e
def test_include_path_fallback_prints_a_folder_lmms_eval_accepts(hf_home):
    printed = subprocess.run(
        [sys.executable, "-m", "lmms_comparative", "include-path"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert printed == yaml_dir() and Path(printed, "subtlebench", "yaml", "subtlebench_sp.yaml").is_file()
    # With the automatic hook switched off, the documented --include-path route still finds the tasks.
    env = base_env(hf_home, LMMS_COMPARATIVE_NO_TASK_HOOK="1", **FULL_INDEX)
    proc = run_python(["-m", "lmms_eval", "tasks", "list", "--include-path", printed], env=env)
    assert "  subtlebench_sp\n" in proc.stdout
    hidden = run_python(["-m", "lmms_eval", "--tasks", "list"], env=env)
    assert " - subtlebench_sp\n" not in hidden.stdout + hidden.stderr


def _random_run(root: Path, out: Path, hf_home: Path, launcher=None, tasks="subtlebench"):
    """A baseline run with our folder indexed alone (the runs of a user's full index are in
    test_lmms_eval_lists_our_tasks_without_include_path, the include-path tests and the docs' blocks)."""
    proc = run_cli(
        eval_args("random_choice", tasks, out, model_args="seed=7"),
        env=base_env(hf_home, SUBTLEBENCH_ROOT=str(root)),
        launcher=launcher,
    )
    return proc


@pytest.fixture(scope="module")
def single_process(subtlebench_root, hf_home, tmp_path_factory):
    out = tmp_path_factory.mktemp("single")
    proc = _random_run(subtlebench_root, out, hf_home)
    return read_run(out, proc)


@pytest.mark.e2e
def test_random_choice_baseline_runs_with_no_weights(single_process):
    results, samples = single_process
    group = results["groups"]["subtlebench"]
    assert group["counts,none"]["unparsed"] == 0 and group["counts,none"]["failed"] == 0
    for task in SUBTLEBENCH_TASKS:
        for sample in samples[task]:
            n_options = sample["accuracy"]["n_options"]
            assert sample["accuracy"]["parsed"] in "ABCDE"[:n_options]


@pytest.mark.e2e
def test_two_processes_give_the_same_scores_as_one(single_process, subtlebench_root, hf_home, tmp_path):
    proc = _random_run(subtlebench_root, tmp_path, hf_home, launcher=torchrun())
    results2, samples2 = read_run(tmp_path, proc)
    assert "Running on rank 1" in proc.stdout + proc.stderr  # the work really was split over two processes
    assert len(list(tmp_path.glob("**/*_results.json"))) == 1
    results1, samples1 = single_process
    for name in ["subtlebench", *SUBTLEBENCH_TASKS]:
        row1 = results1["groups"].get(name) or results1["results"][name]
        row2 = results2["groups"].get(name) or results2["results"][name]
        for metric in ("accuracy,none", "chance,none", "counts,none", "by_domain,none", "by_source,none"):
            assert row2[metric] == row1[metric], (name, metric)
    for task in SUBTLEBENCH_TASKS:
        answers1 = {s["accuracy"]["item_id"]: s["accuracy"]["parsed"] for s in samples1[task]}
        answers2 = {s["accuracy"]["item_id"]: s["accuracy"]["parsed"] for s in samples2[task]}
        assert answers2 == answers1
    # What produced the results is recorded the same by one process and by two.
    assert results2["lmms_comparative"] == results1["lmms_comparative"]


@pytest.mark.e2e
def test_the_results_file_says_what_produced_it(single_process, subtlebench_root):
    import hashlib
    import importlib.metadata
    import platform

    from lmms_comparative import __version__, provenance

    results, samples = single_process
    record = results["lmms_comparative"]
    assert record["package"]["version"] == __version__
    assert (
        record["lmms_eval"] == importlib.metadata.version("lmms-eval") and record["python"] == platform.python_version()
    )
    assert record["libraries"]["datasets"] == importlib.metadata.version("datasets")
    assert record["settings"]["SUBTLEBENCH_ROOT"] == str(subtlebench_root)
    assert record["seeds"]["random_seed"] == results["config"]["random_seed"]
    assert record["llm"] == {}  # nothing judged: no judge settings
    assert set(record["tasks"]) == set(SUBTLEBENCH_TASKS)  # the group itself is no task
    data = {
        "source": "local",
        "variable": "SUBTLEBENCH_ROOT",
        "root": str(subtlebench_root.resolve()),
        "fingerprint": provenance.fingerprint(subtlebench_root.resolve()),
    }
    for task in SUBTLEBENCH_TASKS:
        entry = record["tasks"][task]
        assert entry["benchmark"] == "subtlebench" and entry["data"] == data
        keys = sorted(s["accuracy"]["item_id"] for s in samples[task])
        in_doc_order = [s["accuracy"]["item_id"] for s in sorted(samples[task], key=lambda s: s["doc_id"])]
        assert entry["items"] == {
            "count": len(keys),
            "sha256": hashlib.sha256("\n".join(keys).encode()).hexdigest(),
            "order_sha256": hashlib.sha256("\n".join(in_doc_order).encode()).hexdigest(),
        }
        assert len(entry["prompts"]) == 64


@pytest.mark.e2e
def test_missing_root_fails_with_a_message_naming_it(hf_home, tmp_path):
    proc = _random_run(tmp_path / "no_such_copy", tmp_path / "out", hf_home, tasks="subtlebench_sp")
    assert not list((tmp_path / "out").glob("**/*_results.json"))
    logs = proc.stdout + proc.stderr
    assert "SUBTLEBENCH_ROOT=" in logs and "no_such_copy" in logs


@pytest.mark.e2e
def test_readme_demo_runs_offline_on_synthetic_pairs(hf_home, tmp_path):
    """The README's first command (after install): synthetic pairs, the real CLI, the baseline."""
    env = base_env(hf_home, **FULL_INDEX)
    proc = run_python(["-m", "lmms_comparative", "demo", "--output", str(tmp_path)], env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    tasks = ("subtlebench_at", "subtlebench_ex", "subtlebench_qn", "subtlebench_vp", "subtlebench_sp")
    guess, _ = read_run(tmp_path / "results" / "random_choice", proc)
    pixels, _ = read_run(tmp_path / "results" / "pixel_diff", proc)
    for task in tasks:
        assert (
            guess["results"][task]["counts,none"]["n"] == 45 and guess["results"][task]["counts,none"]["unparsed"] == 0
        )
        # In percent, as the README says them (25%, 50% for quantity): chance, then each baseline's accuracy.
        printed = re.search(rf"^{task}\s+45\s+(\d+)%\s+([\d.]+)%\s+([\d.]+)%$", proc.stdout, re.M)
        assert printed, proc.stdout[-2000:]
        assert printed.group(1) == ("50" if task == "subtlebench_qn" else "25")
        assert float(printed.group(2)) == pytest.approx(100 * guess["results"][task]["accuracy,none"], abs=0.05)
        assert float(printed.group(3)) == pytest.approx(100 * pixels["results"][task]["accuracy,none"], abs=0.05)
    assert (
        guess["results"]["subtlebench_qn"]["chance,none"] == 0.5
        and guess["results"]["subtlebench_ex"]["chance,none"] == 0.25
    )
    # Each run verified in this process before the report (one line each), so the report shows PASS, not "not verified".
    for model in ("random_choice", "pixel_diff"):
        assert re.search(
            rf"^verify results/{model}: PASS \(\d+ tasks and groups re-scored from the samples\)$", proc.stdout, re.M
        ), proc.stdout[-3000:]
    assert [
        r["verify"].split(" (")[0] for r in json.loads((tmp_path / "report" / "report.json").read_text())["runs"]
    ] == ["PASS", "PASS"]
    assert "not verified" not in (tmp_path / "report" / "report.md").read_text()
    # The pixel heuristic reads these synthetic differences: far above chance on the types it models.
    pixel_mean = sum(pixels["results"][t]["accuracy,none"] for t in tasks) / 5
    chance_mean = sum(guess["results"][t]["chance,none"] for t in tasks) / 5
    assert pixel_mean > chance_mean + 0.3
    # The page to open is said first: index.html, then the Markdown.
    said = [
        line for line in proc.stdout.splitlines() if line.lstrip().startswith(("report: ", str(tmp_path / "report")))
    ]
    assert said[0].startswith(f"report: {tmp_path / 'report' / 'index.html'} (open it in a browser") and said[
        1
    ].strip().startswith(str(tmp_path / "report" / "report.md")), said
    _check_demo_report(tmp_path)
    # A second demo into the same folder replaces the first one's files: one run per baseline in
    # the report and its chart, not two; a file the demo did not write is left alone.
    (tmp_path / "results" / "mine.txt").write_text("a file of the user's")
    again = run_python(["-m", "lmms_comparative", "demo", "--output", str(tmp_path)], env=env, timeout=600)
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr[-3000:]
    assert "replacing the earlier demo" in again.stdout + again.stderr
    for model in ("random_choice", "pixel_diff"):
        assert len(list((tmp_path / "results" / model).glob("**/*_results.json"))) == 1, model
    assert (tmp_path / "results" / "mine.txt").read_text() == "a file of the user's"
    report = json.loads((tmp_path / "report" / "report.json").read_text())
    assert [r["name"] for r in report["runs"]] == ["random_choice", "pixel_diff"]
    assert [r["verify"].split(" (")[0] for r in report["runs"]] == ["PASS", "PASS"]  # the second demo's own verdicts
    _check_demo_report(tmp_path)


def _check_demo_report(out: Path) -> None:
    """The demo's report: the image-order check and the difficulty heatmaps, against the samples."""
    from lmms_comparative.benchmarks.subtlebench.charts import HEATMAP_FACTORS, difficulty_grid

    markdown = (out / "report" / "report.md").read_text()
    # The item browser shows the demo's own pairs: its data folder is a data root of the report.
    assert "outside the data roots" not in markdown and len(list((out / "report" / "thumbs").iterdir())) > 0
    for model in ("random_choice", "pixel_diff"):
        results, samples = read_run(out / "results" / model)
        # subtlebench_swap: the quantity items ("first image"/"second image"), images swapped.
        swapped = {s["accuracy"]["item_id"]: s["accuracy"] for s in samples["subtlebench_swap"]}
        original = {s["accuracy"]["item_id"]: s["accuracy"] for s in samples["subtlebench_qn"]}
        assert set(swapped) == set(original) and results["results"]["subtlebench_swap"]["counts,none"]["n"] == 45
        for key, item in swapped.items():  # the answer moved to the other option, the options stayed
            assert item["answer"] != original[key]["answer"] and item["answer_text"] != original[key]["answer_text"]
        consistent = sum(swapped[k]["picked"] != original[k]["picked"] for k in swapped) / len(swapped)
        acc_swapped = results["results"]["subtlebench_swap"]["accuracy,none"]
        row = re.search(
            rf"^\| {model} † \| all \| 45 \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|", markdown, re.M
        )  # † generated items
        assert row, markdown
        assert [float(v) for v in row.groups()] == pytest.approx(
            [results["results"]["subtlebench_qn"]["accuracy,none"] * 100, acc_swapped * 100, consistent * 100],
            abs=0.051,
        )
        # Heatmaps: every item lands in one cell, and the cells add up to the task's accuracy.
        for task in ("subtlebench_at", "subtlebench_sp", "subtlebench_ex", "subtlebench_qn", "subtlebench_vp"):
            items = [s["accuracy"] for s in samples[task]]
            x, y = HEATMAP_FACTORS[items[0]["category"]]
            _, _, acc, counts = difficulty_grid(items, x, y)
            assert counts.sum() == 45 and counts.shape[1] == 3
            hits = (acc * counts)[counts > 0].sum()
            assert hits / 45 == pytest.approx(results["results"][task]["accuracy,none"])
    # The item browser lists items as numbers count: ..._2 before ..._10 (text order put _10 first).
    index = json.loads((out / "report" / "items" / "index.js").read_text().split("=", 1)[1].rstrip().rstrip(";"))
    chunk = (out / "report" / "items" / "chunk_00000.js").read_text()
    keys = [
        r["key"] for r in json.loads(chunk[chunk.index(", ") + 2 : chunk.rindex(");")]) if r["task"] == "subtlebench_at"
    ]
    assert (
        len(keys) == 45
        and [int(k.rsplit("_", 1)[1]) for k in keys] == sorted(int(k.rsplit("_", 1)[1]) for k in keys)
        and index["rows"]
    )
    pixel_results, _ = read_run(out / "results" / "pixel_diff")
    assert pixel_results["results"]["subtlebench_swap"]["accuracy,none"] == 1.0  # it reads the images, in either order
    _nontrivial_png(out / "report" / "subtlebench_synthetic_difficulty.png")
    # As a new user reads it: the items are said to be synthetic, the empty AVG has its reason,
    # the way on is given, and the bar chart draws the runs' own chance (25% for AT, 50% for QN).
    assert "**Synthetic items.** Runs `random_choice`, `pixel_diff` scored pairs generated here" in markdown
    assert "AVG is empty for runs `random_choice`, `pixel_diff`: it is the `subtlebench` group's accuracy" in markdown
    assert "**What next.**" in markdown and "--tasks subtlebench --output_path results/" in markdown
    # Beside the paper's models, the synthetic runs are marked and the footnote says why.
    paper = markdown.split("your runs among the paper's models", 1)[1]
    assert (
        re.search(r"^\| \*\*pixel_diff\*\* † \| ", paper, re.M)
        and "- `pixel_diff`: not the release: 225 items made by lmms-comparative synthetic" in paper
    )
    from lmms_comparative.benchmarks.subtlebench import BENCHMARK
    from lmms_comparative.benchmarks.subtlebench.charts import subtlebench_figure
    from lmms_comparative.report.run_folders import load_runs

    runs = load_runs([str(out / "results" / m) for m in ("random_choice", "pixel_diff")])
    figure = subtlebench_figure(BENCHMARK, runs)
    axes = figure.axes[0]
    labels = [text.get_text() for text in axes.get_legend().get_texts()]
    assert "chance on the run's items" in labels, labels
    chance = next(c for c in axes.collections if c.get_label() == "chance on the run's items")
    levels = {round(float(x)): float(y) for x, y in chance.get_offsets() if y == y}
    assert levels[0] == pytest.approx(25.0) and 50.0 in levels.values(), levels
    # Human and chance marks differ in colour and shape: the run's chance is no black line beside the human one.
    human = next(c for c in axes.collections if c.get_label() == "Human Eval (paper)")
    assert tuple(chance.get_facecolor()[0]) != tuple(human.get_facecolor()[0])
    assert chance.get_paths()[0].vertices.tolist() != human.get_paths()[0].vertices.tolist()  # another marker shape
    # The heatmaps read at the page's width: labels of 10 points or more, a factor held fixed as one
    # value (not "35-35").
    from lmms_comparative.benchmarks.subtlebench.charts import heatmap_figure

    heatmaps = heatmap_figure(runs)
    ticks = [t for ax in heatmaps.axes for t in ax.get_xticklabels() + ax.get_yticklabels()]
    assert (
        ticks
        and min(t.get_fontsize() for t in ticks) >= 10
        and min(ax.xaxis.label.get_fontsize() for ax in heatmaps.axes) >= 10
    )
    assert not [t.get_text() for t in ticks if "–" in t.get_text() and len(set(t.get_text().split("–"))) == 1]
    assert {ax.get_ylabel() for ax in heatmaps.axes} >= {
        "object size (px)"
    } and heatmaps.get_figwidth() * heatmaps.dpi <= 1000


def _nontrivial_png(path: Path) -> None:
    from PIL import Image

    image = Image.open(path).convert("RGB")
    assert image.width >= 600 and image.height >= 400
    assert len(image.getcolors(maxcolors=1 << 20) or []) > 20  # bars, marks, text: not a blank canvas


@pytest.mark.e2e
def test_report_tables_and_chart_from_two_baseline_runs(subtlebench_root, hf_home, tmp_path):
    from lmms_comparative.cli import main

    for model in ("random_choice", "pixel_diff"):
        run_cli(
            eval_args(model, "subtlebench", tmp_path / model),
            env=base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root)),
        )
    assert (
        main(["report", str(tmp_path / "random_choice"), str(tmp_path / "pixel_diff"), "-o", str(tmp_path / "report")])
        == 0
    )
    markdown = (tmp_path / "report" / "report.md").read_text()
    results, samples = read_run(tmp_path / "random_choice")
    row = (
        re.search(r"^\| random_choice † \| (.*) \|$", markdown, re.M).group(1).split(" | ")
    )  # † a fixture: 4 items a type
    assert len(row) == 11  # ten types and AVG
    avg = results["groups"]["subtlebench"]["accuracy,none"] * 100
    assert row[-1].startswith(f"{avg:.1f} ±")
    assert "| Human Eval (paper) | 92.0 |" in markdown and "| Random Guess (paper) | 35.9 |" in markdown
    assert "By domain" in markdown
    _nontrivial_png(tmp_path / "report" / "subtlebench_types.png")


def test_fixture_prints_an_absolute_root_and_the_usage_names_every_benchmark(tmp_path):
    from helpers import run_tool

    proc = run_tool("fixture", "compbench", "cbdata", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == f"COMPBENCH_ROOT={(tmp_path / 'cbdata').resolve()}", (
        proc.stdout + proc.stderr
    )
    usage = run_tool("--help", cwd=tmp_path).stdout
    assert "lmms-comparative fixture BENCHMARK DIR" in usage and all(
        name in usage.split("fixture BENCHMARK DIR", 1)[1].split("lmms-comparative demo", 1)[0]
        for name in ("subtlebench", "captionqa", "compbench", "vidi", "vlm2bench")
    )
