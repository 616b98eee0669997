"""What produced a results file: written into every results JSON of a run that includes our tasks,
under the top-level key ``lmms_comparative`` (``harness/stamp_results.py`` adds it when lmms-eval's
tracker saves the results).

It records, without a timestamp or anything else that differs between 1 and N processes:

- ``package``: this package's version, and the git commit (and whether the tree was modified) when
  it runs from a checkout;
- ``lmms_eval``: lmms-eval's installed version (lmms-eval's own ``lmms_eval_version`` field is the
  git state of the working directory, ``unknown@unknown`` outside a checkout);
- ``python`` and ``libraries``: the interpreter and the key libraries' versions;
- ``settings``: every ``LMMS_COMPARATIVE_*`` variable and every variable of ours that is set
  (data roots, judge and reader settings), never a key;
- ``seeds``: lmms-eval's seeds, and ``limit`` / ``offset`` when set;
- ``llm``: the settings of each judge or reader that scored the run (backend, model, endpoint host,
  temperature, max tokens), never a key; ``llm_answers``: the count and sha256 of the file beside
  the results that logs every answer they gave (``<date>_llm_answers.jsonl``: prefix, answer key,
  text), from which ``verify`` re-scores the judged tasks without calling an endpoint;
- ``predictions`` (a ``lmms-comparative score`` run): each prediction file's path, format and
  sha256 (a folder of samples logs: its fingerprint);
- ``tasks``: per task of ours, its benchmark, its data (``source``: ``hub`` with the repository and
  the commit pinned, or ``local`` with the root and its variable; ``fingerprint``: a sha256 over
  the paths, sizes and contents of the files under the data root; ``generated``: the marker of data
  this package made up, ``data/generated.py``), its item set (``count``, and ``sha256`` of the sorted item keys
  scored) and ``prompts`` (a sha256 of the benchmark's prompt module and the task's YAML).

The data the loaders found is recorded while they run (``note_local``, ``note_hub``); engines record
their settings when they are built (``note_llm``). Nothing here imports lmms-eval.
"""

from __future__ import annotations

import hashlib
import os
import platform
import subprocess
import threading
import time
from pathlib import Path
from stat import S_ISREG
from urllib.parse import urlparse

from lmms_comparative import __version__

KEY = "lmms_comparative"
# The record's layout version. 2: the data fingerprint hashes every file's content (1: images and
# videos counted by path and size only), so a schema-1 fingerprint is not comparable with a later one.
SCHEMA = 2
LIBRARIES = (
    "torch",
    "transformers",
    "datasets",
    "huggingface_hub",
    "numpy",
    "pillow",
    "pyarrow",
    "openai",
    "aiohttp",
    "sentence-transformers",
    "filelock",
)
# The data fingerprint's file hashes (``fingerprint``): threads that hash, how long a process waits
# for another's write to the cache, and how long a file must have been left alone to be cached.
HASH_WORKERS = min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
_CACHE_WAIT_S = 10
_SETTLED_NS = 2_000_000_000
_UNREADABLE = "unreadable"  # the hash column of a file that is listed but cannot be read
_HASH_TABLE = "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL, inode TEXT NOT NULL, sha256 TEXT NOT NULL)"

# A file of logged LLM answers (``<date>_llm_answers.jsonl``): with this variable set, every engine
# answers from it and calls no endpoint (``lmms-comparative verify`` re-scores judged tasks so).
ANSWERS_ENV = "LMMS_COMPARATIVE_LLM_ANSWERS"

_lock = threading.Lock()
_answers: dict[str, dict] = {}  # answer key -> {"prefix", "key", "text"}: every LLM answer of the run
_sources: dict[str, dict] = {}  # root variable -> where its data came from
_llm: dict[str, dict] = {}  # engine prefix -> settings
_fingerprints: dict[str, str] = {}  # folder -> its fingerprint (computed once per process)


def note_local(variable: str, root: Path, generated: dict | None = None) -> None:
    """A loader read its data from the local copy ``variable`` names; ``generated``: the marker of
    data this package made up, found at the root (``data.generated.read``), or None for a release's copy."""
    with _lock:
        _sources[variable] = {"source": "local", "variable": variable, "root": str(root)}
        if generated:
            _sources[variable]["generated"] = generated


def note_hub(variable: str, repo: str, commit: str, folder: Path) -> None:
    """A loader read its data from ``repo`` at ``commit``, fetched into ``folder``."""
    with _lock:
        _sources[variable] = {"source": "hub", "repo": repo, "commit": commit, "folder": str(folder)}


def source(variable: str) -> dict | None:
    """The data source recorded for a benchmark's root variable in this process (local folder or hub snapshot), or None."""
    with _lock:
        found = _sources.get(variable)
        return dict(found) if found else None


def note_llm(prefix: str | None, config) -> None:
    """An engine (judge or reader) was built with ``config`` (an ``EngineConfig``)."""
    host = urlparse(config.base_url).hostname if config.backend != "local" else None
    port = urlparse(config.base_url).port if config.backend != "local" else None
    settings = {
        "backend": config.backend,
        "model": config.model,
        "endpoint_host": f"{host}:{port}" if host and port else host,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
    }
    if config.backend == "azure":
        settings.update(api_version=config.api_version, azure_deployment=config.azure_deployment or config.model)
    if config.backend == "local":
        settings["gguf_file"] = config.gguf_file
    with _lock:
        _llm[prefix or "LMMS_COMPARATIVE_LLM"] = settings


def answer_key(messages: list) -> str:
    """What a logged LLM answer is found by: a sha256 of the request's messages (canonical JSON).
    The endpoint, model and sampling settings are the run's, recorded beside (``llm``)."""
    import json

    return hashlib.sha256(
        json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    ).hexdigest()


def note_answers(prefix: str | None, answered: list[tuple[str, str]]) -> None:
    """The (answer key, text) pairs a judge or reader answered, for the run's answers log."""
    with _lock:
        for key, text in answered:
            _answers[key] = {"prefix": prefix or "LMMS_COMPARATIVE_LLM", "key": key, "text": text}


def logged_answers() -> list[dict]:
    """The LLM answers this process logged so far (what the run's ``<date>_llm_answers.jsonl`` holds), in key order."""
    with _lock:
        return [dict(_answers[k]) for k in sorted(_answers)]


def load_answers(path: str | Path) -> dict[str, str]:
    """{answer key: text} from an answers log."""
    import json

    found = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            found[row["key"]] = row["text"]
    return found


def llm_settings() -> dict[str, dict]:
    """The settings of every engine this process built, by prefix: backend, model, endpoint host, sampling (no key, no path)."""
    with _lock:
        return {prefix: dict(settings) for prefix, settings in sorted(_llm.items())}


def settings(prefixes: tuple[str, ...]) -> dict[str, str]:
    """Every variable of ours that is set (its name starts with one of ``prefixes``: the registry's
    ``setting_prefixes``, read from every benchmark's record), keys and tokens left out."""
    return {
        name: value
        for name, value in sorted(os.environ.items())
        if name.startswith(prefixes) and not any(secret in name for secret in ("API_KEY", "TOKEN", "SECRET"))
    }


def _version(distribution: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def package() -> dict:
    """This package's version, and its checkout's commit when it runs from one."""
    found = {"version": __version__}
    checkout = Path(__file__).resolve().parents[1]
    if (checkout / ".git").exists():
        try:
            commit = subprocess.run(
                ["git", "-C", str(checkout), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10
            ).stdout.strip()
            dirty = subprocess.run(
                ["git", "-C", str(checkout), "status", "--porcelain", "--untracked-files=no"],
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            commit, dirty = "", ""
        if commit:
            found.update(commit=commit, modified=bool(dirty))
    return found


def environment() -> dict:
    """The package, lmms-eval, Python and the key libraries."""
    return {
        "package": package(),
        "lmms_eval": _version("lmms-eval"),
        "python": platform.python_version(),
        "libraries": {name: _version(name) for name in LIBRARIES},
    }


def hash_cache_path() -> Path:
    """Where the file hashes of ``fingerprint`` are kept: ``$XDG_CACHE_HOME/lmms_comparative/file_hashes.sqlite``
    (``~/.cache`` when the variable is unset), beside the judges' answer cache (``judges/config.py``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lmms_comparative" / "file_hashes.sqlite"


def _open_hash_cache():
    """A connection to the hash cache, or None where it cannot be opened (the fingerprint then hashes every file)."""
    import sqlite3

    conn = None
    try:
        path = hash_cache_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
        conn = sqlite3.connect(path, timeout=_CACHE_WAIT_S, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout={_CACHE_WAIT_S * 1000}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute(_HASH_TABLE)
        return conn
    except (OSError, sqlite3.Error):
        if conn is not None:
            conn.close()
        return None


def _cached_hashes(conn, prefix: str) -> dict[str, tuple]:
    """{absolute path: (size, mtime_ns, ctime_ns, inode, sha256)} for the cached files under ``prefix`` (a folder, ending in a separator)."""
    import sqlite3

    try:
        # Every path under the folder and no other: the text range [prefix, prefix with its last character incremented).
        rows = conn.execute(
            "SELECT path, size, mtime_ns, ctime_ns, inode, sha256 FROM files WHERE path >= ? AND path < ?",
            (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)),
        ).fetchall()
    except sqlite3.Error:
        return {}
    return {row[0]: row[1:] for row in rows}


def _store_hashes(conn, rows: list[tuple], gone: list[str]) -> None:
    """Write new hashes and forget the files that are gone, in one transaction; a cache that cannot be written is left as it is."""
    import sqlite3

    if not rows and not gone:
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO files (path, size, mtime_ns, ctime_ns, inode, sha256) VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            conn.executemany("DELETE FROM files WHERE path = ?", [(path,) for path in gone])
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    except sqlite3.Error:
        pass


def _content_sha256(path: str) -> str | None:
    """``file_sha256``, or None for a file that disappeared since it was listed (left out); ``_UNREADABLE`` for one that cannot be read."""
    try:
        return file_sha256(path)
    except FileNotFoundError:
        return None
    except OSError:
        return _UNREADABLE


def _regular_files(root: str):
    """(path, stat) of every regular file under ``root``, following links (to folders too); what cannot be listed or stat'ed is left out."""
    folders = [root]
    while folders:
        try:
            listing = os.scandir(folders.pop())
        except OSError:
            continue
        with listing:
            for entry in listing:
                try:
                    if entry.is_dir():
                        folders.append(entry.path)
                        continue
                    stat = entry.stat()
                except OSError:
                    continue
                if S_ISREG(stat.st_mode):
                    yield entry.path, stat


def fingerprint(folder: str | Path) -> str:
    """A sha256 over every file under ``folder`` (following the links the hub's cache uses): one line
    per file, its path relative to the folder, its size and the sha256 of its content, so the same
    files in another folder give the same fingerprint (docs/provenance.md, "The data fingerprint").

    File hashes are cached across runs and processes (``hash_cache_path``), by absolute path, valid
    while the file's size, mtime, ctime and inode are those it was hashed at: a folder seen before
    costs a ``stat`` per file. A file modified less than 2 s before hashing began is not cached (its
    next change could keep its mtime). A cache that cannot be opened or written is skipped; the
    files not cached are hashed on ``HASH_WORKERS`` threads, in blocks."""
    folder = str(folder)
    with _lock:
        if folder in _fingerprints:
            return _fingerprints[folder]
    root = os.path.abspath(folder)
    prefix = root if root.endswith(os.sep) else root + os.sep
    listed = [
        (path[len(prefix) :].replace(os.sep, "/"), path, stat) for path, stat in _regular_files(root)
    ]  # (path relative to the folder, absolute path, stat)
    conn = _open_hash_cache()
    try:
        cached = _cached_hashes(conn, prefix) if conn is not None else {}
        hashes: dict[str, str] = {}
        missing = []
        for _, path, stat in listed:
            found = cached.get(path)
            if found is not None and found[:4] == (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, str(stat.st_ino)):
                hashes[path] = found[4]
            else:
                missing.append((path, stat))
        started = time.time_ns()
        paths = [path for path, _ in missing]
        if len(paths) > 1 and HASH_WORKERS > 1:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(
                max_workers=min(HASH_WORKERS, len(paths)), thread_name_prefix="lmms-comparative-hash"
            ) as pool:
                computed = list(pool.map(_content_sha256, paths))
        else:
            computed = [_content_sha256(path) for path in paths]
        fresh = []
        for (path, stat), sha in zip(missing, computed):
            if sha is None:
                continue
            hashes[path] = sha
            if sha != _UNREADABLE and stat.st_mtime_ns < started - _SETTLED_NS:
                fresh.append((path, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, str(stat.st_ino), sha))
        if conn is not None:
            seen = {path for _, path, _ in listed}
            _store_hashes(conn, fresh, [path for path in cached if path not in seen])
    finally:
        if conn is not None:
            conn.close()
    lines = [f"{rel}\t{stat.st_size}\t{hashes[path]}" for rel, path, stat in listed if path in hashes]
    digest = hashlib.sha256("\n".join(sorted(lines)).encode("utf-8")).hexdigest()
    with _lock:
        _fingerprints[folder] = digest
    return digest


def file_sha256(path: str | Path) -> str:
    """The SHA-256 of a file's bytes, hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def item_set(keys) -> dict:
    """The count and a sha256 of the sorted item keys (each key a string)."""
    ordered = sorted(str(k) for k in keys)
    return {"count": len(ordered), "sha256": hashlib.sha256("\n".join(ordered).encode("utf-8")).hexdigest()}


def data_of(variable: str) -> dict:
    """The data record of a benchmark whose root variable is ``variable``: its source and the
    fingerprint of the folder the loader read."""
    found = source(variable)
    if not found:
        return {"source": None}
    folder = found.pop("folder", None) or found.get("root")
    # A folder's fingerprint; a local copy that is one file (VLM2-Bench's TSV): that file's sha256.
    found["fingerprint"] = (
        fingerprint(folder)
        if folder and os.path.isdir(folder)
        else file_sha256(folder)
        if folder and os.path.isfile(folder)
        else None
    )
    return found


GENERATED_LINE = b"# Generated from "  # the first line benchmarks/generate.py writes


def prompts_sha256(benchmark_package: str, yaml_path: str | None) -> str:
    """A sha256 of the benchmark's ``prompts.py`` and the task's YAML (with the templates it
    includes from the same folder), the text a task's prompts come from."""
    import importlib.util

    digest = hashlib.sha256()
    spec = importlib.util.find_spec(f"{benchmark_package}.prompts")
    templates = sorted(Path(yaml_path).parent.glob("_*_yaml")) if yaml_path else []
    for path in ([spec.origin] if spec and spec.origin else []) + ([yaml_path] if yaml_path else []) + templates:
        digest.update(_prompt_text(Path(path)))
    return digest.hexdigest()


def _prompt_text(path: Path) -> bytes:
    """A file's bytes without the task file generator's first line (where it comes from, not what it asks)."""
    data = path.read_bytes()
    return data.split(b"\n", 1)[1] if data.startswith(GENERATED_LINE) and b"\n" in data else data


def end_of_run() -> None:
    """Forget the judges' and readers' settings and answers of the run just written: the next entry
    of a ``--config`` file runs in this process and must record only its own."""
    with _lock:
        _llm.clear()
        _answers.clear()


def reset() -> None:
    """Forget what was noted (tests run several runs in one process)."""
    with _lock:
        _sources.clear()
        _llm.clear()
        _answers.clear()
        _fingerprints.clear()
