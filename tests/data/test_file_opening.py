"""A replies file's opening, which a benchmark's format check reads before ``score`` reads the file:
through the gate, as the reader does. A pipe named like a replies file held ``score diffspot`` (and
every benchmark's ``score`` of a .jsonl, whose check asks DiffSpot's too) forever."""

from __future__ import annotations

import os
import threading

import pytest
from helpers import run_tool

from lmms_comparative.tasklib.file_opening import text_opening


def _opening_of(*args):
    found: list = []
    reader = threading.Thread(target=lambda: found.append(text_opening(*args)), daemon=True)
    reader.start()
    reader.join(60)  # a read that waits on a pipe never ends: the thread is still alive
    assert not reader.is_alive(), "the format check waited on the file"
    return found[0]


def test_a_regular_file_gives_its_first_line_or_characters(tmp_path):
    replies = tmp_path / "predictions.jsonl"
    replies.write_text('{"id": "1", "split": "diff", "prediction": "é"}\n{"id": "2"}\n', encoding="utf-8")
    assert _opening_of(replies, ".jsonl") == '{"id": "1", "split": "diff", "prediction": "é"}\n'
    assert _opening_of(replies, ".jsonl", 45) == '{"id": "1", "split": "diff", "prediction": "é'
    assert _opening_of(replies, ".json") is None  # another ending
    one_line = tmp_path / "one.jsonl"
    one_line.write_text("no line end", encoding="utf-8")
    assert _opening_of(one_line, ".jsonl") == "no line end"


def test_a_pipe_a_link_and_bytes_that_are_not_text_give_none(tmp_path):
    honest = tmp_path / "predictions.jsonl"
    honest.write_text('{"id": "1"}\n', encoding="utf-8")
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    link = tmp_path / "link.jsonl"
    link.symlink_to(honest)
    binary = tmp_path / "binary.jsonl"
    binary.write_bytes(b"\xff\xfe\x00\n")
    assert _opening_of(pipe, ".jsonl") is None
    assert _opening_of(link, ".jsonl") is None  # the reader does not follow it either
    assert _opening_of(binary, ".jsonl") is None
    assert _opening_of(honest, ".jsonl") == '{"id": "1"}\n'


@pytest.mark.parametrize("benchmark", ["diffspot", "compbench", "subtlebench"])
def test_score_of_a_pipe_named_like_replies_stops_with_one_line(benchmark, tmp_path):
    # Each benchmark's score asks every benchmark's check of a .jsonl (DiffSpot's and CompBench's
    # read its first line); the honest twins are the score tests of the authors' files.
    pipe = tmp_path / "predictions.jsonl"
    os.mkfifo(pipe)
    proc = run_tool("score", benchmark, str(pipe), "-o", str(tmp_path / "out"), timeout=300)
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "not a regular file (a pipe, a device or a socket): not read" in proc.stderr
