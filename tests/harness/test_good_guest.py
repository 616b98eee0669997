"""A good guest in someone else's lmms-eval environment, through the real CLI and real imports:

- a run of upstream tasks only keeps lmms-eval's exit status under ``ours`` (the default) and
  ``off``; ``all`` applies our rule to it (LMMS_COMPARATIVE_EXIT_STATUS);
- a run that dies inside lmms-eval on a failed import names the import and the installed version
  of the package it comes from;
- importing ``lmms_eval.models`` with the plugin installed imports nothing heavy, and every patch
  is in place once the module it patches is imported.

"Without the plugin" is lmms-eval with our entry point hidden (tests/helpers/plain_lmms_eval.py):
the same environment, as lmms-eval sees it when this package is not installed.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import FULL_INDEX, base_env
from helpers.plain_lmms_eval import HIDE_PLUGIN, run_lmms_eval

# An upstream-style task: lmms-eval's own loader on a local parquet file, lmms-eval's metrics.
_TASK_YAML = """task: {name}
dataset_path: parquet
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{question}}}}"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  max_new_tokens: 8
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
"""


@pytest.fixture(scope="module")
def upstream_tasks(tmp_path_factory) -> Path:
    """A task folder with ``upstream_probe`` (three rows in a parquet file) and ``upstream_missing``
    (its parquet file does not exist)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path_factory.mktemp("upstream_tasks")
    data = folder / "probe.parquet"
    pq.write_table(pa.table({"question": ["q1", "q2", "q3"], "answer": ["a", "b", "c"]}), data)
    (folder / "upstream_probe.yaml").write_text(_TASK_YAML.format(name="upstream_probe", data=data))
    (folder / "upstream_missing.yaml").write_text(
        _TASK_YAML.format(name="upstream_missing", data=folder / "absent.parquet")
    )
    return folder


def _upstream_run(
    task: str, folder: Path, hf_home: Path, out: Path, plugin: bool, mode: str | None = None
) -> subprocess.CompletedProcess:
    # A user's run indexes all of lmms-eval's task files (about 9 s a run here): the runs without
    # the plugin and with it as installed (no mode set). The runs that set a mode index our folder
    # and the --include_path only: the exit-status rule does not read the index.
    env = base_env(hf_home, **(FULL_INDEX if not plugin or mode is None else {}))
    env.pop("LMMS_COMPARATIVE_EXIT_STATUS", None)
    if mode:
        env["LMMS_COMPARATIVE_EXIT_STATUS"] = mode
    return run_lmms_eval(
        ["--model", "dummy", "--tasks", task, "--include_path", str(folder), "--output_path", str(out)],
        env=env,
        plugin=plugin,
    )


def _results(out: Path) -> dict:
    found = sorted(out.glob("**/*_results.json"))
    assert found, f"no results under {out}"
    return json.loads(found[-1].read_text())["results"]


@pytest.mark.e2e
def test_upstream_runs_keep_lmms_evals_exit_status_unless_all_is_chosen(upstream_tasks, hf_home, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    # Every run at once, four at a time (each is a separate lmms-eval process; a run whose data is
    # missing spends most of its time in lmms-eval's retries, asleep): without the plugin,
    # and with it under each mode, a passing task and one whose data is missing.
    variants = [(False, None)] + [(True, mode) for mode in (None, "ours", "off", "all")]
    runs = [(task, plugin, mode) for plugin, mode in variants for task in ("upstream_probe", "upstream_missing")]
    with ThreadPoolExecutor(max_workers=4) as pool:
        procs = dict(
            zip(
                runs,
                pool.map(
                    lambda run: _upstream_run(
                        run[0],
                        upstream_tasks,
                        hf_home,
                        tmp_path / f"{run[0]}_{run[1]}_{run[2]}",
                        plugin=run[1],
                        mode=run[2],
                    ),
                    runs,
                ),
            )
        )
    plain_ok, plain_bad = procs[("upstream_probe", False, None)], procs[("upstream_missing", False, None)]
    # Without the plugin, lmms-eval's own statuses: 0 for the passing run, and 0 for the run whose
    # data is missing (lmms-eval logs "Error during evaluation" and exits 0).
    assert "Error during evaluation" in plain_bad.stdout + plain_bad.stderr  # the failure is real
    for mode in (None, "ours", "off"):
        ok, bad = procs[("upstream_probe", True, mode)], procs[("upstream_missing", True, mode)]
        assert ok.returncode == plain_ok.returncode, (mode, ok.stderr[-3000:])
        assert bad.returncode == plain_bad.returncode, (mode, bad.stderr[-3000:])
        assert "lmms-comparative: this run failed" not in bad.stderr
    assert _results(tmp_path / "upstream_probe_True_None") == _results(tmp_path / "upstream_probe_False_None")
    assert "lmms_comparative" not in json.loads(
        next((tmp_path / "upstream_probe_True_None").glob("**/*_results.json")).read_text()
    )  # no provenance key
    # all: our rule for every run; the failing upstream run now exits 1 and says why, last.
    ok, bad = procs[("upstream_probe", True, "all")], procs[("upstream_missing", True, "all")]
    assert ok.returncode == 0, ok.stderr[-3000:]
    assert bad.returncode == 1 and "lmms-comparative: this run failed (exit status 1)" in bad.stderr
    assert "Error during evaluation" in bad.stderr.split("this run failed")[-1]


@pytest.mark.e2e
def test_a_misspelt_exit_status_mode_stops_the_run_naming_the_choices(upstream_tasks, hf_home, tmp_path):
    proc = _upstream_run("upstream_probe", upstream_tasks, hf_home, tmp_path, plugin=True, mode="sometimes")
    assert proc.returncode == 1
    assert "LMMS_COMPARATIVE_EXIT_STATUS='sometimes' is not one of ours, all, off" in proc.stderr
    assert not list(tmp_path.glob("**/*_results.json"))


_HIDE_FILELOCK_API = """
import importlib, importlib.abc, pkgutil, sys
import filelock
# filelock's own modules import filelock._api, some lazily: import them all now, so that they keep
# what they imported, then make filelock._api vanish for everyone else, as in filelock 4.3.
for info in pkgutil.walk_packages(filelock.__path__, "filelock."):
    try:
        importlib.import_module(info.name)
    except Exception:
        pass
sys.modules.pop("filelock._api", None)
if hasattr(filelock, "_api"):
    delattr(filelock, "_api")
class _Gone(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "filelock._api":
            raise ModuleNotFoundError("No module named 'filelock._api'", name=name)
        return None
sys.meta_path.insert(0, _Gone())
"""


@pytest.mark.e2e
def test_a_run_that_dies_on_an_import_names_the_package_and_its_installed_version(subtlebench_root, hf_home, tmp_path):
    """filelock 4.3 removed ``filelock._api``, which lmms-eval imports at the start of every
    evaluation: the run died with only "No module named 'filelock._api'". Here the module is made
    to vanish the same way (a sitecustomize), whatever filelock is installed."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_HIDE_FILELOCK_API)
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root), PYTHONPATH=str(site), **FULL_INDEX)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "lmms_eval",
            "--model",
            "random_choice",
            "--tasks",
            "subtlebench_sp",
            "--output_path",
            str(tmp_path / "out"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 1, proc.stderr[-3000:]
    closing = proc.stderr.split("lmms-comparative: this run failed (exit status 1):")[-1]
    assert "No module named 'filelock._api'" in closing
    assert f"it comes from filelock {importlib.metadata.version('filelock')}, as installed here" in closing
    assert "pip install -c constraints.txt" in closing


def test_import_hint_names_the_distribution_and_only_for_failed_imports():
    from lmms_comparative.harness.exit_status import import_hint

    hint = import_hint(
        "Error during evaluation: cannot import name 'FileLockMeta' from 'filelock._api'. Please set ..."
    )
    assert f"filelock {importlib.metadata.version('filelock')}" in hint
    assert "no installed distribution provides 'no_such_pkg'" in import_hint("No module named 'no_such_pkg.sub'")
    assert import_hint("Error during evaluation: CUDA out of memory") == ""


_PROBE_IMPORTS = """
import json, sys
import lmms_eval.models
from lmms_eval.models import MODEL_REGISTRY_V2
heavy = ("torch", "transformers", "datasets", "lmms_eval.tasks", "lmms_eval.api.task")
light = {"modules": len(sys.modules), "heavy": sorted(m for m in heavy if m in sys.modules),
         "ours": "random_choice" in MODEL_REGISTRY_V2.list_canonical_model_ids()}
patched = {}
if light["ours"]:
    from lmms_eval.tasks import TaskManager
    from lmms_eval.api.task import ConfigurableTask
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker
    import lmms_eval.evaluator_utils, lmms_eval.utils
    from lmms_eval.__main__ import make_table as bound_make_table  # the CLI binds it by name
    patched = {
        "task_path": getattr(TaskManager, "_lmms_comparative_task_path", False),
        "fewshot": getattr(ConfigurableTask.set_config, "_lmms_comparative_fewshot", False),
        "side_logs": getattr(EvaluationTracker.save_results_samples, "_lmms_comparative_side_logs", False),
        "provenance": getattr(EvaluationTracker.save_results_aggregated, "_lmms_comparative_provenance", False),
        "table": all(
            getattr(f, "_lmms_comparative_wrapped", False)
            for f in (lmms_eval.utils.make_table, lmms_eval.evaluator_utils.consolidate_group_results, bound_make_table)
        ),
    }
    from lmms_comparative.harness import on_import
    patched["nothing pending"] = on_import.pending() == []
print(json.dumps({"light": light, "patched": patched}))
"""


@pytest.mark.e2e
def test_importing_lmms_eval_models_stays_light_and_patches_install_on_first_import():
    def probe(plugin: bool) -> dict:
        code = (HIDE_PLUGIN if not plugin else "") + _PROBE_IMPORTS
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True)
        return json.loads(out.stdout.strip().splitlines()[-1])

    plain, ours = probe(plugin=False), probe(plugin=True)
    assert not plain["light"]["ours"] and ours["light"]["ours"]  # the entry point was loaded, or not
    assert ours["light"]["heavy"] == plain["light"]["heavy"] == []
    assert ours["light"]["modules"] - plain["light"]["modules"] <= 50, (plain, ours)
    assert ours["patched"] == {
        "task_path": True,
        "fewshot": True,
        "side_logs": True,
        "provenance": True,
        "table": True,
        "nothing pending": True,
    }


def test_on_import_patches_a_module_after_its_code_and_survives_a_failing_patch(tmp_path, monkeypatch):
    from lmms_comparative.harness import on_import

    (tmp_path / "guest_probe_module.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    seen = []

    def patch():
        module = sys.modules["guest_probe_module"]
        seen.append(module.VALUE)  # the module's own code has run
        module.VALUE = 2

    def broken():
        raise RuntimeError("the patched function is gone")

    on_import.when_imported("guest_probe_module", "probe", patch)
    on_import.when_imported("guest_probe_module", "broken", broken)
    assert "guest_probe_module" in on_import.pending() and seen == []
    try:
        from guest_probe_module import VALUE  # binds the patched value

        assert seen == [1] and VALUE == 2
        assert "guest_probe_module" not in on_import.pending()
        on_import.when_imported("guest_probe_module", "again", lambda: seen.append("now"))  # imported already: at once
        assert seen == [1, "now"]
    finally:
        sys.modules.pop("guest_probe_module", None)
