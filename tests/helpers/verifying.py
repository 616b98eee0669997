"""What the verify and export tests share: running ``verify`` and ``export`` as a user does, reading
verify's lines, and editing a copy of a run's files as a forger would."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from helpers import base_env, run_python


def roots_env(hf_home: Path, fixture_roots: dict, **extra) -> dict:
    """A test process's environment with every fixture root set."""
    return base_env(hf_home, **{k: str(v) for k, v in fixture_roots.items()}, **extra)


def verify(folder: Path, env: dict) -> subprocess.CompletedProcess:
    """``python -m lmms_comparative verify FOLDER``."""
    return run_python(["-m", "lmms_comparative", "verify", str(folder)], env=env)


def export(*args: str, env: dict) -> subprocess.CompletedProcess:
    """``python -m lmms_comparative export ARGS``."""
    return run_python(["-m", "lmms_comparative", "export", *args], env=env, timeout=600)


def verdicts(proc: subprocess.CompletedProcess) -> dict[str, str]:
    """{task or group: its verdict line} from verify's output (the last file's, where several name it)."""
    found = {}
    for line in proc.stdout.splitlines():
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0] in ("PASS", "FAIL", "UNVERIFIED"):
            found[parts[1].rstrip(":")] = line.strip()
    return found


def files(folder: Path) -> tuple[Path, dict[str, Path]]:
    """A run folder's results JSON and its samples logs by task."""
    results = next(folder.glob("**/*_results.json"))
    samples = {p.stem.split("_samples_", 1)[1]: p for p in results.parent.glob("*_samples_*.jsonl")}
    return results, samples


def lines(path: Path) -> list[dict]:
    """The rows of a JSON-lines file."""
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def write_lines(path: Path, rows: list[dict]) -> None:
    """Rows as a JSON-lines file."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def copy_run(run: Path, to: Path) -> tuple[Path, dict, dict[str, Path]]:
    """A copy of ``run`` at ``to`` (verdict files left behind): its results file, the results as a
    dict to edit, its samples logs."""
    shutil.copytree(run, to, ignore=shutil.ignore_patterns("*_verify.json"))
    results_file, samples = files(to)
    return results_file, json.loads(results_file.read_text()), samples


def save(results_file: Path, results: dict) -> None:
    """Write edited results back."""
    results_file.write_text(json.dumps(results, indent=2))
