"""The data fingerprint (``fingerprint``): a sha256 over the paths, sizes and contents of the files
under a data root, its file hashes kept in the hash cache (``hash_cache``) and each folder's
fingerprint remembered for the process."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path
from stat import S_ISREG
from typing import Iterator

from lmms_comparative.provenance.hash_cache import cached_hashes, open_hash_cache, store_hashes

# The data fingerprint's file hashes (``fingerprint``): threads that hash, and how long a file must
# have been left alone to be cached.
HASH_WORKERS = min(8, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
_SETTLED_NS = 2_000_000_000
_UNREADABLE = "unreadable"  # the hash column of a file that is listed but cannot be read

_lock = threading.Lock()
_fingerprints: dict[str, str] = {}  # folder -> its fingerprint (computed once per process)


def _content_sha256(path: str) -> str | None:
    """``file_sha256``, or None for a file that disappeared since it was listed (left out);
    ``_UNREADABLE`` for one that cannot be read."""
    try:
        return file_sha256(path)
    except FileNotFoundError:
        return None
    except OSError:
        return _UNREADABLE


def _regular_files(root: str) -> Iterator[tuple[str, os.stat_result]]:
    """(path, stat) of every regular file under ``root``, following links (to folders too); what
    cannot be listed or stat'ed is left out."""
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
    conn = open_hash_cache()
    try:
        cached = cached_hashes(conn, prefix) if conn is not None else {}
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
            store_hashes(conn, fresh, [path for path in cached if path not in seen])
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


def forget() -> None:
    """Forget the fingerprints computed in this process (the cache on disk stays)."""
    with _lock:
        _fingerprints.clear()
