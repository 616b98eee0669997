"""The test process's side of the warm start (``warm_python.py`` is the server, ``warm_shim.py`` the
shim): start a server on first need, keep at most ``MAX_SERVERS``, hand a run the server that fits
its environment (``server_for``), stop them all at exit."""

from __future__ import annotations

import atexit
import itertools
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from helpers.warm_python import COLD_ENV, HF_AFTER, SOCKET_ENV, _keyed

SERVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "warm_python.py")


# One "base" server per set of start-up variables (the tests' process changes some as it imports
# libraries: cv2 adds to LD_LIBRARY_PATH, sklearn sets KMP_*) and one "hf" server per environment
# (HF_AFTER), the least recently used stopped beyond this many.
MAX_SERVERS = 4


class Server:
    """A started server: the shim to run (shared by all), its socket and its log (a line per
    request: ``warm PID: WHAT`` or ``cold (VARIABLES): WHAT``)."""

    def __init__(self, folder: str, env: dict, tier: str = "base"):
        index = next(_numbers)
        self.shim = os.path.join(folder, "python")
        self.socket = os.path.join(folder, f"socket-{index}")
        self.log = os.path.join(folder, f"server-{index}.log")
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, SERVER, self.socket, tier],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
                start_new_session=True,
            )

    def ready(self, timeout: float = 300) -> bool:
        deadline = time.monotonic() + timeout
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                with open(self.log) as f:
                    print(
                        f"warm_python: a server did not start; its runs start cold\n{f.read()[-2000:]}", file=sys.stderr
                    )
                self.stop()
                return False
            time.sleep(0.1)
        return True

    def stop(self) -> None:
        """Stop serving; runs already forked go on."""
        self.process.kill()
        self.process.wait()


# What the server needs of the platform: fork, and passing file descriptors over a Unix socket
# (POSIX; not Windows). Elsewhere every run starts cold.
_PORTABLE = hasattr(os, "fork") and hasattr(socket, "send_fds")
_servers: dict = {}  # (tier, the variables it shares with its runs) -> Server, or None where it did not start
_requests: dict = {}  # an "hf" server's key -> how many runs asked for it
_numbers = itertools.count(1)  # each server's socket and log
_folder: list[str] = []


def server_for(env: dict, tier: str | None = None) -> Server | None:
    """The server for a run with environment ``env``, started on first need (its preload takes a
    few seconds): an "hf" server once its environment has had ``HF_AFTER`` requests, else a "base"
    one (``tier`` asks for one). None where the run must start cold: ``WARM_PYTHON_OFF`` is set, the
    platform has no fork or descriptor passing, the run sets a ``PYTHON*`` variable of its own but
    ``PYTHONPATH`` (which the server checks: ``plain_path``), or no server started."""
    if os.environ.get(COLD_ENV) or env.get(COLD_ENV) or not _PORTABLE:
        return None
    if any(
        env.get(k) != os.environ.get(k) for k in {*env, *os.environ} if k.startswith("PYTHON") and k != "PYTHONPATH"
    ):
        return None
    hf = ("hf", _key(env, "hf"))
    _requests[hf] = _requests.get(hf, 0) + 1
    if tier == "hf" or (tier is None and (hf in _servers or _requests[hf] >= HF_AFTER)):
        server = _started(hf, env)
        if server is not None or tier == "hf":
            return server
    return _started(("base", _key(env, "base")), env)


def _key(env: dict, tier: str) -> tuple:
    return tuple(sorted((k, v) for k, v in env.items() if _keyed(k, tier)))


def _started(key: tuple, env: dict) -> Server | None:
    if key in _servers:
        _servers[key] = _servers.pop(key)  # the most recently used last
        return _servers[key]
    while len(_servers) >= MAX_SERVERS:
        old = _servers.pop(next(iter(_servers)))
        if old is not None:
            old.stop()
    # Started without the run's PYTHONPATH: the key leaves it out, and each run's own is added to
    # its module path by the server (``plain_path``); a server started with one would send every
    # later run of its key without it cold.
    server = Server(_shim_folder(), {k: v for k, v in env.items() if k not in (SOCKET_ENV, "PYTHONPATH")}, key[0])
    _servers[key] = server if server.ready() else None
    return _servers[key]


def _shim_folder() -> str:
    if not _folder:
        folder = tempfile.mkdtemp(prefix="warm-python-")
        with open(os.path.join(folder, "python"), "w") as f:
            f.write(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {os.path.dirname(SERVER)!r})\n")
            f.write(f"import warm_shim\nwarm_shim.shim_main({sys.executable!r})\n")
        os.chmod(os.path.join(folder, "python"), 0o755)
        _folder.append(folder)
        atexit.register(_stop_all)
    return _folder[0]


def _stop_all() -> None:
    for server in _servers.values():
        if server is not None:
            server.stop()
    if not os.environ.get("WARM_PYTHON_KEEP"):
        shutil.rmtree(_folder[0], ignore_errors=True)
