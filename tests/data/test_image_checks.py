"""The image checks of data/items.py: every unusable kind named by its reason, the header and end
reading agreeing with PIL and with the whole bytes, files that change or are not files, and the
cache of checked files."""

from __future__ import annotations

import functools
import io
import os
import random

import pytest
from helpers.image_bytes import BAD_IMAGES
from helpers.image_bytes import bomb as _bomb
from helpers.image_bytes import jpeg as _jpeg
from helpers.image_bytes import png as _png
from PIL import Image

from lmms_comparative.data import items


@pytest.mark.parametrize("reason", sorted(BAD_IMAGES))
def test_each_unusable_image_is_named_by_its_reason(tmp_path, reason):
    path = tmp_path / "x.png"
    path.write_bytes(BAD_IMAGES[reason]())
    assert items.image_file_problem(path) == reason
    assert items.image_bytes_problem(path.read_bytes()) == reason


def test_usable_images_and_a_missing_one(tmp_path):
    (tmp_path / "ok.png").write_bytes(_png())
    (tmp_path / "ok.jpg").write_bytes(_jpeg())
    assert items.image_file_problem(tmp_path / "ok.png") is None
    assert items.image_file_problem(tmp_path / "ok.jpg") is None
    assert items.image_file_problem(tmp_path / "gone.png") == items.MISSING
    # A JPEG cut short still decodes under lmms-eval's LOAD_TRUNCATED_IMAGES (black fill): caught.
    (tmp_path / "cut.jpg").write_bytes(_jpeg()[:-40])
    assert items.image_file_problem(tmp_path / "cut.jpg") == items.TRUNCATED
    with pytest.raises(ValueError, match="where: truncated image"):
        items.open_image_bytes(_jpeg()[:-40], "where")


@functools.lru_cache(maxsize=1)
def _variants() -> dict[str, bytes]:
    """Image bytes of every shape the header reading must agree with PIL on."""
    png, jpeg = _png(), _jpeg()
    out = {
        "png": png,
        "jpeg": jpeg,
        "png padded": png + b"\x00\x00\n",
        "jpeg cut": jpeg[:-40],
        "png cut": png[: len(png) // 2],
        "png header only": png[:40],
    }
    buffer = io.BytesIO()
    Image.new("RGB", (40, 30), (200, 10, 10)).save(buffer, "JPEG", progressive=True, quality=80)
    out["jpeg progressive"] = buffer.getvalue()
    buffer = io.BytesIO()
    Image.new("L", (33, 21), 128).save(buffer, "PNG", dpi=(72, 72))  # an ancillary chunk before the data
    out["png with pHYs"] = buffer.getvalue()
    bad_crc = bytearray(png)
    bad_crc[29] ^= 0xFF  # IHDR's CRC
    out["png bad IHDR crc"] = bytes(bad_crc)
    out["jpeg no frame"] = (
        b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xda\x00\x08\x01\x01\x00\x00?\x00\x00\xff\xd9"
    )
    out["jpeg header cut"] = jpeg[:30]
    out["bomb"] = _bomb()
    noise = Image.frombytes("RGB", (300, 300), random.Random(0).randbytes(300 * 300 * 3))
    for fmt in ("PNG", "JPEG"):
        buffer = io.BytesIO()
        noise.save(buffer, fmt, quality=95)
        out[f"{fmt.lower()} larger than the head"] = buffer.getvalue()  # > 64 KiB: head, then the last bytes
        out[f"{fmt.lower()} larger than the head, cut"] = buffer.getvalue()[:-100]
    for fmt in ("GIF", "WEBP", "BMP"):
        buffer = io.BytesIO()
        Image.new("RGB", (20, 20), (1, 2, 3)).save(buffer, fmt)
        out[fmt.lower()] = buffer.getvalue()
    return out


@pytest.mark.parametrize("name", sorted(_variants()))
def test_the_header_reading_agrees_with_pil(name, monkeypatch):
    """The PNG and JPEG header reading (no PIL) gives what opening the bytes with PIL gives."""
    data = _variants()[name]
    fast = items.image_bytes_problem(data)
    monkeypatch.setattr(items, "_clean_header", lambda _data: None)
    assert fast == items.image_bytes_problem(data), name


@pytest.mark.parametrize("name", sorted(_variants()))
@pytest.mark.parametrize("first, head", [(48, 48), (20, 48), (48, 1 << 16), (1 << 12, 1 << 16)])
def test_files_larger_than_the_head_read_agree_with_their_bytes(name, first, head, tmp_path, monkeypatch):
    """A file larger than the head read (its header, then its last bytes) gets what its whole
    bytes get, whether its header ends within the first read, the longer head, or neither."""
    data = _variants()[name]
    monkeypatch.setattr(items, "FIRST_BYTES", first)
    monkeypatch.setattr(items, "HEAD_BYTES", head)
    path = tmp_path / "image"
    path.write_bytes(data)
    assert items._file_problem(path, len(data)) == items.image_bytes_problem(data), name


@pytest.mark.parametrize("name", sorted(_variants()))
@pytest.mark.parametrize("head", [48, 1 << 16])
def test_embedded_bytes_and_open_files_agree_with_the_whole_bytes(name, head, tmp_path, monkeypatch):
    """Embedded image bytes seen through a buffer (CaptionQA's parquet), and a file checked
    through ``image_file_problem`` (opened first, then its size), get what the whole bytes get."""
    data = _variants()[name]
    monkeypatch.setattr(items, "HEAD_BYTES", head)
    monkeypatch.setattr(items, "_checked", {})
    assert items.buffer_problem(memoryview(data)) == items.image_bytes_problem(data), name
    path = tmp_path / "image"
    path.write_bytes(data)
    assert items.image_file_problem(path) == items.image_bytes_problem(data), name


def test_image_file_problem_of_what_is_not_a_file(tmp_path):
    assert items.image_file_problem(tmp_path / "gone.png") == items.MISSING
    assert items.image_file_problem(tmp_path / "gone" / "deeper.png") == items.MISSING
    (tmp_path / "not_a_folder").write_bytes(b"x")
    assert items.image_file_problem(tmp_path / "not_a_folder" / "a.png") == items.MISSING
    (tmp_path / "folder.png").mkdir()
    assert items.image_file_problem(tmp_path / "folder.png") == items.UNREADABLE
    (tmp_path / "empty.png").write_bytes(b"")
    assert items.image_file_problem(tmp_path / "empty.png") == items.EMPTY


def test_the_file_lister_answers_as_isfile(tmp_path, monkeypatch):
    """``file_lister`` (one listing per folder) says what ``os.path.isfile`` says, for every kind
    of path a loader asks about."""

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.png").write_bytes(b"x")
    (tmp_path / "sub" / "dir.png").mkdir()
    (tmp_path / "sub" / "link.png").symlink_to(tmp_path / "sub" / "a.png")
    (tmp_path / "sub" / "dirlink").symlink_to(tmp_path / "sub" / "dir.png")
    (tmp_path / "sub" / "broken.png").symlink_to(tmp_path / "nowhere.png")
    (tmp_path / "top.png").write_bytes(b"x")
    (tmp_path / "file_not_folder").write_bytes(b"x")
    monkeypatch.chdir(tmp_path)
    asked = [
        *(str(tmp_path / "sub" / n) for n in ("a.png", "dir.png", "link.png", "dirlink", "broken.png", "missing.png")),
        str(tmp_path / "nofolder" / "a.png"),
        str(tmp_path / "file_not_folder" / "a.png"),
        "top.png",
        "sub/a.png",
        "./sub/a.png",
        "sub//a.png",
        "missing.png",
        "",
    ]
    present = items.file_lister()
    assert [present(p) for p in asked] == [os.path.isfile(p) for p in asked]
    assert [present(p) for p in asked].count(True) == 6


def test_a_checked_file_is_checked_again_when_it_changes(tmp_path, monkeypatch):

    monkeypatch.setattr(items, "_checked", {})
    path = tmp_path / "a.png"
    whole = _png()
    path.write_bytes(whole)
    assert items.image_file_problem(path) is None
    assert items.image_file_problem(path) is None  # the verdict of this version, kept
    path.write_bytes(whole[:-20])
    os.utime(path, ns=(1, 1))
    assert items.image_file_problem(path) == items.TRUNCATED
    path.unlink()
    assert items.image_file_problem(path) == items.MISSING
