"""The fork server of ``verify``'s re-scores (``warm.py`` starts it and hands it the jobs): a process
that imports lmms-eval's heavy third-party libraries once, then forks one process per re-score,
which runs lmms-eval's CLI as ``python -m lmms_eval ARGS`` would.

Why: every re-score is a fresh lmms-eval process, and about 10 s of each is importing torch,
torchvision, scipy, pandas, pyarrow and the Hugging Face libraries; a folder of six runs paid that
six times. A process forked from one that has imported them starts in a fraction of it.

What may be imported here, and why that gives a run the same outcome as a cold one: only libraries
that read nothing at import that a re-score sets otherwise. A job's environment is the server's
(``verify`` starts the server with its own) plus our own ``LMMS_COMPARATIVE_*`` settings, which only
this package reads, at run time; a job whose environment differs in any other variable is refused
(``cold``) and runs as a fresh process. Never imported here: this package, openai, the lmms-eval
modules that load our ``lmms_eval.models`` entry point, and those our harness's patches wait for
(``harness.PATCHED_MODULES``: tests/verify/test_fork_server.py holds the two lists together;
``lmms_eval.utils`` aside, which a cold run has imported before our entry point too). The
server checks after its imports that none of them is loaded and exits (status 3) otherwise.

What differs from a fresh process, by construction: the preloaded modules are already imported,
what they made is frozen for the garbage collector, and ``hash()`` of a string is salted once per
server. ``random`` and numpy's global generator are seeded afresh in each run, ``tempfile`` finds
its folder again from the run's environment.

Fork safety: the server starts no thread of its own and makes no tensor. The libraries start a
few threads when imported (torch, pyarrow's pools, jemalloc's background thread); a child has only
the thread that forked, and these libraries restart their pools after a fork. The test suite's
warm start forks its runs from the same imports, and tests/verify compares the verdict files of
forked re-scores with those of fresh ones. Each run gets its own process group (lmms-eval's own
children with it), the standard signal handlers of an interpreter, stdin on ``/dev/null`` and its
output in the two files the job names.

Protocol, one connection per job: the job is a length (4 bytes, big-endian) sent with two file
descriptors, the run's stdout and stderr (``warm.py`` makes them as anonymous temporary files, so
nothing here opens a path for writing), then that many bytes of JSON (``argv``, ``env``, ``cwd``,
``executable``); a waiter process forks the run and answers ``{"pid": P}``
then ``{"status": S}`` (a wait status), or ``{"cold": [...]}`` when it must not run it here. When
the connection closes before the run ends (``verify`` was stopped), the waiter kills the run's
process group. The server exits on SIGTERM once its waiters have, or when the process that started
it is gone.

What the server preloads, which jobs it runs and how a run starts are its ``Rules``: verify's by
default. The test suite's warm start (tests/helpers/warm_python.py) runs this same server under
rules of its own (two preloads, more settings read at run time, stdin handed over too, ``-c CODE``
and scripts besides ``-m``), so one implementation serves both.

Run as a script, never imported as part of the package in the server process: it imports the
standard library only before its preload.
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
from typing import Sequence

# What `import lmms_eval.__main__` loads that reads no variable a re-score sets otherwise (measured
# with -X importtime: most of the ~10 s start-up), then lmms-eval's filters (their punctuation table
# takes about 1.4 s to build; they bring in lmms_eval.api's filter, instance, model and registry,
# lmms_eval.utils and loguru, none of which loads our entry point or is a module a patch waits for).
PRELOAD = (
    "torch torch._dynamo torchvision torchvision.transforms numpy pandas pyarrow pyarrow.parquet "
    "scipy.stats scipy.optimize scipy.linalg scipy.interpolate scipy.integrate scipy.special "
    "scipy.sparse scipy.spatial scipy.ndimage scipy.fft sympy PIL.Image PIL.ImageDraw aiohttp chardet "
    "requests urllib3 jinja2 yaml sacrebleu regex safetensors.torch sentencepiece tqdm.auto tenacity "
    "wcwidth lxml.etree dateutil.parser pytz anyio numexpr xxhash zstandard "
    "huggingface_hub datasets transformers evaluate accelerate nltk lmms_eval.filters"
).split()
# Never imported by the server, nor anything inside them: this package, openai, the modules that
# load our entry point (lmms_eval.models, through the CLI's) and those our patches wait for.
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
# The variables a job may set otherwise than the server: read by this package only, at run time.
RUN_TIME = re.compile(r"^LMMS_COMPARATIVE_")
NOT_SERVING = 3  # the server's exit status when its preload imported a module in NEVER
HEADER = struct.Struct("!I")  # the length of a job's JSON, sent with its two descriptors


def loaded_never(modules, never=NEVER) -> list[str]:
    """The modules among ``modules`` that are, or are inside, one of ``never``."""
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in never))


def env_differences(env: dict, server_env: dict) -> list[str]:
    """The variables that ``env`` sets otherwise than ``server_env`` and that are not ``RUN_TIME``."""
    keys = {k for k in (*env, *server_env) if not RUN_TIME.match(k)}
    return sorted(k for k in keys if env.get(k) != server_env.get(k))


class Rules:
    """What a server preloads, which jobs it runs and how a run starts. These are ``verify``'s: the
    preload above; a job that sets no variable otherwise than the server but our run-time settings;
    its stdout and stderr handed over, stdin empty; ``python -m lmms_eval ARGS``. The test suite's
    warm start (tests/helpers/warm_python.py) serves its runs from this server under rules of its own."""

    preload: Sequence[str] = PRELOAD
    # What the job's descriptors become in its run, in order; stdin reads /dev/null unless it is one.
    streams: tuple[int, ...] = (1, 2)

    def refused(self, modules) -> list[str]:
        """The modules among ``modules`` (the server's, once preloaded) that it must not have imported."""
        return loaded_never(modules)

    def differences(self, job: dict, server_env: dict) -> list[str]:
        """Why ``job`` must run cold (the variables it may not set otherwise than ``server_env``);
        empty when it runs here."""
        return env_differences(job["env"], server_env)

    def told(self, job: dict, outcome: str) -> None:
        """What became of ``job`` (``warm PID`` or ``cold (VARIABLES)``): verify's server logs nothing."""

    def start(self, job: dict) -> None:
        """The run's program, in its process once its streams, environment and folder are set."""
        import runpy

        sys.argv = ["-m", *job["argv"]]  # runpy puts the module's path first
        sys.path.insert(0, os.getcwd())  # as -m does
        runpy.run_module("lmms_eval", run_name="__main__", alter_sys=True)


def serve(path: str, rules: Rules | None = None) -> None:
    """Import what ``rules`` preload (verify's by default), then fork a waiter for each job on the
    Unix socket at ``path`` (made once the imports are done: ``warm.py`` waits for it). Exits when
    its parent is gone."""
    import gc
    import importlib

    rules = rules or Rules()
    start_env = dict(os.environ)
    for name in rules.preload:
        try:
            importlib.import_module(name)
        except ImportError:  # a library this lmms-eval does not use: its runs import what they need
            pass
    wrong = rules.refused(sys.modules)
    if wrong:
        print(f"fork server: the preload imported {', '.join(wrong[:5])}; not serving", file=sys.stderr)
        sys.exit(NOT_SERVING)
    # What the preload made is never garbage: lmms-eval collects a few times a run, and each pass
    # over these objects would cost a fraction of a second and touch (so copy) their pages.
    gc.freeze()
    # What the preload set (torch._dynamo: TORCHINDUCTOR_CACHE_DIR): a cold run sets it itself.
    set_by_preload = {k: v for k, v in os.environ.items() if start_env.get(k) != v}
    server_env = dict(os.environ)
    parent = os.getppid()
    signal.signal(signal.SIGTERM, _stop)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.rename(path + ".tmp", path)
    listener.settimeout(1.0)
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
            _wait_on(conn, rules, server_env, set_by_preload)  # returns only in the run's process, by SystemExit
        conn.close()


def _stop(_signum, _frame) -> None:
    """SIGTERM (``warm.Warm.close``): wait for the waiters (each ends once its run has, or once
    its connection closes) and exit, so that what they used is counted in the server's, and so in
    verify's, ``RUSAGE_CHILDREN``."""
    try:
        while True:
            os.waitpid(-1, 0)
    except ChildProcessError:
        pass
    os._exit(0)


def _reap() -> None:
    """Collect the waiters that have ended (no zombie is left behind)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _send(conn: socket.socket, message: dict) -> None:
    conn.sendall((json.dumps(message) + "\n").encode())


def _wait_on(conn: socket.socket, rules: Rules, server_env: dict, set_by_preload: dict) -> None:
    """The waiter: read one job, fork its run, report the run's pid and then its wait status; kill
    the run's process group when the connection closes first."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    fds: list[int] = []
    try:
        header, fds, _flags, _addr = socket.recv_fds(conn, HEADER.size, len(rules.streams))
        (size,) = HEADER.unpack(header)
        payload = b""
        while len(payload) < size:
            chunk = conn.recv(size - len(payload))
            if not chunk:
                raise ValueError("the job ended early")
            payload += chunk
        job = json.loads(payload)
        job["env"] = {**set_by_preload, **job["env"]}
        differences = rules.differences(job, server_env)
        if len(fds) != len(rules.streams):
            raise ValueError(f"{len(fds)} descriptors, not {len(rules.streams)}")
    except (OSError, struct.error, ValueError, KeyError, TypeError) as exc:
        _send(conn, {"cold": [f"unreadable job ({type(exc).__name__}: {exc})"]})
        os._exit(0)
    if differences:
        rules.told(job, f"cold ({', '.join(differences)})")
        _send(conn, {"cold": differences})
        os._exit(0)
    try:
        pid = os.fork()
    except OSError as exc:
        _send(conn, {"cold": [f"fork failed ({exc})"]})
        os._exit(0)
    if pid == 0:
        conn.close()
        _run(job, fds, rules)
    for fd in fds:
        os.close(fd)
    rules.told(job, f"warm {pid}")
    _send(conn, {"pid": pid})
    try:  # the run's end through a pidfd (Linux 5.3 and newer), else by polling waitpid
        pidfd: int | None = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = None
    status = None
    while status is None:
        watched = [conn] + ([pidfd] if pidfd is not None else [])
        ready, _, _ = select.select(watched, [], [], None if pidfd is not None else 0.1)
        done, raw = os.waitpid(pid, os.WNOHANG)
        if done:
            status = raw
        elif conn in ready and not conn.recv(1):  # verify is gone: so is its run
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            _, status = os.waitpid(pid, 0)
    try:
        _send(conn, {"status": status})
    except OSError:
        pass
    os._exit(0)


def _run(job: dict, fds: list[int], rules: Rules) -> None:
    """The run's process: the job's streams (``fds``, which become ``rules.streams``), environment
    and working folder, the state a fresh interpreter starts with, then the program ``rules`` start."""
    import random
    import tempfile

    os.setpgid(0, 0)
    if 0 not in rules.streams:
        stdin = os.open(os.devnull, os.O_RDONLY)
        os.dup2(stdin, 0)
        os.close(stdin)
    for target, fd in zip(rules.streams, fds):
        os.dup2(fd, target)
        os.close(fd)
    # An interpreter's own: SIGINT raises KeyboardInterrupt, SIGPIPE is ignored, the rest default.
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    os.environ.clear()
    os.environ.update(job["env"])
    os.chdir(job["cwd"])
    random.seed()
    tempfile.tempdir = None  # found again from this run's TMPDIR
    if "numpy" in sys.modules:
        sys.modules["numpy"].random.seed()
    sys.executable = job["executable"]
    rules.start(job)
    sys.exit(0)


if __name__ == "__main__":
    del sys.path[0]  # this file's folder: nothing of the package is importable as a top-level module
    serve(sys.argv[1])
