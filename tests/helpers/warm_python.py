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

This module is run as the server and imported by the shim (``warm_shim.py``: the other side of
the socket), so both import the standard library only.
"""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import struct
import sys

SOCKET_ENV = "WARM_PYTHON_SOCKET"
COLD_ENV = "WARM_PYTHON_OFF"
# What the server imports: what `import lmms_eval.__main__` loads that reads no environment variable
# a test sets (measured with -X importtime; ~6 s of the ~8 s import here).
PRELOAD = (
    "torch torch._dynamo torchvision torchvision.transforms numpy pandas pyarrow pyarrow.parquet "
    "scipy.stats scipy.optimize scipy.linalg scipy.interpolate scipy.integrate scipy.special "
    "scipy.sparse scipy.spatial scipy.ndimage scipy.fft sympy PIL.Image PIL.ImageDraw aiohttp chardet "
    "requests urllib3 jinja2 yaml sacrebleu regex safetensors.torch sentencepiece tqdm.auto tenacity "
    "wcwidth lxml.etree dateutil.parser pytz anyio numexpr xxhash zstandard"
).split()
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
# An "hf" server also imports the Hugging Face libraries (about 3 s of each run's start). They read
# HF_HOME, HF_*_OFFLINE and others when imported, so an "hf" server serves only runs whose whole
# environment equals its own, but for the variables in RUN_TIME.
PRELOAD_HF = "huggingface_hub datasets transformers evaluate accelerate nltk".split()
# Read only by code that every run imports itself (this package, lmms-eval, openai) or by no one at
# start-up: the data roots, our settings, the endpoint's key, pytest's name of the current test.
RUN_TIME = re.compile(r"^(LMMS_COMPARATIVE_|LMMS_EVAL_|OPENAI_|WARM_PYTHON_|PYTEST_|[A-Z0-9]+_ROOT$|PWD$|OLDPWD$|_$)")
# The lmms-eval modules an "hf" server imports: its filters, whose ExtendedRegexFilter builds a table
# of every punctuation code point when its module runs (about 1.4 s of each run). They bring in
# lmms_eval.api's filter, instance, model and registry, lmms_eval.utils and loguru. None reads a
# variable a test sets when imported, and none is a module our patches wait for: lmms_eval.utils,
# which the table patch wraps, a cold run has imported before it loads our entry point too, so the
# patch goes on at once in both.
PRELOAD_LMMS_EVAL = ("lmms_eval.filters",)
# Never preloaded by any server, nor anything inside them: this package, openai, the lmms-eval
# modules that load our entry point (lmms_eval.models, through the CLI's modules) and those that our
# patches wait for (lmms_comparative.harness.PATCHED_MODULES but lmms_eval.utils; a test holds the
# two lists together).
NEVER = (
    "lmms_comparative",
    "openai",
    "lmms_eval.__main__",
    "lmms_eval.cli",
    "lmms_eval.evaluator",
    "lmms_eval.models",
    "lmms_eval.tasks",
    "lmms_eval.api.task",
    "lmms_eval.evaluator_utils",
    "lmms_eval.loggers",
    "lmms_eval.caching",
)
# The environments whose runs take this many requests get an "hf" server (its start costs about
# as much as three runs save); the others are served by a "base" server.
HF_AFTER = 3
_HEADER = struct.Struct("!I")


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


# ---- the server ------------------------------------------------------------------------------


def serve(path: str, tier: str = "base") -> None:
    """Import ``PRELOAD`` (and ``PRELOAD_HF`` for an "hf" server), then fork a run for each request
    on the socket at ``path``. Exits when the process that started it is gone."""
    import gc
    import importlib

    server_env = dict(os.environ)
    for name in PRELOAD + (PRELOAD_HF + list(PRELOAD_LMMS_EVAL) if tier == "hf" else []):
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    loaded = sorted(never_imported(sys.modules, tier))
    if loaded:  # a preloaded library pulled in what a run must import itself
        print(f"warm_python: the preload imported {', '.join(loaded)}; not serving", file=sys.stderr)
        sys.exit(3)
    preloaded = {m.split(".")[0] for m in sys.modules}  # top-level names; the server imports nothing more
    # What the preload made is never garbage: the runs' collections skip it (lmms-eval collects
    # three times a run, about 0.3 s each over all these objects), as a fork server's should.
    gc.freeze()
    # What the preload set (torch._dynamo: TORCHINDUCTOR_CACHE_DIR): each run gets it as a cold one
    # would; a run may also bring it already set (the tests' process imported torch), to the same value.
    set_by_preload = {k: v for k, v in os.environ.items() if server_env.get(k) != v}
    server_env = dict(os.environ)
    parent = os.getppid()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)  # the tests connect once the preload is done
    listener.settimeout(2.0)
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            _reap()
            if os.getppid() != parent:
                os._exit(0)
            continue
        _reap()
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:
            listener.close()
            conn.settimeout(None)
            _wait_on(
                conn, server_env, set_by_preload, tier, preloaded
            )  # returns only in the run's process, through SystemExit
        conn.close()


def never_imported(modules, tier: str) -> set[str]:
    """The modules among ``modules`` that a server of ``tier`` must not have imported: those that
    read the environment when imported for a "base" server, ``NEVER`` and what is inside for an
    "hf" one."""
    if tier != "hf":
        return {m for m in modules if m.split(".")[0] in ENV_READERS}
    return {m for m in modules if any(m == n or m.startswith(n + ".") for n in NEVER)}


def _reap() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _wait_on(conn: socket.socket, server_env: dict, set_by_preload: dict, tier: str, preloaded: set[str]) -> None:
    """The waiter: read one request, fork its run, report the run's pid and then its status; kill
    the run when the shim goes away first."""
    header, fds, _flags, _addr = socket.recv_fds(conn, _HEADER.size, 3)
    (size,) = _HEADER.unpack(header)
    payload = b""
    while len(payload) < size:
        chunk = conn.recv(size - len(payload))
        if not chunk:
            os._exit(1)
        payload += chunk
    request = json.loads(payload)
    program = request.get("module") or request.get("script") or "-c " + repr(request["code"][:40])
    what = f"{program} {' '.join(request['argv'])}"
    # The run's environment: the shim's, with what the preload set where the shim's has not set it.
    request["env"] = {**set_by_preload, **request["env"]}
    differences = startup_differences(request["env"], server_env, tier)
    request["path"] = plain_path(request["env"].get("PYTHONPATH"), server_env.get("PYTHONPATH"), preloaded)
    if request["path"] is None:
        differences.append("PYTHONPATH")
    if differences or len(fds) != 3:
        print(f"cold ({', '.join(differences)}): {what}", file=sys.stderr, flush=True)
        conn.sendall((json.dumps({"cold": differences}) + "\n").encode())
        os._exit(0)
    pid = os.fork()
    if pid == 0:
        conn.close()
        _run(request, fds)
    for fd in fds:
        os.close(fd)
    print(f"warm {pid}: {what}", file=sys.stderr, flush=True)
    conn.sendall((json.dumps({"pid": pid}) + "\n").encode())
    # The run's end, seen through a pidfd (Linux 5.3 and newer), or else by polling ``waitpid``.
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    status = None
    while status is None:
        ready, _, _ = select.select(
            [conn] + ([pidfd] if pidfd is not None else []), [], [], None if pidfd is not None else 0.1
        )
        if pidfd is None or pidfd in ready:
            done, raw = os.waitpid(pid, os.WNOHANG)
            if done:
                status = raw
                break
        if conn in ready and not conn.recv(1):  # the shim is gone (killed on a timeout): so is its run
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            _, status = os.waitpid(pid, 0)
    try:
        conn.sendall((json.dumps({"status": status}) + "\n").encode())
    except OSError:
        pass
    os._exit(0)


def _run(request: dict, fds: list[int]) -> None:
    """The run's process: become ``python -m MODULE ARGS`` or ``python SCRIPT ARGS`` as the shim
    was asked, with its streams, environment and working folder."""
    import random
    import runpy

    os.setpgid(0, 0)
    for target, fd in zip((0, 1, 2), fds):
        os.dup2(fd, target)
        os.close(fd)
    # An interpreter's own: SIGINT raises KeyboardInterrupt, SIGPIPE is ignored, the rest default.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    random.seed()
    if "tempfile" in sys.modules:
        sys.modules["tempfile"].tempdir = None  # found again from this run's TMPDIR
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    sys.executable = request["executable"]
    sys.path[1:1] = request["path"]  # PYTHONPATH's folders come after the first entry, as at start-up
    if "module" in request:
        sys.argv = ["-m", *request["argv"]]  # runpy puts the module's path first
        sys.path[0] = os.getcwd()  # as -m does
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    elif "code" in request:
        import types

        sys.argv = ["-c", *request["argv"]]
        sys.path[0] = ""  # as -c does
        main = types.ModuleType("__main__")
        main.__dict__["__builtins__"] = __builtins__
        sys.modules["__main__"] = main
        exec(compile(request["code"], "<string>", "exec"), main.__dict__)
    else:
        sys.argv = [request["script"], *request["argv"]]
        sys.path[0] = os.path.dirname(request["script"])
        runpy.run_path(request["script"], run_name="__main__")
    sys.exit(0)


if __name__ == "__main__":
    serve(*sys.argv[1:3])
