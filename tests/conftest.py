"""Session fixtures shared by every test folder; shared helper code is in tests/helpers."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from helpers import FOUR_BENCHMARKS, base_env, build_roots, eval_args, read_run, run_cli

from lmms_comparative.benchmarks.subtlebench.fixture import build as build_subtlebench

# verify's signing key (verify/signing.py) in a folder of the test session's, never the user's home:
# every test process, and every command it starts, signs and reads verdicts with the same key. The
# process that makes the folder (the first, which the workers inherit it from) removes it at exit.
if "LMMS_COMPARATIVE_CONFIG_DIR" not in os.environ:
    _config_dir = tempfile.mkdtemp(prefix="lmms-comparative-config-")
    os.environ["LMMS_COMPARATIVE_CONFIG_DIR"] = _config_dir
    atexit.register(shutil.rmtree, _config_dir, ignore_errors=True)

# The ``browser`` fixture (headless Chromium) of the HTML report's tests.
pytest_plugins = ["helpers.browser"]


@pytest.fixture(scope="session")
def hf_home(tmp_path_factory) -> Path:
    """An isolated, offline Hugging Face cache for every subprocess of the session."""
    return tmp_path_factory.mktemp("hf_home")


@pytest.fixture(scope="session")
def subtlebench_root(tmp_path_factory) -> Path:
    return build_subtlebench(tmp_path_factory.mktemp("subtlebench"), per_category=4)


@pytest.fixture(scope="session")
def fixture_roots(tmp_path_factory) -> dict[str, Path]:
    """The five benchmarks' default fixtures, keyed by root variable (built once per session)."""
    return build_roots(tmp_path_factory.mktemp("five"))


@pytest.fixture(scope="session")
def four_benchmarks_run(hf_home, fixture_roots, tmp_path_factory) -> Path:
    """One ``random_choice`` run (with samples) of SubtleBench, CompBench, VLM2-Bench's image tasks
    and ViDi's granular task on the default fixtures: the run ``score`` and ``verify`` are tested
    on. Read it, never change it (copy it first)."""
    out = tmp_path_factory.mktemp("four_benchmarks_run")
    env = base_env(hf_home, **{k: str(v) for k, v in fixture_roots.items()})
    proc = run_cli(eval_args("random_choice", FOUR_BENCHMARKS, out), env=env)
    read_run(out, proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


@pytest.fixture(scope="session")
def subtlebench_pass_run(hf_home, subtlebench_root, tmp_path_factory) -> Path:
    """A small ``random_choice`` run (with samples) of two SubtleBench tasks that verifies PASS: the
    untouched folder the hostile-folder tests copy and edit. Read it, never change it."""
    out = tmp_path_factory.mktemp("subtlebench_pass_run")
    proc = run_cli(
        eval_args("random_choice", "subtlebench_at,subtlebench_sp", out),
        env=base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root),
    )
    read_run(out, proc)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out


# The files that take longest (a dozen lmms-eval runs or more each), started first: pytest-xdist
# hands out whole files (--dist loadfile) in collection order, and a long file handed out last
# leaves the other workers idle at the end.
LONGEST_FIRST = (  # worker-seconds of a full run, most first (test_score and test_verify run as one unit)
    "compbench/test_compbench_score.py",
    "captionqa/test_captionqa_score.py",
    "rescoring/test_score.py",
    "verify/test_verify.py",
    "verify/test_forgeries.py",
    "rescoring/test_predict_only.py",
    "captionqa/test_captionqa_e2e.py",
    "captionqa/test_captionqa_runs.py",
    "cli/test_cli.py",
    "failures/test_failing_runs.py",
    "hub/test_hub_fetch.py",
    "harness/test_good_guest.py",
    "subtlebench/test_subtlebench_twostep.py",
    "preflight/test_preflight.py",
    "models/test_model_classes.py",
    "vlm2bench/test_vlm2bench_video.py",
    "vlm2bench/test_vlm2bench.py",
    "suite/test_warm_python.py",
    "report/test_report_families.py",
    "report/test_compare_runs.py",  # with test_pair_report: one unit (SAME_WORKER)
    "report/test_pair_report.py",
    "judges/test_judges_local.py",
    "docs/test_docs_commands.py",
)


def pytest_collection_modifyitems(session, config, items):
    tests = Path(__file__).resolve().parent

    def rank(item) -> int:
        relative = (
            Path(str(item.fspath)).resolve().relative_to(tests).as_posix()
            if str(item.fspath).startswith(str(tests))
            else ""
        )
        return LONGEST_FIRST.index(relative) if relative in LONGEST_FIRST else len(LONGEST_FIRST)

    items.sort(key=rank)  # stable: the order within a file, and of the other files, is kept


# Files that read the same session run (a session fixture is built once per worker): one work unit,
# so the run is made once. test_score, test_verify and test_forgeries read four_benchmarks_run;
# test_compare_runs and test_pair_report read compared (tests/report/conftest.py).
SAME_WORKER = {
    "rescoring/test_score.py": "four_benchmarks_run",
    "verify/test_verify.py": "four_benchmarks_run",
    "verify/test_forgeries.py": "four_benchmarks_run",
    "report/test_compare_runs.py": "compared",
    "report/test_pair_report.py": "compared",
}


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """--dist loadfile, with the files of ``SAME_WORKER`` handed out together."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class SharedRunsTogether(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return SAME_WORKER.get(path.removeprefix("tests/"), path)

    return SharedRunsTogether(config, log)
