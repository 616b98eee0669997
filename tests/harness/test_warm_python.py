"""The suite's warm start (helpers/warm_python.py) changes how fast a test's lmms-eval process starts,
not what it does: a warm run writes what a cold one writes, a run whose start-up variables differ
from the server's starts cold, and a run whose test times out does not outlive it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import base_env, read_run, run_cli
from helpers.warm_python import COLD_ENV, SOCKET_ENV, Server, server_for, startup_differences

ARGS = ["--model", "random_choice", "--model_args", "seed=3", "--tasks", "subtlebench_at,subtlebench_vp", "--log_samples"]
# What differs between any two runs: when they ran, how long they took, where functions live.
VOLATILE = {"date", "start_time", "end_time", "total_evaluation_time_seconds"}
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")
CLOCK = re.compile(r"\d{8}_\d{6}|\d{4}-\d\d-\d\d[ _]\d\d:?\d\d:?\d\d|\d+\.\d+ ?s\b|\d\d:\d\d<\d\d:\d\d|[\d.]+ ?(it/s|s/it|examples/s)")


def _server(env: dict, tier: str = "hf") -> Server:
    """The server of ``tier`` for ``env``; the runs of ``env`` go to it from now on (an "hf" one)."""
    server = server_for(env, tier)
    if server is None:
        pytest.skip(f"the warm server is off ({COLD_ENV}) or did not start")
    return server


def _server_log(env: dict) -> Path:
    return Path(_server(env).log)


def _lines_of(log: Path) -> list[str]:
    """The server's log: a line per request, ``warm PID: WHAT`` or ``cold (VARIABLES): WHAT``."""
    return log.read_text().splitlines()


def _pid(line: str) -> int:
    assert line.startswith("warm "), line
    return int(line.split()[1].rstrip(":"))


def _stable(value):
    if isinstance(value, dict):
        return {k: _stable(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_stable(v) for v in value]
    return ADDRESS.sub(" at 0x>", value) if isinstance(value, str) else value


@pytest.mark.e2e
def test_a_warm_run_writes_what_a_cold_run_writes(subtlebench_root, tmp_path):
    """The same run cold, on a "base" server and on an "hf" server (the Hugging Face libraries
    imported before the run's environment was known), each with a cache of its own so that each
    builds the dataset."""
    env, runs = {}, {}
    for name in ("cold", "base", "hf"):
        (tmp_path / name).mkdir()
        env[name] = base_env(tmp_path / name / "hf", SUBTLEBENCH_ROOT=str(subtlebench_root))
    runs["cold"] = subprocess.run([sys.executable, "-m", "lmms_eval", *ARGS, "--output_path", "out"], env=env["cold"], capture_output=True, text=True, cwd=tmp_path / "cold", stdin=subprocess.DEVNULL)
    for tier in ("base", "hf"):
        log = Path(_server(env[tier], tier).log)
        before = _lines_of(log)
        runs[tier] = run_cli([*ARGS, "--output_path", "out"], env[tier], cwd=tmp_path / tier)
        assert _lines_of(log)[len(before) :] == [f"warm {_pid(_lines_of(log)[-1])}: lmms_eval {' '.join(ARGS)} --output_path out"], tier
    cold = runs["cold"]
    cold_results, cold_samples = read_run(tmp_path / "cold" / "out", cold)
    assert cold.returncode == 0 and set(cold_samples) == {"subtlebench_at", "subtlebench_vp"}, cold.stderr[-3000:]
    for tier in ("base", "hf"):
        warm = runs[tier]
        assert warm.returncode == 0, warm.stderr[-3000:]
        warm_results, warm_samples = read_run(tmp_path / tier / "out", warm)
        assert _stable(warm_results) == _stable(cold_results), tier
        assert warm_samples == cold_samples, tier
        assert _lines(warm.stdout) == _lines(cold.stdout), tier  # the log and the results table
        assert _lines(warm.stderr) == _lines(cold.stderr), tier


def _lines(output: str) -> list[str]:
    return [CLOCK.sub("<time>", ADDRESS.sub(" at 0x>", line)) for line in output.splitlines()]


def test_start_up_variables_decide_what_runs_cold():
    server = {"HF_HOME": "/a", "OMP_NUM_THREADS": "2", "PATH": "/bin"}
    assert startup_differences({"HF_HOME": "/b", "OMP_NUM_THREADS": "2", "PATH": "/usr/bin", "SUBTLEBENCH_ROOT": "/x"}, server) == []
    assert startup_differences({"OMP_NUM_THREADS": "1"}, server) == ["OMP_NUM_THREADS"]
    assert startup_differences({"OMP_NUM_THREADS": "2", "PYTHONPATH": "/hook"}, server) == ["PYTHONPATH"]
    assert startup_differences({"OMP_NUM_THREADS": "2", "TORCHINDUCTOR_CACHE_DIR": "/c"}, server) == ["TORCHINDUCTOR_CACHE_DIR"]
    # An "hf" server has imported the Hugging Face libraries: every variable counts but those that
    # only the run's own code reads (data roots, our settings, the endpoint's key, pytest's).
    run_time = {"SUBTLEBENCH_ROOT": "/x", "LMMS_COMPARATIVE_MAX_FAILED": "0.1", "OPENAI_API_KEY": "k", "PYTEST_CURRENT_TEST": "t"}
    assert startup_differences({**server, **run_time}, server, "hf") == []
    assert startup_differences({**server, "HF_HOME": "/b", "HF_ENDPOINT": "http://127.0.0.1:1", "PATH": "/usr/bin"}, server, "hf") == ["HF_ENDPOINT", "HF_HOME", "PATH"]
    assert startup_differences({**server, "TRANSFORMERS_VERBOSITY": "error"}, server, "hf") == ["TRANSFORMERS_VERBOSITY"]


@pytest.mark.e2e
def test_a_run_with_its_own_python_path_starts_cold(subtlebench_root, hf_home, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root))
    log = _server_log(env)
    before = _lines_of(log)
    hooked = dict(env, PYTHONPATH=str(tmp_path))  # as the tests with a start-up hook set it
    assert server_for(hooked) is None
    args = ["--model", "random_choice", "--tasks", "subtlebench_at", "--output_path", str(tmp_path / "out")]
    proc = run_cli(args, hooked)
    assert proc.returncode == 0, proc.stderr[-3000:]
    read_run(tmp_path / "out", proc)
    assert _lines_of(log) == before


@pytest.mark.e2e  # starts a server
@pytest.mark.parametrize(("tier", "variable"), [("base", "OMP_NUM_THREADS"), ("hf", "HF_HOME")])
def test_a_server_runs_cold_what_its_start_up_variables_do_not_fit(hf_home, tmp_path, tier, variable):
    env = base_env(hf_home)
    server = _server(env, tier)
    before = _lines_of(Path(server.log))
    value = str(tmp_path / "elsewhere") if variable == "HF_HOME" else "1" if env.get(variable) != "1" else "2"
    other = dict(env, **{variable: value, SOCKET_ENV: server.socket})
    proc = subprocess.run([server.shim, "-m", "lmms_eval", "--help"], env=other, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0 and "usage: lmms-eval" in proc.stdout, proc.stderr[-3000:]
    assert _lines_of(Path(server.log))[len(before) :] == [f"cold ({variable}): lmms_eval --help"]


@pytest.mark.e2e
def test_a_run_whose_test_times_out_is_killed(subtlebench_root, hf_home, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=str(subtlebench_root))
    log = _server_log(env)
    before = _lines_of(log)
    with pytest.raises(subprocess.TimeoutExpired):
        run_cli(["--model", "random_choice", "--tasks", "subtlebench", "--output_path", str(tmp_path / "out")], env, timeout=2)
    (line,) = _lines_of(log)[len(before) :]
    pid = _pid(line)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and os.path.exists(f"/proc/{pid}"):
        time.sleep(0.2)
    assert not os.path.exists(f"/proc/{pid}"), f"run {pid} outlived its test's timeout"
