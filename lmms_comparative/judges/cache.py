"""A persistent answer cache shared by threads and processes.

SQLite in WAL mode: answers are committed in small batches (the engine bounds how many it holds
uncommitted), a commit is atomic (a process killed mid-write leaves the previous state), readers never
block the writer, and several processes (the ranks of a distributed run, the threads of lmms-eval's
process_results pool) can share one file.
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


def _canonical(value) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def encode_request(endpoint: str, model: str, messages: list, params: Mapping) -> tuple[str, bytes]:
    """(cache key, JSON body of the chat request), with the messages JSON-encoded once for both.

    The key is the SHA-256 of the canonical JSON (sorted keys, compact) of {endpoint, messages,
    model, params}, assembled from the same pieces, so it is the key earlier versions computed and
    existing cache files stay valid. The body is {"model", "messages", **params}."""
    return encode_requests(endpoint, model, [messages], params)[0]


def encode_requests(endpoint: str, model: str, many: list[list], params: Mapping) -> list[tuple[str, bytes]]:
    """``encode_request`` for many message lists that share endpoint, model and parameters."""
    model_json, params_json = _canonical(model), _canonical(dict(params))
    head = f'{{"endpoint":{_canonical(endpoint)},"messages":'
    tail = f',"model":{model_json},"params":{params_json}}}'
    body_head = f'{{"model":{model_json},"messages":'
    body_tail = ("," + params_json[1:-1] if params_json != "{}" else "") + "}"
    out = []
    for messages in many:
        encoded = _canonical(messages)
        out.append(
            (
                hashlib.sha256((head + encoded + tail).encode("utf-8")).hexdigest(),
                (body_head + encoded + body_tail).encode("utf-8"),
            )
        )
    return out


class AnswerCache:
    """The SQLite answer cache at ``path`` (module docstring): a key per request, the answer text."""

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
        """{key: answer} for the keys the cache has (the others are left out)."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, str] = {}
        conn = self._connect()
        for start in range(0, len(keys), 500):
            chunk = keys[start : start + 500]
            marks = ",".join("?" * len(chunk))
            found.update(conn.execute(f"SELECT key, text FROM answers WHERE key IN ({marks})", chunk).fetchall())
        return found

    def put(self, key: str, text: str) -> None:
        """Store one answer (``put_many`` of one)."""
        self.put_many([(key, text)])

    def put_many(self, answers: list[tuple[str, str]]) -> None:
        """Store (key, text) pairs in one transaction: all of them are committed, or none."""
        if not answers:
            return
        conn = self._connect()
        now = time.time()
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany(
                "INSERT OR REPLACE INTO answers (key, text, created) VALUES (?, ?, ?)",
                [(k, t, now) for k, t in answers],
            )
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def __len__(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM answers").fetchone()[0]
