"""data/untrusted.py on the files a stranger's folder can hold: links (to a file outside, to the
folder above, loops), a pipe, files past the size bound, JSON nested past the depth bound; each
with its honest twin (a regular file, a real results JSON's depth, a link-free folder)."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from lmms_comparative.data import gate, untrusted
from lmms_comparative.data.jsonl import json_file, json_lines


class Bad(Exception):
    pass


def test_a_link_a_pipe_and_a_file_too_large_are_refused_and_a_regular_file_is_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("the maintainer's own file")
    folder = tmp_path / "submitted"
    folder.mkdir()
    (folder / "honest.json").write_text('{"a": 1}')
    os.symlink(secret, folder / "linked.json")
    os.mkfifo(folder / "pipe.json")

    assert untrusted.read_bytes(folder / "honest.json", 100) == b'{"a": 1}'
    with pytest.raises(untrusted.Unsafe, match="a link: links inside a submitted folder are not followed"):
        untrusted.read_bytes(folder / "linked.json", 100)
    # A pipe would block a plain read forever: refused at once (no writer is ever attached).
    reader = threading.Thread(
        target=lambda: pytest.raises(untrusted.Unsafe, untrusted.read_bytes, folder / "pipe.json", 100), daemon=True
    )
    reader.start()
    reader.join(30)
    assert not reader.is_alive(), "reading a pipe blocked"
    with pytest.raises(untrusted.Unsafe, match="not a regular file"):
        untrusted.read_bytes(folder / "pipe.json", 100)
    with pytest.raises(untrusted.Unsafe, match="past the 4 bytes a real run writes"):
        untrusted.read_bytes(folder / "honest.json", 4)
    # The shared readers name the file in one line.
    with pytest.raises(Bad, match=r"linked\.json: a link"):
        json_file(folder / "linked.json", Bad, "results JSON")
    assert json_file(folder / "honest.json", Bad, "results JSON") == {"a": 1}


@pytest.mark.e2e
def test_json_nested_past_the_bound_is_refused_before_parsing_and_real_files_pass(tmp_path, four_benchmarks_run):
    # A real lmms-eval results JSON and samples line (the suite's shared run) pass, with room to spare.
    results = next(four_benchmarks_run.glob("*_results.json"))
    untrusted.loads(results.read_text(), limit=untrusted.MAX_DEPTH // 4)
    for samples in four_benchmarks_run.glob("*_samples_*.jsonl"):
        assert json_lines(samples, Bad, "samples log")
    # 200,000 deep: a one-line refusal, no RecursionError.
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(Bad, match="JSON nested deeper than 64 levels"):
        json_file(deep, Bad, "results JSON")
    log = tmp_path / "deep.jsonl"
    log.write_text('{"doc_id": 0}\n' + '{"a": ' * 70 + "1" + "}" * 70 + "\n")
    with pytest.raises(Bad, match=r"deep\.jsonl, line 2: JSON nested deeper than 64 levels"):
        json_lines(log, Bad, "samples log")
    # Exactly at the bound: parsed; brackets inside strings do not count.
    assert untrusted.loads("[" * 64 + "]" * 64) == json.loads("[" * 64 + "]" * 64)
    with pytest.raises(untrusted.Unsafe):
        untrusted.loads("[" * 65 + "]" * 65)
    assert untrusted.loads(json.dumps({"reply": "[" * 500 + '\\"{' * 100})) == {"reply": "[" * 500 + '\\"{' * 100}


def test_a_write_never_goes_through_a_link(tmp_path):
    target = tmp_path / "bashrc"
    target.write_text("original\n")
    folder = tmp_path / "run"
    folder.mkdir()
    os.symlink(target, folder / "x_verify.json")
    with pytest.raises(untrusted.Unsafe, match="a link stands where this file goes"):
        untrusted.write_file(folder / "x_verify.json", "$(touch PWNED)\n")
    assert target.read_text() == "original\n" and os.path.islink(folder / "x_verify.json")
    # The honest twin: a new file, then the same file replaced, with the mode a plain open gives.
    untrusted.write_file(folder / "y_verify.json", "one")
    untrusted.write_file(folder / "y_verify.json", "two")
    mask = os.umask(0)
    os.umask(mask)
    assert (folder / "y_verify.json").read_text() == "two" and stat.S_IMODE(
        (folder / "y_verify.json").stat().st_mode
    ) == 0o666 & ~mask
    assert sorted(p.name for p in folder.iterdir()) == ["x_verify.json", "y_verify.json"]  # no temporary file left
    os.symlink(tmp_path, folder / "thumbs")
    with pytest.raises(untrusted.Unsafe, match="a link stands where this folder goes"):
        untrusted.make_folder(folder / "thumbs")


def test_the_walk_visits_each_file_once_and_follows_no_link(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a_results.json").write_text("{}")
    root = tmp_path / "submitted"
    (root / "run" / "sub").mkdir(parents=True)
    (root / "run" / "1_results.json").write_text("{}")
    (root / "run" / "sub" / "2_results.json").write_text("{}")
    os.symlink("..", root / "run" / "loop")  # one loop ...
    os.symlink("..", root / "run" / "sub" / "loop")  # ... and a second: the glob of old never ended
    os.symlink(outside, root / "out")
    os.symlink(outside / "a_results.json", root / "run" / "3_results.json")
    found, passed = gate.files_matching(root, "*_results.json")
    assert found == [root / "run" / "1_results.json", root / "run" / "sub" / "2_results.json"]
    assert {p.name for p, _ in passed} == {"loop", "out", "3_results.json"} and len(passed) == 4
    # The honest twin: a folder without links gives every file and passes over nothing.
    clean = tmp_path / "clean"
    (clean / "a").mkdir(parents=True)
    for name in ("x_results.json", "a/y_results.json", "a/z_samples_t.jsonl"):
        (clean / name).write_text("{}")
    assert gate.files_matching(clean, "*_results.json") == (
        [clean / "a" / "y_results.json", clean / "x_results.json"],
        [],
    )


def test_under_resolves_dots_and_links(tmp_path):
    root = tmp_path / "data"
    (root / "images").mkdir(parents=True)
    image = root / "images" / "a.png"
    image.write_bytes(b"x")
    os.symlink("/etc/hostname", root / "images" / "link.png")
    assert untrusted.under(image, [root]) and untrusted.under(str(root / "images" / ".." / "images" / "a.png"), [root])
    assert not untrusted.under(str(root / "images" / ".." / ".." / ".." / "etc" / "hostname"), [root])
    assert not untrusted.under(root / "images" / "link.png", [root])
    assert not untrusted.under("/etc/passwd", [root]) and not untrusted.under(
        str(Path(str(root) + "-sibling") / "a.png"), [root]
    )
