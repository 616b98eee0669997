"""The suite's warm start (helpers/warm_python.py) changes how fast a test's lmms-eval process starts,
not what it does: a warm run writes what a cold one writes, a run whose start-up variables differ
from the server's starts cold, and a run whose test times out does not outlive it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import base_env, python_for, read_run, run_cli, run_python
from helpers.warm_python import COLD_ENV, NEVER, PRELOAD_LMMS_EVAL, SOCKET_ENV, never_imported, startup_differences
from helpers.warm_servers import Server, server_for

ARGS = [
    "--model",
    "random_choice",
    "--model_args",
    "seed=3",
    "--tasks",
    "subtlebench_at,subtlebench_vp",
    "--log_samples",
]
# What differs between any two runs: when they ran, how long they took, where functions live.
VOLATILE = {"date", "start_time", "end_time", "total_evaluation_time_seconds"}
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")
CLOCK = re.compile(
    r"\d{8}_\d{6}|\d{4}-\d\d-\d\d[ _]\d\d:?\d\d:?\d\d|\d+\.\d+ ?s\b|\d\d:\d\d<\d\d:\d\d|[\d.]+ ?(it/s|s/it|examples/s)"
)


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
    runs["cold"] = subprocess.run(
        [sys.executable, "-m", "lmms_eval", *ARGS, "--output_path", "out"],
        env=env["cold"],
        capture_output=True,
        text=True,
        cwd=tmp_path / "cold",
        stdin=subprocess.DEVNULL,
    )
    for tier in ("base", "hf"):
        log = Path(_server(env[tier], tier).log)
        before = _lines_of(log)
        runs[tier] = run_cli([*ARGS, "--output_path", "out"], env[tier], cwd=tmp_path / tier)
        assert _lines_of(log)[len(before) :] == [
            f"warm {_pid(_lines_of(log)[-1])}: lmms_eval {' '.join(ARGS)} --output_path out"
        ], tier
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
    assert (
        startup_differences(
            {"HF_HOME": "/b", "OMP_NUM_THREADS": "2", "PATH": "/usr/bin", "SUBTLEBENCH_ROOT": "/x"}, server
        )
        == []
    )
    assert startup_differences({"OMP_NUM_THREADS": "1"}, server) == ["OMP_NUM_THREADS"]
    assert startup_differences({"OMP_NUM_THREADS": "2", "PYTHONHASHSEED": "0"}, server) == ["PYTHONHASHSEED"]
    assert (
        startup_differences({"OMP_NUM_THREADS": "2", "PYTHONPATH": "/x"}, server) == []
    )  # the server looks into it (plain_path)
    assert startup_differences({"OMP_NUM_THREADS": "2", "TORCHINDUCTOR_CACHE_DIR": "/c"}, server) == [
        "TORCHINDUCTOR_CACHE_DIR"
    ]
    # An "hf" server has imported the Hugging Face libraries: every variable counts but those that
    # only the run's own code reads (data roots, our settings, the endpoint's key, pytest's).
    run_time = {
        "SUBTLEBENCH_ROOT": "/x",
        "LMMS_COMPARATIVE_MAX_FAILED": "0.1",
        "OPENAI_API_KEY": "k",
        "PYTEST_CURRENT_TEST": "t",
    }
    assert startup_differences({**server, **run_time}, server, "hf") == []
    assert startup_differences(
        {**server, "HF_HOME": "/b", "HF_ENDPOINT": "http://127.0.0.1:1", "PATH": "/usr/bin"}, server, "hf"
    ) == ["HF_ENDPOINT", "HF_HOME", "PATH"]
    assert startup_differences({**server, "TRANSFORMERS_VERBOSITY": "error"}, server, "hf") == [
        "TRANSFORMERS_VERBOSITY"
    ]


def test_no_server_imports_a_module_our_patches_wait_for():
    """A patch waits for its module's import (harness/on_import.py); a server that had imported it
    would fork runs in which the patch goes on at another moment than in a cold run. lmms_eval.utils
    is the one exception: a cold run has imported it before lmms-eval loads our entry point."""
    from lmms_comparative.harness import PATCHED_MODULES

    waited = {m for modules in PATCHED_MODULES.values() for m in modules} - {"lmms_eval.utils"}
    refused = waited | {"lmms_eval.models", "lmms_eval.models.simple", "lmms_comparative", "openai"}
    assert never_imported(refused, "hf") == refused
    assert (
        never_imported(
            {*PRELOAD_LMMS_EVAL, "lmms_eval", "lmms_eval.api.model", "lmms_eval.utils", "loguru", "datasets"}, "hf"
        )
        == set()
    )
    assert never_imported({"lmms_eval.filters", "loguru", "datasets", "torch"}, "base") == {
        "lmms_eval.filters",
        "loguru",
        "datasets",
    }
    assert "lmms_eval" not in NEVER  # the package itself: only the modules above are refused


_PROBE = (
    "import json, sys; import path_probe; "
    "print(json.dumps({'path': sys.path, 'probe': path_probe.__file__, 'hooked': 'hook_ran' in sys.modules}))"
)


@pytest.mark.e2e  # starts a server
def test_a_python_path_is_added_warm_unless_it_holds_a_start_up_hook_or_a_preloaded_module(hf_home, tmp_path):
    """A run's own PYTHONPATH (the contract test's toy package): a warm run gets the module path a
    cold one gets; a folder with a start-up hook (the filelock test's sitecustomize) or one that
    would shadow a module the server has imported starts the run cold, and the hook runs."""
    env = base_env(hf_home)
    log = _server_log(env)
    plain, hooked, shadowing = (tmp_path / name for name in ("plain", "hooked", "shadowing"))
    for folder in (plain, hooked, shadowing):
        folder.mkdir()
        (folder / "path_probe.py").write_text("")
    (hooked / "sitecustomize.py").write_text(
        "import sys, types\nsys.modules['hook_ran'] = types.ModuleType('hook_ran')\n"
    )
    (shadowing / "yaml.py").write_text("")
    outcomes = {}
    for folder in (plain, hooked, shadowing):
        run_env = dict(env, PYTHONPATH=f"{folder}{os.pathsep}{tmp_path / 'absent'}")
        before = _lines_of(log)
        warm = run_python(["-c", _PROBE], env=run_env, timeout=120)
        cold = subprocess.run(
            [sys.executable, "-c", _PROBE],
            env=run_env,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert warm.returncode == cold.returncode == 0, warm.stderr[-2000:] + cold.stderr[-2000:]
        assert json.loads(warm.stdout) == json.loads(cold.stdout), folder.name
        (line,) = _lines_of(log)[len(before) :]
        outcomes[folder.name] = (
            "warm" if line.startswith("warm ") else line.split(":")[0],
            json.loads(warm.stdout),
        )  # "cold (VARIABLES)"
    assert outcomes["plain"][0] == "warm" and outcomes["plain"][1]["probe"] == str(plain / "path_probe.py")
    assert outcomes["plain"][1]["path"][1:3] == [
        str(plain),
        str(tmp_path / "absent"),
    ]  # after the first entry, as at start-up
    assert outcomes["hooked"][0] == "cold (PYTHONPATH)" and outcomes["hooked"][1]["hooked"]
    assert outcomes["shadowing"][0] == "cold (PYTHONPATH)"


@pytest.mark.e2e  # starts a server
@pytest.mark.parametrize(("tier", "variable"), [("base", "OMP_NUM_THREADS"), ("hf", "HF_HOME")])
def test_a_server_runs_cold_what_its_start_up_variables_do_not_fit(hf_home, tmp_path, tier, variable):
    env = base_env(hf_home)
    server = _server(env, tier)
    before = _lines_of(Path(server.log))
    value = str(tmp_path / "elsewhere") if variable == "HF_HOME" else "1" if env.get(variable) != "1" else "2"
    other = dict(env, **{variable: value, SOCKET_ENV: server.socket})
    proc = subprocess.run(
        [server.shim, "-m", "lmms_eval", "--help"],
        env=other,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0 and "usage: lmms-eval" in proc.stdout, proc.stderr[-3000:]
    assert _lines_of(Path(server.log))[len(before) :] == [f"cold ({variable}): lmms_eval --help"]


# A run that never ends by itself: it says it has started, then waits to be killed.
_ENDLESS = "import sys, time; print('started', flush=True); time.sleep(3600)"


@pytest.mark.e2e
def test_a_run_whose_test_times_out_is_killed(hf_home):
    """subprocess.run kills the shim when a test's timeout expires; the run it forked goes with it.
    The run waits forever, so nothing here depends on how fast the machine is: the test kills the
    shim once the run has said it started, as subprocess.run's timeout does."""
    log = _server_log(base_env(hf_home))
    python, env = python_for(base_env(hf_home))
    before = _lines_of(log)
    with subprocess.Popen(
        [*python, "-c", _ENDLESS],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        stdin=subprocess.DEVNULL,
    ) as shim:
        assert shim.stdout.readline() == "started\n", shim.stderr.read()[-3000:]
        (line,) = _lines_of(log)[len(before) :]
        pid = _pid(line)
        started = _start_time(pid)
        assert started is not None
        shim.kill()  # what subprocess.run does on TimeoutExpired
        shim.wait()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _start_time(pid) == started:
        time.sleep(0.2)
    assert _start_time(pid) != started, f"run {pid} outlived its shim"


def _start_time(pid: int) -> str | None:
    """When the process ``pid`` started (``/proc/PID/stat``), None when no live process has that
    pid: a zombie counts as gone, and a later process that got the pid back has another time."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return None if fields[0] in ("Z", "X") else fields[19]


@pytest.mark.e2e  # starts a server
def test_a_server_first_asked_with_a_python_path_serves_runs_without_one_warm(tmp_path):
    """The server keys leave PYTHONPATH out (each run's own is added by the server): a server
    started for a run with one must not carry it, or every later run of its key starts cold."""
    env = base_env(tmp_path / "hf")  # a key of its own: this test starts its server
    folder = tmp_path / "plain"
    folder.mkdir()
    (folder / "path_probe.py").write_text("")
    server = server_for(dict(env, PYTHONPATH=str(folder)), "hf")  # started for a run with a path
    if server is None:
        pytest.skip(f"the warm server is off ({COLD_ENV}) or did not start")
    log = Path(server.log)
    for run_env, code in ((dict(env, PYTHONPATH=str(folder)), "import path_probe"), (env, "print('ok')")):
        before = _lines_of(log)
        proc = subprocess.run(
            [server.shim, "-c", code],
            env=dict(run_env, **{SOCKET_ENV: server.socket}),
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        (line,) = _lines_of(log)[len(before) :]
        assert line.startswith("warm "), line
