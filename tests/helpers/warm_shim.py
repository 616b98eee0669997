"""The shim of the suite's warm start (``warm_python.py`` is the server): a tiny program that runs in
place of ``python``, hands a run to the warm server named in the environment and stands for the run
(its streams, signals and exit status). Imported by the shim script with this folder on the module
path, so it imports the standard library only."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys

from warm_python import HEADER, SOCKET_ENV

# The console scripts run warm (from the real interpreter's folder), and `-m` of these packages.
SCRIPTS = ("lmms-comparative", "lmms-eval")
MODULES = ("lmms_eval", "lmms_comparative")


def shim_main(real_python: str) -> None:
    """Run ``sys.argv[1:]`` on the warm server when it is an lmms-eval or console-script run and a
    server is named in the environment; otherwise, or when the server does not answer, exec the
    real interpreter with the same arguments."""
    args = sys.argv[1:]
    request = _request_for(args, real_python)
    path = os.environ.get(SOCKET_ENV)
    if request is None or not path:
        _cold(real_python, args)
    try:
        conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        conn.connect(path)
        payload = json.dumps(request).encode()
        socket.send_fds(conn, [HEADER.pack(len(payload))], [0, 1, 2])
        conn.sendall(payload)
        reader = conn.makefile("r")
        first = json.loads(reader.readline() or "{}")
    except (OSError, ValueError):
        _cold(real_python, args)
    if "pid" not in first:
        _cold(real_python, args)  # the server says this run must start cold
    pid = first["pid"]

    def forward(signum, _frame):
        for kill in (os.killpg, os.kill):
            try:
                kill(pid, signum)
            except OSError:
                pass

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    line = reader.readline()
    if not line:
        print("warm_python: the server closed the connection before the run ended", file=sys.stderr)
        sys.exit(1)
    status = json.loads(line)["status"]
    if os.WIFSIGNALED(status):
        signum = os.WTERMSIG(status)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    sys.exit(os.waitstatus_to_exitcode(status))


def _request_for(args: list[str], real_python: str) -> dict | None:
    shim = os.path.abspath(sys.argv[0])  # a run's own lmms-eval runs (score, verify) come back here
    if len(args) >= 2 and args[0] == "-m" and args[1].split(".")[0] in MODULES:
        return {"module": args[1], "argv": args[2:], "executable": shim, **_context()}
    if len(args) >= 2 and args[0] == "-c":
        return {"code": args[1], "argv": args[2:], "executable": shim, **_context()}
    if (
        args
        and os.path.basename(args[0]) in SCRIPTS
        and os.path.dirname(os.path.abspath(args[0])) == os.path.dirname(real_python)
    ):
        return {"script": os.path.abspath(args[0]), "argv": args[1:], "executable": shim, **_context()}
    return None


def _context() -> dict:
    return {"env": dict(os.environ), "cwd": os.getcwd()}


def _cold(real_python: str, args: list[str]):
    os.execv(real_python, [real_python, *args])
