"""A persistent answer cache shared by threads and processes.

SQLite in WAL mode: every answer is committed as it arrives, a commit is atomic (a process killed
mid-write leaves the previous state), readers never block the writer, and several processes (the
ranks of a distributed run, the threads of lmms-eval's process_results pool) can share one file.
Only successful answers are stored, so a rerun retries what failed and repeats nothing else.

The key is a SHA-256 of everything that determines the answer: endpoint, model, messages and
sampling parameters. API keys are not part of it and are never stored.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Iterable, Mapping

_SCHEMA = "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, text TEXT NOT NULL, created REAL NOT NULL)"


def request_key(endpoint: str, model: str, messages: list, params: Mapping) -> str:
    canonical = json.dumps(
        {"endpoint": endpoint, "model": model, "messages": messages, "params": dict(params)},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class AnswerCache:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # It holds prompts and answers: readable by its owner only (SQLite gives its -wal and -shm
        # files the database file's mode). An existing file keeps the mode its owner chose.
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600))
        self._local = threading.local()
        with self._connect() as conn:
            conn.execute(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=True)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA busy_timeout=60000")
            self._local.conn = conn
        return conn

    def get_many(self, keys: Iterable[str]) -> dict[str, str]:
        keys = list(dict.fromkeys(keys))
        found: dict[str, str] = {}
        conn = self._connect()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(conn.execute(f"SELECT key, text FROM answers WHERE key IN ({marks})", chunk).fetchall())
        return found

    def put(self, key: str, text: str) -> None:
        self._connect().execute("INSERT OR REPLACE INTO answers (key, text, created) VALUES (?, ?, ?)", (key, text, time.time()))

    def __len__(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM answers").fetchone()[0]
