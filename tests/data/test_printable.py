"""``untrusted.printable`` on what a folder's strings can carry to a terminal, ``video_container`` on
what a file named ``.mp4`` can hold, and ``write_image``/``write_figure`` where a link or a pipe
stands; each beside the honest case that must pass through unchanged."""

from __future__ import annotations

import io
import os
import threading

import pytest
from PIL import Image

from lmms_comparative.data import untrusted


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("\x1b]0;pwned\x07", "\\x1b]0;pwned\\x07"),  # OSC 0: the window title
        ("\x1b]52;c;cHduZWQ=\x07", "\\x1b]52;c;cHduZWQ=\\x07"),  # OSC 52: the clipboard
        ("\x1b[2J", "\\x1b[2J"),  # CSI: clear the screen
        ("\x9b2J", "\\x9b2J"),  # the one-character CSI (C1)
        ("a\x7fb\x00c\rd", "a\\x7fb\\x00c\\x0dd"),  # DEL, NUL, a carriage return that would overwrite the line
        ("\u202eevil\u202c", "\\u202eevil\\u202c"),  # right-to-left override, pop
        ("\u2066x\u2069\u200e\u200f\u061c", "\\u2066x\\u2069\\u200e\\u200f\\u061c"),  # isolates, marks
        ("one\u2028two\u2029", "one\\u2028two\\u2029"),  # line and paragraph separators
        ("lone \ud800", "lone \\ud800"),  # a JSON "\ud800": no terminal encoding can write it
    ],
)
def test_every_control_is_shown_as_its_escape(raw, shown):
    assert untrusted.printable(raw) == shown
    assert untrusted.printable(raw, lines=False) == shown
    shown.encode("ascii")  # nothing left that a terminal acts on


def test_line_feeds_and_tabs_are_kept_in_a_stream_and_escaped_in_one_value():
    assert untrusted.printable("a\tb\nc") == "a\tb\nc"
    assert untrusted.printable("a\tb\nc", lines=False) == "a\\x09b\\x0ac"
    # The honest twin: text of any script, accents and symbols as they are.
    plain = "modèle Qwen2.5-VL 日本語 — ±4.1 % (α=0.05) ✓"
    assert untrusted.printable(plain) == plain and untrusted.printable(plain, lines=False) == plain


def test_a_video_is_known_by_its_leading_bytes_only():
    assert untrusted.video_container(b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00") == "mp4"
    assert untrusted.video_container(b"\x1a\x45\xdf\xa3\x01\x00\x00\x00") == "matroska"
    assert untrusted.video_container(b"RIFF\x00\x00\x00\x00AVI LIST") == "avi"
    for hostile in (
        b"#EXTM3U\n#EXT-X-",
        b"ffconcat version 1.0\n",
        b"%!PS-Adobe-3.0",
        b"",
        b"RIFF\x00\x00\x00\x00WEBPVP8 ",
    ):
        assert untrusted.video_container(hostile) is None, hostile


class _Figure:
    """What ``write_figure`` asks of a matplotlib figure: ``savefig`` into a buffer."""

    def savefig(self, target, **options):
        assert isinstance(target, io.BytesIO) and options["format"] == "png"
        Image.new("RGB", (4, 3)).save(target, "PNG")


def _in_time(call) -> BaseException | None:
    """What ``call`` raised, run in a thread that must finish (a write into a pipe would block)."""
    outcome: list[BaseException | None] = []

    def run():
        try:
            call()
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - handed back to the test
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(30)
    assert not worker.is_alive(), "the write blocked"
    return outcome[0]


def test_a_picture_is_not_written_through_a_link_or_into_a_pipe_and_a_new_one_is_a_regular_png(tmp_path):
    target = tmp_path / "bashrc"
    target.write_text("kept")
    os.symlink(target, tmp_path / "linked.png")
    os.mkfifo(tmp_path / "pipe.png")
    image = Image.new("RGB", (7, 5), (9, 8, 7))
    for name in ("linked.png", "pipe.png"):
        for write in (
            lambda: untrusted.write_image(tmp_path / name, image),
            lambda: untrusted.write_figure(tmp_path / name, _Figure()),
        ):
            assert isinstance(_in_time(write), untrusted.Unsafe), name
    assert target.read_text() == "kept" and os.path.islink(tmp_path / "linked.png")
    # The honest twin: a new file, a regular PNG of the image; a JPEG where the name says so.
    untrusted.write_image(tmp_path / "new.png", image)
    untrusted.write_figure(tmp_path / "chart.png", _Figure())
    untrusted.write_image(tmp_path / "photo.jpg", image)
    assert Image.open(tmp_path / "new.png").format == "PNG" and Image.open(tmp_path / "new.png").size == (7, 5)
    assert Image.open(tmp_path / "chart.png").size == (4, 3) and Image.open(tmp_path / "photo.jpg").format == "JPEG"
