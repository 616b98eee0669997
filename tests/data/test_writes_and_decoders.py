"""Writes, decoders and the terminal on a folder from a stranger (docs/security.md), through the
real CLI, each hostile case beside its honest twin:

- ``score``'s replay file where a link stands: refused in one line, the link's target untouched
  (a score into a fresh folder still scores, and its run verifies);
- ``captionqa-export`` to a link, and from a pipe, a line nested past the bound and a line that is
  not an object, named like samples logs: one line each, no hang, no traceback;
- a PostScript file named ``evil.png`` that a samples line's ``input_media`` names, inside a data
  root: never handed to Ghostscript (a ``gs`` first on PATH would leave a mark), counted as an
  image that does not decode, while a real PNG beside it is shown;
- a pipe where ``report`` puts a chart: one line naming it, no hang;
- ``compare`` of runs whose category names carry OSC sequences (window title, clipboard) and a
  right-to-left override: shown escaped, a plain name as itself."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import base_env, run_score, run_tool
from helpers.hostile import copy, deep_json, rows, write_rows
from helpers.verifying import verdicts, verify
from PIL import Image

pytestmark = pytest.mark.e2e

KEPT = "# the maintainer's shell start-up\n"
LINK_REFUSED = "a link stands where this file goes: not written through it (remove the link)"


def _real(path: Path) -> Path:
    """``path`` with the links of its folder resolved, not of its last part (the link under test)."""
    return Path(os.path.realpath(path.parent)) / path.name


# ---- score ------------------------------------------------------------------------------------


def test_score_writes_no_replay_file_through_a_link_and_a_fresh_folder_scores_and_verifies(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    target = tmp_path / "bashrc"
    target.write_text(KEPT)
    submitted = tmp_path / "SUB"
    copy(subtlebench_pass_run, submitted)
    replay = submitted / "rescored" / "replay" / "subtlebench_predictions.json"
    replay.parent.mkdir(parents=True)
    os.symlink(target, replay)

    proc = run_score("subtlebench", str(submitted), "-o", str(submitted / "rescored"), env=env)
    assert proc.returncode == 1, proc.stderr[-3000:]
    assert proc.stderr.splitlines()[-1] == f"lmms-comparative score: error: {_real(replay)}: {LINK_REFUSED}", (
        proc.stderr[-2000:]
    )
    assert "Traceback" not in proc.stderr
    assert target.read_text() == KEPT and os.path.islink(replay)
    assert not list((submitted / "rescored").glob("**/*_results.json"))  # no lmms-eval run started

    # The honest twin: the same samples scored into a fresh folder, whose run verifies.
    fresh = tmp_path / "fresh"
    proc = run_score("subtlebench", str(submitted), "-o", str(fresh), env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    written = fresh / "replay" / "subtlebench_predictions.json"
    assert not os.path.islink(written) and json.loads(written.read_text())["benchmark"] == "subtlebench"
    proc = verify(fresh, env)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert {"subtlebench_at", "subtlebench_sp"} <= set(verdicts(proc)) and all(
        v.startswith("PASS") for v in verdicts(proc).values()
    ), proc.stdout[-3000:]


# ---- captionqa-export -------------------------------------------------------------------------


def _captionqa_log(folder: Path, domain: str, captions: dict[str, str]) -> Path:
    """A CaptionQA samples log as lmms-eval writes it, with one line per caption (its per-item
    dict under the metric's name, as our ``process_results`` logs it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"20260101_000000_samples_captionqa_simple_{domain}.jsonl"
    write_rows(
        path,
        [
            {"doc_id": n, "score": {"id": key, "caption": text, "caption_failed": False}}
            for n, (key, text) in enumerate(captions.items())
        ],
    )
    return path


def _export(results: Path, output: Path):
    return run_tool("captionqa-export", str(results), "-o", str(output), timeout=60)


def test_captionqa_export_writes_through_no_link_and_reads_only_regular_bounded_logs(tmp_path):
    honest = tmp_path / "honest" / "model"
    _captionqa_log(honest, "natural", {"nat_001": "A red square.", "nat_002": "Two circles."})
    _captionqa_log(honest, "document", {"doc_001": "A page of text."})

    # A link where the captions file goes: refused, its target untouched.
    target = tmp_path / "bashrc"
    target.write_text(KEPT)
    linked = tmp_path / "captions_linked.json"
    os.symlink(target, linked)
    proc = _export(honest.parent, linked)
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        f"lmms-comparative captionqa-export: error: {linked}: {LINK_REFUSED}"
    ], proc.stderr
    assert target.read_text() == KEPT and os.path.islink(linked)

    # A pipe named like a samples log: refused at once (a plain read would wait for a writer forever).
    piped = tmp_path / "piped" / "model"
    _captionqa_log(piped, "natural", {"nat_001": "A red square."})
    pipe = piped / "20260101_000000_samples_captionqa_simple_document.jsonl"
    os.mkfifo(pipe)
    proc = _export(piped.parent, tmp_path / "from_pipe.json")
    assert proc.returncode == 1 and proc.stderr.splitlines() == [
        f"lmms-comparative captionqa-export: error: {pipe}: not a regular file (a pipe, a device or a socket): not read"
    ], proc.stderr
    assert not (tmp_path / "from_pipe.json").exists()

    # A line nested 200,000 deep, and a line that is a list: one line each, naming file and line.
    for name, line, why in (
        ("deep", deep_json(), "JSON nested deeper than 64 levels"),
        ("list", "[1]", "expected a JSON object, got list"),
    ):
        folder = tmp_path / name / "model"
        log = _captionqa_log(folder, "natural", {"nat_001": "A red square."})
        log.write_text(log.read_text() + line + "\n")
        proc = _export(folder.parent, tmp_path / f"{name}.json")
        assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
        assert (
            len(proc.stderr.splitlines()) == 1
            and proc.stderr.startswith(f"lmms-comparative captionqa-export: error: {log}, line 2: ")
            and why in proc.stderr
        ), proc.stderr[-2000:]

    # The honest twin: every caption, in the submission format, as a regular file.
    output = tmp_path / "captions.json"
    proc = _export(honest.parent, output)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert json.loads(output.read_text()) == {
        "nat_001": "A red square.",
        "nat_002": "Two circles.",
        "doc_001": "A page of text.",
    }
    assert not os.path.islink(output)


# ---- report: decoders and a pipe where a chart goes -------------------------------------------

# A PostScript file: Pillow, left to choose by content, opens it with its EPS plugin, which runs
# Ghostscript to draw it.
POSTSCRIPT = (
    b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n%%EndComments\nnewpath 0 0 moveto 10 10 lineto "
    b"stroke\nshowpage\n%%EOF\n"
)


def _chunk(out: Path) -> list[dict]:
    text = (out / "items" / "chunk_00000.js").read_text()
    return json.loads(text[text.index(",") + 1 : text.rindex(")")])


def test_a_postscript_file_named_png_runs_no_ghostscript_and_a_real_png_beside_it_is_shown(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    media = tmp_path / "media"
    media.mkdir()
    (media / "evil.png").write_bytes(POSTSCRIPT)
    Image.new("RGB", (31, 23), (200, 10, 10)).save(media / "real.png")
    marker = tmp_path / "ghostscript_ran"
    fake = tmp_path / "bin" / "gs"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    fake.chmod(0o755)
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root, PATH=f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    _, _, samples = copy(subtlebench_pass_run, tmp_path / "run")
    found = rows(samples["subtlebench_at"])
    found[0]["input_media"] = [str(media / "evil.png"), str(media / "real.png")]
    write_rows(samples["subtlebench_at"], found)

    out = tmp_path / "report"
    proc = run_tool("report", str(tmp_path / "run"), "-o", str(out), "--data-root", str(media), env=env, timeout=300)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert not marker.exists(), "the report ran gs on a file a samples log named"
    item = next(r for r in _chunk(out) if "evil.png" in r["media"])
    shown = dict(zip(item["media"], item["images"]))
    assert shown["evil.png"] is None  # not decoded: shown as an image that is not there
    # The honest twin beside it: the real PNG is decoded and shown, at its own size.
    assert shown["real.png"] and Image.open(out / "full" / shown["real.png"]).size == (31, 23)


def test_a_pipe_where_a_chart_goes_is_one_line_and_no_hang(subtlebench_pass_run, hf_home, subtlebench_root, tmp_path):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    out = tmp_path / "report"
    out.mkdir()
    chart = out / "subtlebench_types.png"
    os.mkfifo(chart)
    proc = run_tool(
        "report", str(subtlebench_pass_run), "-o", str(out), "--no-html", env=env, timeout=120
    )  # a write into the pipe would wait forever
    assert proc.returncode == 2, proc.stderr[-3000:]
    assert proc.stderr.splitlines() == [
        f"lmms-comparative report: error: {chart}: something that is not a regular file stands where this "
        "file goes: not written"
    ], proc.stderr[-3000:]

    # The honest twin: into a fresh folder the chart is a PNG.
    fresh = tmp_path / "fresh"
    proc = run_tool("report", str(subtlebench_pass_run), "-o", str(fresh), "--no-html", env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert Image.open(fresh / "subtlebench_types.png").format == "PNG"
    assert "subtlebench_types.png" in json.loads((fresh / "report.json").read_text())["charts"]


# ---- compare: the terminal ----------------------------------------------------------------------

TITLE = "\x1b]0;pwned\x07"  # OSC 0: sets the terminal window's title
CLIPBOARD = "\x1b]52;c;cHduZWQ=\x07"  # OSC 52: writes "pwned" to the clipboard
RTL = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: what follows is shown reversed
HOSTILE = f"lab{TITLE}{CLIPBOARD}{RTL}evil"


def _with_domains(run: Path, to: Path, names: list[str]) -> Path:
    """A copy of ``run`` whose SubtleBench AT items take the category names ``names`` in turn."""
    _, _, samples = copy(run, to)
    found = rows(samples["subtlebench_at"])
    for number, row in enumerate(found):
        for value in row.values():
            if isinstance(value, dict) and "domain" in value:
                value["domain"] = names[number % len(names)]
    write_rows(samples["subtlebench_at"], found)
    return to


def test_compare_shows_a_category_name_s_escape_sequences_as_text_and_a_plain_name_as_itself(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    a = _with_domains(subtlebench_pass_run, tmp_path / "a", [HOSTILE, "indoor"])
    b = _with_domains(subtlebench_pass_run, tmp_path / "b", [HOSTILE, "indoor"])
    proc = run_tool("compare", str(a), str(b), env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for raw in ("\x1b", "\x07", RTL):
        assert raw not in proc.stdout and raw not in proc.stderr, repr(proc.stdout[-2000:])
    categories = [
        line.split()[1]
        for line in proc.stdout.splitlines()
        if line.startswith("subtlebench_at ") and len(line.split()) > 2 and not line.split()[1][0].isdigit()
    ]
    # The hostile name, inert: every control shown as its escape, on its one line.
    assert "lab\\x1b]0;pwned\\x07\\x1b]52;c;cHduZWQ=\\x07\\u202eevil" in categories, proc.stdout[-3000:]
    # The honest twin: a plain name prints as itself.
    assert "indoor" in categories, proc.stdout[-3000:]
