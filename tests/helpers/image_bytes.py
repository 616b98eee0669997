"""Image bytes of the shapes the item checks must tell apart: a small PNG and JPEG, a decompression
bomb, and each unusable kind by the reason the results name it (data/items.py)."""

from __future__ import annotations

import io
import math

from PIL import Image

from lmms_comparative.data import items


def png(size=(32, 24), color=(200, 30, 30)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, color).save(buffer, "PNG")
    return buffer.getvalue()


def jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (10, 120, 200)).save(buffer, "JPEG")
    return buffer.getvalue()


def bomb() -> bytes:
    """A small PNG that claims more than twice PIL's MAX_IMAGE_PIXELS (a decompression bomb)."""
    buffer = io.BytesIO()
    side = int(math.sqrt(2 * Image.MAX_IMAGE_PIXELS)) + 100
    Image.new("1", (side, side)).save(buffer, "PNG")
    return buffer.getvalue()


BAD_IMAGES = {
    items.EMPTY: lambda: b"",
    items.UNREADABLE: lambda: b"this is not an image at all" * 10,
    items.TRUNCATED: lambda: png()[: len(png()) // 2],
    items.BOMB: bomb,
}
