"""What a user sees when the data is bad: one message, counts in the results, the exit status.

Run-level problems (a missing or malformed data root or file) stop the run at once; item-level
problems (an unusable image or record) skip the item, name it and count it; either makes
``lmms-eval`` exit non-zero (item-level ones past ``LMMS_COMPARATIVE_MAX_FAILED``). Failures while
scoring (a judge or a reader) and the other failing runs are in test_failing_runs.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from helpers import base_env, eval_args, read_run, run_cli
from helpers.image_bytes import BAD_IMAGES
from helpers.image_bytes import png as _png

from lmms_comparative.benchmarks.contract_run import DAMAGED  # the contract damages the records file the same way
from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench
from lmms_comparative.data import items
from lmms_comparative.registry import BENCHMARKS

# ---- run-level problems: one message, naming the variable and the path, no retries -------------


def _smoke_docs(benchmark) -> tuple[str, str, str | None]:
    """A registered benchmark's smoke task: the module and name of its process_docs (its YAML), and
    the records file under the root that it reads (the fixture part's ``smoke_records``; None: no single file)."""
    from lmms_comparative.benchmarks.contract import configs

    module, _, hook = configs(benchmark)[benchmark.smoke_task]["process_docs"].target.rpartition(".")
    return module, hook, benchmark.fixture_part().smoke_records


# Read from the registry: a new benchmark gets every case below without an edit here.
HOOKS = {b.name: (b.root_variable, b.build_fixture, *_smoke_docs(b)) for b in BENCHMARKS if b.root_variable}


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """One generated copy per benchmark; each case works on a fresh copy of it."""
    return {name: spec[1](tmp_path_factory.mktemp(name)) for name, spec in HOOKS.items()}


def _stop_message(monkeypatch, name: str, root) -> str:
    import importlib

    env_var, _, module, hook, _ = HOOKS[name]
    monkeypatch.setenv(env_var, str(root))
    with pytest.raises(SystemExit) as stopped:
        getattr(importlib.import_module(module), hook)(None)
    return str(stopped.value.code)


CASES = [
    "missing root",
    "root is a file",
    "missing data file",
    "empty data file",
    "malformed data file",
    "missing column",
]


@pytest.mark.parametrize("name", sorted(HOOKS))
@pytest.mark.parametrize("case", CASES)
def test_run_level_problems_stop_with_one_message(pristine, tmp_path, monkeypatch, name, case):
    env_var, _, _, _, data_file = HOOKS[name]
    if data_file is None and case in ("missing data file", "empty data file", "malformed data file", "missing column"):
        pytest.skip("no single records file (ViDi: each pair's text file is an item; see the item-level test)")
    if case == "missing column" and (data_file.endswith(".jsonl") or name not in ("captionqa", "compbench")):
        pytest.skip(
            "a JSON-lines record without a field is an item-level problem (skipped and counted); "
            "no column case for this layout"
        )
    root = tmp_path / "copy"
    shutil.copytree(pristine[name], root)
    target = root / data_file if data_file else None
    expect = [env_var] if case in ("missing root", "root is a file") else []
    if case == "missing root":
        root = tmp_path / "nowhere"
        expect.append(str(root))
    elif case == "root is a file":
        root = tmp_path / "a_file"
        root.write_text("not a folder")
        expect.append("is not a directory")
    elif case == "missing data file":
        target.unlink()
    elif case == "empty data file":
        target.write_bytes(DAMAGED["empty"])
        expect.append(target.name)
    elif case == "malformed data file":
        target.write_bytes(DAMAGED["malformed"])
        expect.append(target.name)
    elif case == "missing column":
        if name == "captionqa":
            import pyarrow.parquet as pq

            pq.write_table(pq.read_table(target).drop(["questions"]), target)
            expect.append("questions")
        else:  # compbench: records in no known layout
            target.write_text(json.dumps([{"picture": "a.jpg", "label": "x"}]))
            expect += ["no known layout", "keys found ['label', 'picture']"]
    message = _stop_message(monkeypatch, name, root)
    assert message.startswith("lmms-comparative: ")
    for part in expect:
        assert part in message, (case, message)


@pytest.mark.e2e
def test_a_run_level_problem_ends_the_cli_at_once_with_status_1(hf_home, tmp_path):
    proc = run_cli(
        eval_args("random_choice", "vlm2bench_oc_cnt", tmp_path, log_samples=False),
        env=base_env(hf_home, VLM2BENCH_ROOT=str(tmp_path / "nowhere")),
    )
    assert proc.returncode == 1
    assert f"VLM2BENCH_ROOT={str(tmp_path / 'nowhere')!r} is not a directory" in proc.stderr
    # Not retried (lmms-eval's download retry would take 5 attempts) and no traceback to dig through.
    log = proc.stdout + proc.stderr
    assert "RetryError" not in log and "Traceback" not in log and log.count("is not a directory") <= 2
    assert not list(tmp_path.glob("**/*_results.json"))


# ---- item-level problems: skipped, named, counted; past the share, the run is flagged ----------


@pytest.fixture(scope="module")
def damaged_subtlebench(tmp_path_factory):
    """Six attribute items: four with an unusable image, one whose image is gone; plus a record
    without its distractors."""
    root = build_subtlebench(tmp_path_factory.mktemp("damaged"), per_category=6)
    records = [json.loads(line) for line in (root / "data" / "test.jsonl").read_text().splitlines()]
    attribute = [r for r in records if r["category"] == "attribute"]
    damage = [
        BAD_IMAGES[items.EMPTY],
        BAD_IMAGES[items.UNREADABLE],
        BAD_IMAGES[items.TRUNCATED],
        BAD_IMAGES[items.BOMB],
        None,
    ]
    broken = {}
    for record, make in zip(attribute, damage):
        path = root / record["image_2"].split("/resolve/main/", 1)[1]
        if make is None:
            path.unlink()
        else:
            path.write_bytes(make())
        broken[str(path)] = record
    lacking = dict(attribute[-1], source_id="no-distractors")
    lacking.pop("distractors")
    with open(root / "data" / "test.jsonl", "a") as handle:
        handle.write(json.dumps(lacking) + "\n")
    return SimpleNamespace(root=root, broken=broken)


@pytest.mark.e2e
@pytest.mark.parametrize("allowed, status", [("0.05", 1), ("0.9", 0)])
def test_unusable_items_are_skipped_named_counted_and_flag_the_run(
    damaged_subtlebench, hf_home, tmp_path, allowed, status
):
    root, broken = damaged_subtlebench.root, damaged_subtlebench.broken
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(root), LMMS_COMPARATIVE_MAX_FAILED=allowed)
    proc = run_cli(
        eval_args("random_choice", "subtlebench_at,subtlebench_st", tmp_path),
        env=env,
    )
    results, samples = read_run(tmp_path, proc)
    counts = results["results"]["subtlebench_at"]["counts,none"]
    assert counts["skipped_by_reason"] == {
        items.EMPTY: 1,
        items.UNREADABLE: 1,
        items.TRUNCATED: 1,
        items.BOMB: 1,
        items.MISSING: 1,
        items.RECORD: 1,
    }
    assert counts["skipped"] == 6 and counts["n"] == 1 and len(samples["subtlebench_at"]) == 1
    # The other task of the run is untouched.
    assert results["results"]["subtlebench_st"]["counts,none"]["skipped"] == 0
    assert results["results"]["subtlebench_st"]["counts,none"]["n"] == 6
    log = proc.stdout + proc.stderr
    for path in broken:  # each skipped image is named
        assert path in log
    assert "lacks required field(s) ['distractors']" in log
    assert proc.returncode == status
    if status:
        assert "VLM-SubtleBench attribute: 6 of 7 item(s) were skipped" in log and "LMMS_COMPARATIVE_MAX_FAILED" in log


def test_item_level_problems_in_the_other_benchmarks(pristine, tmp_path, monkeypatch):
    """An unusable image is skipped (not a run-level error) in VLM2-Bench, CompBench, ViDi and in
    CaptionQA's embedded image bytes; each task's docs carry the counts."""
    import importlib

    def docs_after(name: str, damage) -> list:
        root = tmp_path / f"{name}_{len(list(tmp_path.iterdir()))}"  # a fresh copy (and cache key) each time
        shutil.copytree(pristine[name], root)
        damage(root)
        env_var, _, module, hook, _ = HOOKS[name]
        monkeypatch.setenv(env_var, str(root))
        docs_after.root = root
        return list(getattr(importlib.import_module(module), hook)(None))

    def first_image(root: Path, pattern: str) -> Path:
        return sorted(root.glob(pattern))[0]

    docs = docs_after("vlm2bench", lambda root: first_image(root, "data/oc/original_obj/**/*.*").write_bytes(b""))
    assert json.loads(docs[0]["skipped"]) == {items.EMPTY: 1}
    docs = docs_after("vidi", lambda root: first_image(root, "pair_000/*.png").write_bytes(_png()[:50]))
    assert json.loads(docs[0]["skipped"]) == {items.TRUNCATED: 1} and "pair_000" not in {d["item_id"] for d in docs}

    whole = docs_after("compbench", lambda root: None)
    gone = Path(whole[1]["images"][0]).relative_to(docs_after.root)
    docs = docs_after("compbench", lambda root: (root / gone).unlink())
    assert json.loads(docs[0]["skipped"]) == {items.MISSING: 1}
    # The others keep their place in the authors' split (their uids do not shift).
    assert [d["uid"] for d in docs] == [d["uid"] for d in whole if d["uid"] != whole[1]["uid"]]

    def corrupt_embedded(root: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = root / "data/natural-00000-of-00001.parquet"
        table = pq.read_table(path)
        rows = table.to_pylist()
        rows[0]["images"][0]["bytes"] = rows[0]["images"][0]["bytes"][:60]
        pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)

    docs = docs_after("captionqa", corrupt_embedded)
    assert json.loads(docs[0]["skipped"]) == {items.TRUNCATED: 1}
