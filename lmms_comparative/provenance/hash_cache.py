"""The cache of the data fingerprint's file hashes (``data_fingerprint.fingerprint``): a SQLite file
kept across runs and processes, one row per file hashed, by absolute path."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import sqlite3

# How long a process waits for another's write to the cache.
_CACHE_WAIT_S = 10
_HASH_TABLE = (
    "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,"
    " ctime_ns INTEGER NOT NULL, inode TEXT NOT NULL, sha256 TEXT NOT NULL)"
)


def hash_cache_path() -> Path:
    """Where the file hashes of ``fingerprint`` are kept: ``$XDG_CACHE_HOME/lmms_comparative/file_hashes.sqlite``
    (``~/.cache`` when the variable is unset), beside the judges' answer cache (``judges/config.py``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lmms_comparative" / "file_hashes.sqlite"


def open_hash_cache() -> sqlite3.Connection | None:
    """A connection to the hash cache, or None where it cannot be opened (the fingerprint then
    hashes every file)."""
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


def cached_hashes(conn: sqlite3.Connection, prefix: str) -> dict[str, tuple]:
    """{absolute path: (size, mtime_ns, ctime_ns, inode, sha256)} for the cached files under
    ``prefix`` (a folder, ending in a separator)."""
    import sqlite3

    try:
        # Every path under the folder and no other: the text range [prefix, prefix with its last
        # character incremented).
        rows = conn.execute(
            "SELECT path, size, mtime_ns, ctime_ns, inode, sha256 FROM files WHERE path >= ? AND path < ?",
            (prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)),
        ).fetchall()
    except sqlite3.Error:
        return {}
    return {row[0]: row[1:] for row in rows}


def store_hashes(conn: sqlite3.Connection, rows: list[tuple], gone: list[str]) -> None:
    """Write new hashes and forget the files that are gone, in one transaction; a cache that
    cannot be written is left as it is."""
    import sqlite3

    if not rows and not gone:
        return
    try:
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO files (path, size, mtime_ns, ctime_ns, inode, sha256)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                rows,
            )
            conn.executemany("DELETE FROM files WHERE path = ?", [(path,) for path in gone])
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
    except sqlite3.Error:
        pass
