"""Hook helpers shared by every benchmark."""

from __future__ import annotations

from typing import Any, Iterable

from PIL import Image

from lmms_comparative.data.errors import DataError


def load_images(doc: dict[str, Any], fields: Iterable[str]) -> list[Image.Image]:
    """Open the image files that ``doc`` names, as RGB, in the order of ``fields``.

    A missing or undecodable file raises DataError naming the doc and the path.
    """
    images = []
    for field in fields:
        path = doc[field]
        try:
            with Image.open(path) as handle:
                images.append(handle.convert("RGB"))
        except (OSError, ValueError) as exc:
            raise DataError(f"doc {doc.get('item_id', '?')}: cannot read {field} at {path} ({exc}).") from exc
    return images


def response_text(results: list) -> str:
    """The model's answer text from lmms-eval's ``results`` (a string, or an object with ``.text``)."""
    response = results[0] if results else ""
    return response if isinstance(response, str) else str(getattr(response, "text", response))
