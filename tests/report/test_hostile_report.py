"""``report`` and ``compare`` on folders from a stranger (docs/security.md), through the CLI and, for
the page, in a real browser with a listener on 127.0.0.1 that the strings point at; each beside
the untouched copy of the same PASS run, its honest twin.

What a stranger edits: the model name (Markdown image syntax, a spreadsheet formula, matplotlib
math), the record's data variable, ``input_media`` (``embedded:../../etc/hostname``, an absolute
path, ``..`` out of the data root, a link out of the run folder, a PNG declaring 13000 x 13000
pixels), folder loops, a results file nested 200,000 deep, a link where compare.json goes."""

from __future__ import annotations

import csv
import json
import os
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from helpers import base_env, run_tool
from helpers.browser import requests_made, wait_for
from helpers.hostile import copy, deep_results, png, rows, save, write_rows
from PIL import Image

pytestmark = pytest.mark.e2e


class Listener:
    """An HTTP server on 127.0.0.1 that records every request it gets (the stranger's server)."""

    def __init__(self):
        self.paths: list[str] = []
        heard = self.paths

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the standard library's name
                heard.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.end_headers()
                self.wfile.write(png(1, 1))

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def listener():
    server = Listener()
    yield server
    server.close()


def _hostile_copies(run: Path, base: Path, data_root: Path, port: int) -> dict[str, Path]:
    """Three hostile copies of ``run`` (model name and media; a formula name; a math name), and
    the outside image they name."""
    secret = base / "maintainer" / "secret.png"
    secret.parent.mkdir(parents=True)
    Image.new("RGB", (77, 55), (1, 2, 3)).save(secret)

    results_file, results, samples = copy(run, base / "hostile")
    results["config"]["model_args"] = (
        f"pretrained=x` ![l](http://127.0.0.1:{port}/leak-model-name.png) `<img src=http://127.0.0.1:{port}/leak-html.png>"
    )
    for entry in results["lmms_comparative"]["tasks"].values():
        entry["data"]["variable"] = f"![v](http://127.0.0.1:{port}/leak-variable.png)"
    save(results_file, results)
    found = rows(samples["subtlebench_at"])
    (base / "hostile" / "bomb.png").write_bytes(png(13000, 13000))
    os.symlink(secret, base / "hostile" / "linked.png")
    first = found[0]["input_media"][0]
    found[0]["input_media"] = ["embedded:../../etc/hostname", str(secret)]
    found[1]["input_media"] = [str(base / "hostile" / "bomb.png"), str(base / "hostile" / "linked.png")]
    found[2]["input_media"] = [
        os.path.join(os.path.dirname(first), *[".."] * 12, *secret.parts[1:]),
        found[2]["input_media"][1],
    ]
    write_rows(samples["subtlebench_at"], found)
    os.symlink("..", base / "hostile" / "loop")
    os.symlink("..", base / "hostile" / "loop2")

    formula_file, formula, _ = copy(run, base / "formula")
    formula["config"]["model_args"] = "pretrained==2+5+cmd|' /C calc'!A0"
    save(formula_file, formula)
    math_file, math, _ = copy(run, base / "math")
    math["config"]["model_args"] = "pretrained=my$\\model$v2"
    save(math_file, math)
    return {"secret": secret, "hostile": base / "hostile", "formula": base / "formula", "math": base / "math"}


def _report(folders: list[Path], out: Path, env: dict):
    return run_tool("report", *map(str, folders), "-o", str(out), env=env, timeout=300)


def _full_views(out: Path, sub: str = "full") -> list[tuple[int, int]]:
    """The sizes of the report's image views (``full/`` or ``thumbs/``)."""
    sizes = []
    for path in sorted((out / sub).iterdir()):
        with Image.open(path) as image:
            sizes.append(image.size)
    return sizes


def _page_requests(browser, page: Path, out: Path) -> set[str]:
    """The URLs the page asked for with the SubtleBench tab open and every item card of it opened."""
    requests_made(browser)  # drop what earlier pages asked for
    browser.get(page.as_uri() + "#b-subtlebench")
    wait_for(
        browser,
        "var c = document.querySelector(\".browser[data-benchmark='subtlebench'] .count\"); return c && c.textContent",
    )
    wait_for(
        browser,
        "return Array.from(document.querySelectorAll(\".browser[data-benchmark='subtlebench'] "
        'img.thumb")).every(i => i.complete)',
    )
    browser.execute_script(
        "document.querySelectorAll(\".browser[data-benchmark='subtlebench'] article.item "
        '.head").forEach(h => h.click())'
    )
    wait_for(
        browser,
        "var b = document.querySelectorAll(\".browser[data-benchmark='subtlebench'] article.item .body\"); "
        "return b.length > 0 && Array.from(b).every(x => x.querySelector('.images'))",
    )
    # The full views load lazily: asked for all at once, so that every request the cards can make is made.
    wait_for(
        browser,
        "var f = Array.from(document.querySelectorAll('img.full')); f.forEach(i => { i.loading = 'eager'; "
        "}); return f.length > 0 && f.every(i => i.complete)",
    )
    browser.get(page.as_uri() + "#overview")
    wait_for(browser, "return document.readyState === 'complete'")
    return requests_made(browser)


def test_a_hostile_report_reads_fetches_and_runs_nothing_outside_and_the_honest_one_shows_everything(
    subtlebench_pass_run, hf_home, subtlebench_root, listener, browser, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    made = _hostile_copies(subtlebench_pass_run, tmp_path, subtlebench_root, listener.port)
    out = tmp_path / "report"
    proc = _report([made["hostile"], made["formula"], made["math"]], out, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Traceback" not in proc.stderr
    notes = [line for line in proc.stderr.splitlines() if line.startswith("lmms-comparative report: ")]
    assert any(
        "3 media file(s) that the samples logs name lie outside the data roots set here (SUBTLEBENCH_ROOT" in n
        for n in notes
    ), proc.stderr
    assert any("1 image(s) declare more than 67,108,864 pixels: not decoded, not shown" in n for n in notes), (
        proc.stderr
    )
    assert any(
        n.endswith(
            "hostile/loop: a link to a folder: not followed (links inside a submitted folder are never followed)"
        )
        for n in notes
    ), proc.stderr

    # Each run once, whatever the loops; the math name drew its charts.
    document = json.loads((out / "report.json").read_text())
    assert len(document["runs"]) == 3 and document["charts"], document["runs"]
    # Nothing from outside the data roots was read into the report: no view of the 77 x 55 secret.
    assert (77, 55) not in _full_views(out) + _full_views(out, "thumbs")
    chunk = (out / "items" / "chunk_00000.js").read_text()
    assert "/etc/hostname" not in chunk and "../" not in chunk
    # The formula's cell is quoted; the honest cells beside it are not.
    table = list(csv.reader((out / "tables" / "subtlebench_table2.csv").open(encoding="utf-8")))
    formula_rows = [r for r in table if r[0].lstrip("'").startswith("=2+5+cmd")]
    assert formula_rows and all(r[0].startswith("'=2+5+cmd") for r in formula_rows), table
    assert any(r[0] == "Random Guess (paper)" and r[1] == "35.9" for r in table)
    # The page: a CSP that allows only its folder, and no link, image or HTML made from a string.
    page = (out / "index.html").read_text()
    assert (
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'self'; "
        "style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'\">" in page
    )
    assert "http://127.0.0.1" in page  # shown, as text ...
    assert (
        '<img src="http' not in page and '<a href="http' not in page and "<img src=http" not in page
    )  # ... never as markup

    # In a real browser, with the listener up: not one request reaches it, and no file outside the
    # report's folder is asked for.
    asked = _page_requests(browser, (out / "index.html").resolve(), out)
    assert listener.paths == [], listener.paths
    outside = {u for u in asked if not u.startswith(out.resolve().as_uri() + "/")}
    assert outside == set(), outside
    withheld = browser.execute_script(
        "return Array.from(document.querySelectorAll('.missing')).map(s => s.textContent)"
    )
    assert sum("media outside the data roots, not shown" in t for t in withheld) == 3, withheld

    # The honest twin: the untouched run's report shows every image of its items and has no notes.
    honest = tmp_path / "honest_report"
    proc = _report([subtlebench_pass_run], honest, env)
    assert proc.returncode == 0 and "lmms-comparative report: " not in proc.stderr, proc.stderr[-3000:]
    images = {
        m
        for samples in (subtlebench_pass_run).glob("*_samples_*.jsonl")
        for r in rows(samples)
        for m in r["input_media"]
    }
    assert len(list((honest / "full").iterdir())) == len(images)
    browser.get((honest / "index.html").resolve().as_uri() + "#b-subtlebench")
    wait_for(
        browser,
        "var t = Array.from(document.querySelectorAll(\".browser[data-benchmark='subtlebench'] "
        'img.thumb")); return t.length > 0 && t.every(i => i.complete)',
    )
    widths = browser.execute_script(
        "return Array.from(document.querySelectorAll(\".browser[data-benchmark='subtlebench'] "
        'img.thumb")).map(i => i.naturalWidth)'
    )
    assert len(widths) == len(images) and all(w > 0 for w in widths), widths
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors


def test_a_broken_run_is_passed_over_in_one_line_and_compare_writes_through_no_link(
    subtlebench_pass_run, hf_home, subtlebench_root, tmp_path
):
    env = base_env(hf_home, SUBTLEBENCH_ROOT=subtlebench_root)
    root = tmp_path / "submission"
    deep_results(root / "0bad")
    copy(subtlebench_pass_run, root / "honest")
    proc = _report([root], tmp_path / "report", env)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert (
        f"lmms-comparative report: passed over: {root / '0bad' / '20260101_000000_results.json'}: JSON "
        "nested deeper than 64 levels (no lmms-eval file nests so deep): not parsed" in proc.stderr.splitlines()
    )
    assert json.loads((tmp_path / "report" / "report.json").read_text())["runs"][0]["name"] == "random_choice"
    assert "## Notes" in (tmp_path / "report" / "report.md").read_text()

    # compare: the deep file is one line (exit 2); a link where compare.json goes is refused (exit 1).
    proc = run_tool("compare", str(root / "0bad"), str(root / "honest"), env=env)
    assert proc.returncode == 2 and proc.stderr.strip().endswith(
        "JSON nested deeper than 64 levels (no lmms-eval file nests so deep): not parsed"
    ), proc.stderr[-2000:]
    target = tmp_path / "elsewhere.json"
    target.write_text("mine")
    (tmp_path / "cmp").mkdir()
    os.symlink(target, tmp_path / "cmp" / "compare.json")
    proc = run_tool("compare", str(root / "honest"), str(subtlebench_pass_run), "-o", str(tmp_path / "cmp"), env=env)
    assert (
        proc.returncode == 1 and "a link stands where this file goes" in proc.stderr and target.read_text() == "mine"
    ), proc.stderr[-2000:]
    # The honest twin writes compare.json.
    proc = run_tool("compare", str(root / "honest"), str(subtlebench_pass_run), "-o", str(tmp_path / "cmp2"), env=env)
    assert proc.returncode == 0 and json.loads((tmp_path / "cmp2" / "compare.json").read_text()), proc.stderr[-2000:]


def test_the_listener_is_real(listener):
    """The listener the browser test counts on answers a request (so that its 0 means something)."""
    with socket.create_connection(("127.0.0.1", listener.port), timeout=10) as connection:
        connection.sendall(b"GET /probe HTTP/1.0\r\n\r\n")
        answer = b""
        while chunk := connection.recv(4096):  # the whole answer: a close mid-answer makes the server log a broken pipe
            answer += chunk
        assert answer.startswith(b"HTTP/1.")
    assert listener.paths[-1] == "/probe"
    listener.paths.clear()


def test_a_local_copy_is_shown_when_its_root_is_given(subtlebench_pass_run, hf_home, subtlebench_root, tmp_path):
    """The same run reported from a shell without SUBTLEBENCH_ROOT: its pairs are outside every data
    root (withheld, and said so) until ``--data-root`` names the copy."""
    env = base_env(hf_home)
    images = {
        m for samples in subtlebench_pass_run.glob("*_samples_*.jsonl") for r in rows(samples) for m in r["input_media"]
    }
    proc = _report([subtlebench_pass_run], tmp_path / "unset", env)
    assert (
        proc.returncode == 0
        and f"{len(images)} media file(s) that the samples logs name lie outside the data roots" in proc.stderr
    ), proc.stderr[-2000:]
    assert not list((tmp_path / "unset" / "full").iterdir())
    proc = run_tool(
        "report",
        str(subtlebench_pass_run),
        "-o",
        str(tmp_path / "given"),
        "--data-root",
        str(subtlebench_root),
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0 and "outside the data roots" not in proc.stderr, proc.stderr[-2000:]
    assert len(list((tmp_path / "given" / "full").iterdir())) == len(images)
