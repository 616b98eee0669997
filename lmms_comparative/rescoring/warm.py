"""The re-scores of ``verify`` over a folder of several runs, from one lmms-eval start-up: ``Warm``
starts the fork server (``fork_server.py``: what it imports, and why a forked run scores as a
fresh one) and runs each lmms-eval command line ``replay`` builds as one of its children.

Why a server only for several runs: the server's start costs about as much as one run's (it
imports the same libraries), so a single run gains nothing from it and keeps the plain subprocess.

How many at once: as many jobs as the process may use cores (``cores()``: the CPU affinity, not
the machine's count, so a container or ``taskset`` limit is honoured). A re-score is one Python
process, busy on one core (its scoring is single-threaded Python); more at once than cores only
share them out, while each holds its memory (hundreds of MB of samples and results), so the peak
grows and the folder finishes no sooner. ``verify`` checks that many runs at once, and ``Warm``
holds its jobs to the same width, so that a run whose benchmarks are re-scored apart (one start
each, ``rescore_all``) does not add to it.

When the server cannot start (no ``fork`` or Unix sockets on the platform, its preload failed or
imported a module it must not, the socket cannot be made) or refuses a job (the job's environment
differs from the server's in a variable read at start-up; a fork failed), that job runs as today's
fresh subprocess, and a one-line notice on stderr says so. ``LMMS_COMPARATIVE_VERIFY_COLD=1``
starts no server: every re-score is a fresh process, as for a single run.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable, Sequence

from lmms_comparative.rescoring.fork_server import HEADER

COLD_ENV = "LMMS_COMPARATIVE_VERIFY_COLD"
SERVER_FILE = Path(__file__).with_name("fork_server.py")
START_TIMEOUT = 300.0  # seconds for the server's imports; a loaded machine takes several times the usual 10 s

# What ``replay`` is handed to run an lmms-eval command line: (argv, env) -> the finished process, output captured.
Runner = Callable[[Sequence[str], dict], subprocess.CompletedProcess]


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        return max(1, os.cpu_count() or 1)


def cold(argv: Sequence[str], env: dict) -> subprocess.CompletedProcess:
    """A fresh lmms-eval process, output captured: the path of a single run, and every fallback."""
    return subprocess.run(list(argv), env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL)


def wanted(runs: int) -> bool:
    """Whether a folder of ``runs`` runs is re-scored through the server: several runs, a platform
    that can fork and pass a socket, and ``COLD_ENV`` not set."""
    return runs > 1 and not os.environ.get(COLD_ENV) and hasattr(os, "fork") and hasattr(socket, "send_fds")


def notice(text: str) -> None:
    print(f"lmms-comparative verify: {text}", file=sys.stderr, flush=True)


class Stopped(RuntimeError):
    """A re-score asked of a server that ``close`` has stopped (verify was interrupted)."""


class Warm:
    """The fork server of one ``verify``, started at once (its imports run while verify reads the
    folder) and stopped by ``close``; ``run`` is a ``Runner``."""

    def __init__(self, width: int | None = None):
        self.slots = threading.BoundedSemaphore(width or cores())
        self.folder = Path(tempfile.mkdtemp(prefix="lmms-comparative-warm-"))  # holds the socket only
        self.socket = str(self.folder / "socket")
        self._lock = threading.Lock()
        self._ready: bool | None = None
        self._told: set[str] = set()
        self._state_lock = threading.Lock()  # the notices told and the open connections
        self._open: set[socket.socket] = set()  # the jobs' connections, shut by ``close``
        self._closed = False
        self._log = tempfile.TemporaryFile()  # the server's own output, read when it did not start
        try:
            self.process: subprocess.Popen | None = subprocess.Popen(
                [sys.executable, str(SERVER_FILE), self.socket],
                stdin=subprocess.DEVNULL,
                stdout=self._log,
                stderr=self._log,
                start_new_session=True,  # the terminal's Ctrl-C is verify's: verify stops the server
            )
        except OSError as exc:
            self.process = None
            self._ready = False
            self._tell(f"the re-scoring server did not start ({exc}): each re-score starts lmms-eval afresh")

    def ready(self) -> bool:
        """Whether the server serves: waits for its imports the first time (one thread waits, the
        others wait on it)."""
        with self._lock:
            if self._ready is None:
                self._ready = self._wait()
            return self._ready

    def _wait(self) -> bool:
        assert self.process is not None
        deadline = time.monotonic() + START_TIMEOUT
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self._log.seek(0)
                tail = self._log.read().decode(errors="replace").strip().splitlines()[-1:]
                why = f"exit status {self.process.poll()}" if self.process.poll() is not None else "not ready in time"
                self._tell(
                    f"the re-scoring server did not start ({why}{': ' + tail[0][:200] if tail else ''}):"
                    " each re-score starts lmms-eval afresh"
                )
                return False
            time.sleep(0.05)
        return True

    def _tell(self, text: str) -> None:
        with self._state_lock:
            if text not in self._told:
                self._told.add(text)
                notice(text)

    def run(self, argv: Sequence[str], env: dict) -> subprocess.CompletedProcess:
        """``argv`` (``python -m lmms_eval ARGS``) as a child of the server, else as a fresh process."""
        with self.slots:
            if self._closed:
                raise Stopped("verify stopped before this re-score")
            if len(argv) < 3 or list(argv[1:3]) != ["-m", "lmms_eval"] or not self.ready():
                return cold(argv, env)
            done = self._forked(argv, env)
            if self._closed:
                raise Stopped("verify stopped during this re-score")
            return done if done is not None else cold(argv, env)

    def _forked(self, argv: Sequence[str], env: dict) -> subprocess.CompletedProcess | None:
        """The job run by the server, its output read back from its files; None (after a notice)
        when the server would not run it."""
        job = {"argv": list(argv[3:]), "env": dict(env), "cwd": os.getcwd(), "executable": sys.executable}
        payload = json.dumps(job).encode()
        try:
            conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        except OSError as exc:
            self._tell(f"a re-score could not be handed to the server ({exc}): it starts lmms-eval afresh")
            return None
        with self._state_lock:
            self._open.add(conn)
        # The run's stdout and stderr: anonymous files, handed over as descriptors and read back here.
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            try:
                conn.connect(self.socket)
                socket.send_fds(conn, [HEADER.pack(len(payload))], [out.fileno(), err.fileno()])
                conn.sendall(payload)
                reader = conn.makefile("rb")
                first = json.loads(reader.readline() or b"{}")
                if "pid" not in first:
                    why = ", ".join(first.get("cold") or ["no answer"])
                    self._tell(f"a re-score could not be forked ({why[:200]}): it starts lmms-eval afresh")
                    return None
                last = reader.readline()  # until the run ends; closing the connection would stop the run
                if not last:
                    self._tell("the re-scoring server closed a job before its end: it starts lmms-eval afresh")
                    return None
                status = json.loads(last)["status"]
                out.seek(0)
                err.seek(0)
                return subprocess.CompletedProcess(
                    list(argv),
                    os.waitstatus_to_exitcode(status),
                    out.read().decode(errors="replace"),
                    err.read().decode(errors="replace"),
                )
            except (OSError, ValueError, KeyError, TypeError) as exc:
                self._tell(f"a re-score could not be handed to the server ({exc}): it starts lmms-eval afresh")
                return None
            finally:
                with self._state_lock:
                    self._open.discard(conn)
                conn.close()

    def close(self) -> None:
        """Stop the server (runs still going are killed by their waiters when their connection
        closes: those of ``verify``'s threads are shut here) and remove its folder."""
        self._closed = True
        with self._state_lock:
            for conn in self._open:
                try:
                    conn.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()  # it waits for its waiters, then exits
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


__all__ = ["COLD_ENV", "Runner", "Warm", "cold", "cores", "wanted"]
