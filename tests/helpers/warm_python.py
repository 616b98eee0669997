"""A warm start for the suite's lmms-eval processes: a server that has imported lmms-eval's heavy
third-party libraries once, and forks a process for each run.

Why: ``import lmms_eval.__main__`` takes about 10 s here, most of it torch, torchvision, scipy,
sympy, pandas, pyarrow and the Hugging Face libraries; the suite starts about 200 lmms-eval
processes. A process forked from a server that imported them runs as a fresh one would, as long as
the libraries read nothing at import that the run sets otherwise. Two kinds of server:

- a "base" server imports the libraries that read nothing a test sets (``PRELOAD``); it serves a
  run whose start-up variables (``PYTHON*``, ``OMP_*``, ``TORCH*``, ``CUDA*``, ...: ``STARTUP``)
  equal its own;
- an "hf" server also imports ``huggingface_hub``, ``datasets``, ``transformers``, ``evaluate``,
  ``accelerate`` and nltk (``PRELOAD_HF``, about 3 s of each run), which read ``HF_HOME`` and
  others when imported; it serves only a run whose whole environment equals its own but for the
  variables that only the run's own code reads (``RUN_TIME``: the data roots, our settings,
  ``OPENAI_*``). An environment gets one after ``HF_AFTER`` requests (most tests share the
  session's ``HF_HOME``), a "base" one before.

An "hf" server also imports lmms-eval's filters (``PRELOAD_LMMS_EVAL``: 1.4 s of each run).
Neither imports openai, this package, or the lmms-eval modules that load our entry point or that
our patches wait for (``NEVER``). A request that does not fit its server is run cold.
``warm_servers.server_for`` picks the server (the test process's side: starting, keeping and
stopping servers).

How: the tests start ``python -m lmms_eval ARGS``, ``python -m lmms_comparative ARGS``,
``python -c CODE ARGS`` and the console scripts as ``<shim> ARGS``, where the shim is a small
executable script (``Server.shim``, which runs ``warm_shim.py``). The shim hands the server its
standard streams, arguments, environment and working folder over a Unix socket; the server forks a
waiter, which forks the run.
The run gets the shim's streams as its own, so output, pipes and exit status are a subprocess's;
the shim exits with the run's status, forwards the signals it gets, and when the shim is killed (a
test's timeout) the waiter kills the run's process group. A run sees the shim as
``sys.executable``, so the lmms-eval runs that ``score``, ``verify`` and ``demo`` start are warm
too. Anything else given to the shim (a launcher, another module) is passed to the real interpreter
as it is.

What differs from a cold process, by construction: the preloaded modules are already in
``sys.modules``, what they made is frozen (``gc`` never collects it), and ``hash()`` of a string
is salted once per server instead of once per process. ``random`` and numpy's global generator are
seeded afresh in each run. ``test_warm_python.py`` checks that a run on either server writes the
results, samples and output of a cold run.
``WARM_PYTHON_OFF=1`` starts every run cold; ``WARM_PYTHON_KEEP=1`` keeps the servers' logs
(a line per request) in the temporary folder after the session.

The server is the package's fork server (``lmms_comparative/rescoring/fork_server.py``, the one
``verify`` re-scores with) under this module's ``SuiteRules``: this module says which runs a server
serves and how a run starts, the fork server does the preloading, forking, waiting and killing.
This module is run as the server and imported by the shim (``warm_shim.py``: the other side of
the socket), so both import the standard library only, and load the fork server from its file
rather than through the package, which no server may have imported.
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys


def _load_fork_server():
    """``lmms_comparative/rescoring/fork_server.py`` as a module of its own, found and loaded
    without importing the package (the shim and the server must not)."""
    package = importlib.util.find_spec("lmms_comparative")
    assert package is not None and package.submodule_search_locations, "lmms_comparative is not installed"
    path = os.path.join(list(package.submodule_search_locations)[0], "rescoring", "fork_server.py")
    spec = importlib.util.spec_from_file_location("fork_server", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fork_server = _load_fork_server()
HEADER = fork_server.HEADER
NEVER = fork_server.NEVER  # never preloaded by any server, nor anything inside them

SOCKET_ENV = "WARM_PYTHON_SOCKET"
COLD_ENV = "WARM_PYTHON_OFF"
# Variables read when an interpreter or the preloaded libraries start: a run that sets them
# differently from the server is started cold.
STARTUP = re.compile(
    r"^(PYTHON|TORCH|PYTORCH|OMP_|MKL_|KMP_|OPENBLAS|GOTO|NUMEXPR|CUDA|NVIDIA|TRITON|LD_|SYMPY|AIOHTTP|MALLOC|LC_|LANG$|LANGUAGE$)"
)
# Read the environment when imported: never in a "base" server, so each of its runs imports them.
ENV_READERS = (
    "huggingface_hub",
    "datasets",
    "transformers",
    "evaluate",
    "accelerate",
    "nltk",
    "lmms_eval",
    "lmms_comparative",
    "openai",
    "loguru",
)
# What a server imports. An "hf" server: the fork server's preload, the Hugging Face libraries
# (about 3 s of each run's start, they read HF_HOME, HF_*_OFFLINE and others when imported: such a
# server serves only runs whose whole environment equals its own but for the variables in RUN_TIME)
# and lmms-eval's filters among it. A "base" server: the same less the libraries that read the
# environment when imported (~6 s of the ~8 s import here).
PRELOAD = {
    "hf": list(fork_server.PRELOAD),
    "base": [m for m in fork_server.PRELOAD if m.split(".")[0] not in ENV_READERS],
}
# The lmms-eval modules an "hf" server imports: its filters, whose ExtendedRegexFilter builds a table
# of every punctuation code point when its module runs (about 1.4 s of each run). They bring in
# lmms_eval.api's filter, instance, model and registry, lmms_eval.utils and loguru. None reads a
# variable a test sets when imported, and none is a module our patches wait for: lmms_eval.utils,
# which the table patch wraps, a cold run has imported before it loads our entry point too, so the
# patch goes on at once in both.
PRELOAD_LMMS_EVAL = [m for m in PRELOAD["hf"] if m.startswith("lmms_eval")]
# Read only by code that every run imports itself (this package, lmms-eval, openai) or by no one at
# start-up: the data roots, our settings, the endpoint's key, pytest's name of the current test.
RUN_TIME = re.compile(r"^(LMMS_COMPARATIVE_|LMMS_EVAL_|OPENAI_|WARM_PYTHON_|PYTEST_|[A-Z0-9]+_ROOT$|PWD$|OLDPWD$|_$)")
# The environments whose runs take this many requests get an "hf" server (its start costs about
# as much as three runs save); the others are served by a "base" server.
HF_AFTER = 3


def startup_differences(env: dict, server_env: dict, tier: str = "base") -> list[str]:
    """The variables that ``env`` sets otherwise than ``server_env`` and that a server of ``tier``
    must share with its runs: the start-up variables (a "base" server), every variable but those
    read at run time (an "hf" server)."""
    keys = {k for k in (*env, *server_env) if _keyed(k, tier)}
    return sorted(k for k in keys if env.get(k) != server_env.get(k))


def _keyed(name: str, tier: str) -> bool:
    if name == "PYTHONPATH":  # the server decides (plain_path)
        return False
    return bool(STARTUP.match(name)) if tier == "base" else not RUN_TIME.match(name)


def plain_path(value: str | None, server_value: str | None, preloaded: set[str]) -> list[str] | None:
    """The folders a run's ``PYTHONPATH`` adds to the module path when a forked run can add them
    itself; None when it cannot: a folder holds a start-up hook (``sitecustomize``,
    ``usercustomize``) or a module the server has already imported (``preloaded``: top-level
    names), or the server has a ``PYTHONPATH`` of its own that differs."""
    if (value or "") == (server_value or ""):
        return []
    if server_value or not value:
        return None
    entries = value.split(os.pathsep)
    for entry in entries:
        if not entry:  # the working folder, at start-up: not worth the cases
            return None
        try:
            names = os.listdir(entry)
        except OSError:
            continue  # a folder that is not there adds nothing
        modules = {n[:-3] if n.endswith(".py") else n for n in names}
        if modules & {"sitecustomize", "usercustomize"} or modules & preloaded:
            return None
    return entries


def never_imported(modules, tier: str) -> set[str]:
    """The modules among ``modules`` that a server of ``tier`` must not have imported: those that
    read the environment when imported for a "base" server, ``NEVER`` and what is inside for an
    "hf" one."""
    if tier != "hf":
        return {m for m in modules if m.split(".")[0] in ENV_READERS}
    return set(fork_server.loaded_never(modules, NEVER))


class SuiteRules(fork_server.Rules):
    """The fork server's rules for the suite's runs on a server of ``tier``: its preload; a run
    whose variables fit the tier (``startup_differences``) and whose ``PYTHONPATH`` it can add
    itself (``plain_path``); the shim's three standard streams; ``python -m MODULE ARGS``,
    ``python -c CODE ARGS`` or ``python SCRIPT ARGS``; a line in the server's log per run."""

    streams = (0, 1, 2)

    def __init__(self, tier: str = "base"):
        self.tier = tier
        self.preload = PRELOAD[tier]

    def refused(self, modules) -> list[str]:
        return sorted(never_imported(modules, self.tier))

    def differences(self, job: dict, server_env: dict) -> list[str]:
        differences = startup_differences(job["env"], server_env, self.tier)
        preloaded = {m.split(".")[0] for m in sys.modules}  # top-level names; the server imports nothing more
        job["path"] = plain_path(job["env"].get("PYTHONPATH"), server_env.get("PYTHONPATH"), preloaded)
        return differences if job["path"] is not None else [*differences, "PYTHONPATH"]

    def told(self, job: dict, outcome: str) -> None:
        program = job.get("module") or job.get("script") or "-c " + repr(job["code"][:40])
        print(f"{outcome}: {program} {' '.join(job['argv'])}", file=sys.stderr, flush=True)

    def start(self, job: dict) -> None:
        """Become ``python -m MODULE ARGS``, ``python -c CODE ARGS`` or ``python SCRIPT ARGS`` as
        the shim was asked."""
        import runpy

        sys.path[1:1] = job["path"]  # PYTHONPATH's folders come after the first entry, as at start-up
        if "module" in job:
            sys.argv = ["-m", *job["argv"]]  # runpy puts the module's path first
            sys.path[0] = os.getcwd()  # as -m does
            runpy.run_module(job["module"], run_name="__main__", alter_sys=True)
        elif "code" in job:
            import types

            sys.argv = ["-c", *job["argv"]]
            sys.path[0] = ""  # as -c does
            main = types.ModuleType("__main__")
            main.__dict__["__builtins__"] = __builtins__
            sys.modules["__main__"] = main
            exec(compile(job["code"], "<string>", "exec"), main.__dict__)
        else:
            sys.argv = [job["script"], *job["argv"]]
            sys.path[0] = os.path.dirname(job["script"])
            runpy.run_path(job["script"], run_name="__main__")


if __name__ == "__main__":
    path, tier = sys.argv[1:3]
    fork_server.serve(path, SuiteRules(tier))
