"""The benchmark contract (lmms_comparative/benchmarks/contract.py, docs/adding-a-benchmark.md):
every registered benchmark holds it; so do the guide's two toy benchmarks (tests/contract/toymcq,
text multiple choice; tests/contract/toyjudge, image pairs and an LLM judge), each added to a copy
of the package the way a contributor adds one (its folder and one registry line); removing any
required part or key from a toy fails the check, naming the part; and through the real CLI each toy
runs, is scored from its samples, verified and reported, without a line of code outside its folder
(Toy MCQ also fails a run whose replies failed; Toy Judge asks its judge on a local endpoint)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import base_env, eval_args, load_module, read_run, run_cli, run_python
from helpers.fake_openai import FakeOpenAI, any_scorer, message_text

import lmms_comparative
from lmms_comparative.benchmarks import contract
from lmms_comparative.registry import BENCHMARKS

TOYS = {name: Path(__file__).resolve().parent / name for name in ("toymcq", "toyjudge")}
TOY = TOYS["toymcq"]


@pytest.mark.slow
@pytest.mark.parametrize("benchmark", BENCHMARKS, ids=lambda b: b.name)
def test_every_registered_benchmark_holds_the_contract(benchmark, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert contract.problems(benchmark) == []
    root = benchmark.build_fixture(tmp_path / benchmark.name) if benchmark.root_variable else None
    assert contract.run_problems(benchmark, root) == []


def toy_package(base: Path, edit=None, toy: str = "toymcq") -> Path:
    """A copy of the package with a toy benchmark added as the guide says: its folder under
    benchmarks/ and one line in the registry. ``edit(folder)`` then changes the toy's folder.
    Returns the folder to put first on PYTHONPATH."""
    source = Path(lmms_comparative.__file__).resolve().parent
    shutil.copytree(source, base / "lmms_comparative", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(
        TOYS[toy], base / "lmms_comparative" / "benchmarks" / toy, ignore=shutil.ignore_patterns("__pycache__")
    )
    registry = base / "lmms_comparative" / "registry.py"
    text = registry.read_text()
    # The registry line: the package's import, and its entry in BENCHMARKS.
    text, imported = re.subn(r"(from lmms_comparative\.benchmarks import [\w, ]+)\n", rf"\1, {toy}\n", text, count=1)
    text, added = re.subn(r"(for package in \([\w, ]+)\)", rf"\1, {toy})", text)
    assert imported == added == 1, "the registry's BENCHMARKS line moved: update toy_package"
    registry.write_text(text)
    if edit:
        edit(base / "lmms_comparative" / "benchmarks" / toy)
    return base


def toy_data(directory: Path, toy: str = "toymcq") -> Path:
    """The toy's data, built by its own fixture (as the package copy has it)."""
    fixture = load_module(TOYS[toy] / "fixture.py", f"{toy}_fixture")  # the file alone: its package is the copy's
    return fixture.build(directory)


def _check(pythonpath: Path, *names: str) -> subprocess.CompletedProcess:
    env = dict(base_env(pythonpath / "hf"), PYTHONPATH=str(pythonpath))
    return subprocess.run(
        [sys.executable, "-m", "lmms_comparative.benchmarks.contract", *(names or ("toymcq",))],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=pythonpath,
    )


@pytest.mark.e2e
@pytest.mark.parametrize("toy", sorted(TOYS))
def test_the_toys_hold_the_contract(tmp_path, toy):
    proc = _check(toy_package(tmp_path, toy=toy), toy)
    assert proc.returncode == 0 and f"{toy}: the contract holds" in proc.stdout, proc.stdout + proc.stderr[-3000:]


def _replace(path: str, old: str, new: str):
    def edit(folder: Path) -> None:
        target = folder / path
        text = target.read_text()
        assert old in text, (path, old)
        target.write_text(text.replace(old, new))

    return edit


def _delete(path: str):
    def edit(folder: Path) -> None:
        target = folder / path
        shutil.rmtree(target) if target.is_dir() else target.unlink()

    return edit


# Each required part or key, removed from the toy; what the check must then name.
REMOVALS = {
    # The registry line imports the record: Python's own error names it before any check runs.
    "the record": (
        _replace("__init__.py", "BENCHMARK = Benchmark(", "RECORD = Benchmark("),
        "the registry lists 'toymcq' (BENCHMARKS in lmms_comparative/registry.py), "
        "but benchmarks/toymcq/__init__.py defines no BENCHMARK",
    ),
    "the task YAMLs": (_delete("yaml"), "benchmarks/toymcq/yaml: no task YAML"),
    "the prefix": (
        _replace("yaml/toymcq.yaml", "task: toymcq", "task: mcq_toy"),
        "'mcq_toy' does not start with the prefix toymcq_",
    ),
    "a hook the YAML names": (
        _replace("hooks.py", "def doc_to_target(", "def target_of("),
        "!function lmms_comparative.benchmarks.toymcq.hooks.doc_to_target does not import",
    ),
    "the fixture": (_delete("fixture.py"), "its parts do not load: ImportError: cannot import name 'fixture'"),
    "the fixture part": (
        _replace("__init__.py", "    parts=_parts,\n", ""),
        "no fixture part (required: the data is not bundled, TOYMCQ_ROOT names it)",
    ),
    "a part's shape": (
        _replace("fixture.py", "def build(directory: str | Path, **_) -> Path:", "def build() -> Path:"),
        "fixture.py: build takes (), not (root)",
    ),
    "the item key": (
        _replace(
            "hooks.py",
            'return item_results(doc, outcome, ("accuracy", "counts"))',
            'return {"accuracy": outcome, "counts": outcome}',
        ),
        "toymcq's per-item results do not carry the item key item_id",
    ),
    "the failure policy": (
        _replace(
            "hooks.py",
            'aggregate_accuracy = accuracy_aggregation("Toy MCQ")\naggregate_counts = counts_aggregation("Toy MCQ")',
            "from lmms_comparative.metrics.aggregate import accuracy as aggregate_accuracy, counts as aggregate_counts",
        ),
        "toymcq: every model request failed and the run was not flagged",
    ),
    "the stop on a missing root": (
        _replace(
            "hooks.py",
            'path = dataset_root(BENCHMARK.root_variable, None, LAYOUT) / "test.jsonl"',
            'path = Path(os.environ.get("TOYMCQ_ROOT", ".")) / "test.jsonl"\n    if not path.is_file():\n'
            '        return [{"item_id": "q0", "question": "?", "options": ["a", "b"], "answer": "A"}]',
        ),
        "with TOYMCQ_ROOT unset, toymcq's process_docs loaded docs instead of stopping the run",
    ),
    # A loader that reads the root without noting it (VLM2-Bench's did): the record's data source is null.
    "the data source note": (
        _replace(
            "hooks.py",
            'path = dataset_root(BENCHMARK.root_variable, None, LAYOUT) / "test.jsonl"',
            'path = dataset_root(BENCHMARK.root_variable, None, LAYOUT) / "test.jsonl"\n'
            '    __import__("lmms_comparative.provenance").provenance.reset()',
        ),
        "toymcq's process_docs read the fixture in TOYMCQ_ROOT without noting it as the data source",
    ),
    "a task family": (
        _replace("__init__.py", 'task_families=("toymcq",)', 'task_families=("toymcq", "toymcq_hard")'),
        "task_families names 'toymcq_hard', which no YAML defines",
    ),
    # The hooks a request is built from, broken: the check runs them on the fixture's docs.
    "a working doc_to_visual": (
        _replace(
            "hooks.py",
            "def doc_to_visual(doc: dict) -> list:\n    return []",
            "def doc_to_visual(doc: dict) -> list:\n    return [doc['image']]",
        ),
        "toymcq's doc_to_visual (lmms_comparative.benchmarks.toymcq.hooks.doc_to_visual) "
        "raised KeyError: 'image' on item q",
    ),
    "a working doc_to_text": (
        _replace("hooks.py", "doc['question']}", "doc['prompt']}"),
        "toymcq's doc_to_text (lmms_comparative.benchmarks.toymcq.hooks.doc_to_text) raised KeyError: 'prompt'",
    ),
    # A loader that reads lines with json.loads: a garbled records file raises deep in it instead
    # of stopping the run with one line naming the file.
    "a loader that names a garbled file": (
        _replace(
            "hooks.py",
            'rows = json_lines(path, DataError, "Toy MCQ record")',
            "rows = [__import__('json').loads(line) for line in path.read_text().splitlines() if line.strip()]",
        ),
        "benchmarks/toymcq: with test.jsonl malformed, process_docs raised JSONDecodeError "
        "instead of stopping the run with one line naming the file",
    ),
}


@pytest.mark.e2e
@pytest.mark.parametrize("part", sorted(REMOVALS))
def test_removing_a_required_part_fails_the_check_naming_it(tmp_path, part):
    edit, named = REMOVALS[part]
    if part == "the stop on a missing root":
        inner = edit
        edit = lambda folder: (
            inner(folder),
            _replace("hooks.py", "import re\n", "import os\nimport re\nfrom pathlib import Path\n")(folder),
        )  # noqa: E731
    proc = _check(toy_package(tmp_path, edit))
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    assert named in proc.stdout + proc.stderr, proc.stdout + proc.stderr[-3000:]


@pytest.mark.e2e
def test_the_toy_runs_fails_scores_verifies_and_reports_through_the_cli(hf_home, tmp_path):
    package = toy_package(tmp_path / "pkg")
    data = toy_data(tmp_path / "toy_data")
    env = base_env(hf_home, PYTHONPATH=str(package), TOYMCQ_ROOT=str(data))  # the session's cache: its warm server
    tool = ["-m", "lmms_comparative"]

    # A run of the random baseline: the toy's task, its accuracy and counts, exit status 0.
    out = tmp_path / "run"
    # (In tmp_path: python -m puts the working folder, here the repository, first on the path.)
    proc = run_cli(
        eval_args("random_choice", "toymcq", out),
        env=env,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    results, samples = read_run(out, proc)
    accuracy = results["results"]["toymcq"]["accuracy,none"]
    assert results["results"]["toymcq"]["counts,none"]["n"] == 4 and len(samples["toymcq"]) == 4

    # Its samples scored again: the same accuracy; verify passes it; the report has a Toy MCQ section.
    scored = tmp_path / "scored"
    proc = run_python(tool + ["score", "toymcq", str(out), "-o", str(scored)], env=env, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert read_run(scored)[0]["results"]["toymcq"]["accuracy,none"] == accuracy
    proc = run_python(tool + ["verify", str(out)], env=env, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0 and re.search(r"PASS +toymcq: 4 items", proc.stdout), proc.stdout + proc.stderr[-3000:]
    proc = run_python(tool + ["report", str(out), "-o", str(tmp_path / "report")], env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "## Toy MCQ" in (tmp_path / "report" / "report.md").read_text()

    # Three of four replies missing: the failure policy fails the run (exit status 1, named).
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"q1": "A"}))
    proc = run_python(
        tool + ["score", "toymcq", str(replies), "--tasks", "toymcq", "-o", str(tmp_path / "partial")],
        env=env,
        timeout=600,
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert "Toy MCQ: 3 of 4 item(s) got no answer from the model" in proc.stderr


@pytest.mark.e2e
def test_the_judged_toy_runs_scores_verifies_and_reports_through_the_cli(hf_home, tmp_path):
    """Toy Judge: an image pair per item and an LLM judge declared in its record's scoring_calls.
    The run checks the judge's endpoint first and logs its answers; verify re-scores from that log
    with no endpoint; the judge's breakage is named by the contract like any hook's."""
    package = toy_package(tmp_path / "pkg", toy="toyjudge")
    data = toy_data(tmp_path / "toy_data", "toyjudge")
    env = base_env(hf_home, PYTHONPATH=str(package), TOYJUDGE_ROOT=str(data), LMMS_COMPARATIVE_LLM_CACHE="off")
    tool = ["-m", "lmms_comparative"]
    out = tmp_path / "run"
    with FakeOpenAI(any_scorer, models=["toy-judge", "vlm"]) as server:
        served = {**env, **server.judge_env("TOYJUDGE_JUDGE")}
        proc = run_cli(
            eval_args("random_choice", "toyjudge", out),
            env=served,
            cwd=tmp_path,
        )
        judged = [message_text(body) for body in server.requests]
        # Scored again from the samples: the judge is asked again.
        rescored = run_python(
            tool + ["score", "toyjudge", str(out), "-o", str(tmp_path / "scored")],
            env=served,
            timeout=600,
            cwd=tmp_path,
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "the Toy Judge judge (for toyjudge): 'toy-judge' listed by" in proc.stdout + proc.stderr, proc.stderr[-3000:]
    results, samples = read_run(out, proc)
    row = results["results"]["toyjudge"]
    # random_choice answers a caption; the endpoint says "Yes" to each: every item judged a match.
    assert row["accuracy,none"] == 1.0 and row["counts,none"]["judged"] == 3 and len(judged) == 3
    assert all("Does the model reply match the gold answer?" in text for text in judged)
    assert {"p1", "p2", "p3"} == {s["accuracy"]["item_id"] for s in samples["toyjudge"]}

    assert rescored.returncode == 0, rescored.stderr[-3000:]
    assert read_run(tmp_path / "scored")[0]["results"]["toyjudge"]["accuracy,none"] == 1.0
    # Verified with no endpoint at all: the judge's answers come from the run's log.
    proc = run_python(tool + ["verify", str(out)], env=env, timeout=600, cwd=tmp_path)
    assert proc.returncode == 0 and re.search(r"PASS +toyjudge: 3 items", proc.stdout), (
        proc.stdout + proc.stderr[-3000:]
    )
    proc = run_python(
        tool + ["report", str(out), "-o", str(tmp_path / "report"), "--no-html"], env=env, timeout=300, cwd=tmp_path
    )
    assert proc.returncode == 0 and "## Toy Judge" in (tmp_path / "report" / "report.md").read_text(), proc.stderr[
        -3000:
    ]

    # Its image pair's hook, broken: the check names the hook, the error and the item.
    _replace("hooks.py", 'load_images(doc, ("image_1", "image_2"))', 'load_images(doc, ("image_1", "image_3"))')(
        package / "lmms_comparative" / "benchmarks" / "toyjudge"
    )
    proc = _check(package, "toyjudge")
    assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
    assert (
        "benchmarks/toyjudge/yaml/toyjudge.yaml: toyjudge's doc_to_visual "
        "(lmms_comparative.benchmarks.toyjudge.hooks.doc_to_visual) raised KeyError: 'image_3' on item p1"
        in proc.stdout
    ), proc.stdout


@pytest.mark.e2e
def test_a_folder_without_its_registry_line_fails_the_check(tmp_path):
    """The toy's folder copied in, the registry line forgotten: lmms-eval would run its tasks with
    no provenance record; the check of every benchmark names the folder."""
    package = toy_package(tmp_path)
    registry = package / "lmms_comparative" / "registry.py"
    text = registry.read_text()
    forgotten = text.replace(", toymcq)", ")").replace(", toymcq\n", "\n")  # its import and its entry
    assert forgotten != text and "toymcq" not in forgotten
    registry.write_text(forgotten)
    env = dict(base_env(package / "hf"), PYTHONPATH=str(package))
    for names in ([], ["subtlebench"]):  # the check of every benchmark, and of one
        proc = subprocess.run(
            [sys.executable, "-m", "lmms_comparative.benchmarks.contract", *names],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            cwd=package,
        )
        assert proc.returncode == 1, proc.stdout + proc.stderr[-3000:]
        assert "benchmarks/toymcq: a folder with task YAMLs and no line in the registry" in proc.stdout
    # A run of its task stops before any item, naming the folder (it would have no provenance record).
    data = toy_data(tmp_path / "toy_data")
    proc = run_cli(
        eval_args("random_choice", "toymcq", tmp_path / "run", log_samples=False),
        env={**env, "TOYMCQ_ROOT": str(data)},
        cwd=tmp_path,
    )
    assert proc.returncode == 1, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert "--tasks toymcq: benchmarks/toymcq has no line in the registry" in proc.stdout + proc.stderr
    assert not list((tmp_path / "run").rglob("*_results.json"))
