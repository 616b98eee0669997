"""ViDi in its release layout: one folder per image pair (or one file stem per pair), holding the
two images and a text file whose first line is the source URL and whose other lines are the
human-written difference sentences.

    <root>/<pair>/<any>.jpg, <any>.jpg, <any>.txt       folder per pair (images in name order), or
    <root>/<pair>.txt with <root>/<pair>*.{jpg,png,...}  one stem per pair

Images are used as released (upscaled to at least 1024x1024 by the authors); nothing is resized.
"""

from __future__ import annotations

from pathlib import Path

from lmms_comparative.benchmarks.vidi.table import ROOT_VARIABLE
from lmms_comparative.data import items
from lmms_comparative.data.roots import dataset_root
from lmms_comparative.failures import DataError

ENV_VAR = ROOT_VARIABLE
LAYOUT = (
    "one folder per pair with its two images and a .txt file (first line: source URL; then one difference per "
    "line), or <pair>.txt beside <pair>*.jpg"
)
# The paper's footnote 1 ("The dataset is available at https://anonymous.4open.science/r/ViDi-FC45/")
# is the only link it gives; no public release was found.
NO_RELEASE = (
    "ViDi has no public data release (its paper links only the anonymous review repository "
    "anonymous.4open.science/r/ViDi-FC45), so the data must be obtained from the paper's authors"
)
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".bmp"}
NO_TEXT = "pair without its text file"


def root() -> Path:
    """``VIDI_ROOT`` (required: ViDi has no hub release)."""
    return dataset_root(ENV_VAR, None, f"{LAYOUT}. {NO_RELEASE}")


def read_differences(path: Path) -> tuple[str, list[str]]:
    """(source URL, difference sentences) of a pair's text file, blank lines dropped; ``DataError`` when
    either is missing."""
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    if not lines or not lines[0]:
        raise DataError(f"{path}: the first line must be the source URL.")
    differences = [line for line in lines[1:] if line]
    if not differences:
        raise DataError(f"{path}: no difference sentences after the source URL line.")
    return lines[0], differences


def _pair(pair_id: str, text: Path, images: list[Path]) -> dict:
    if len(images) != 2:
        raise DataError(
            f"{ENV_VAR}: pair {pair_id!r} has {len(images)} image file(s) ({[p.name for p in images]}); expected "
            f"exactly 2 beside {text}."
        )
    url, differences = read_differences(text)
    return {
        "pair_id": pair_id,
        "url": url,
        "image_1": str(images[0]),
        "image_2": str(images[1]),
        "differences": differences,
    }


def _belongs(path: Path, stem: str) -> bool:
    """An image of the flat layout's pair ``stem``: ``<stem>_1.jpg``, ``<stem>-b.png``, ..."""
    return (
        path.is_file()
        and path.suffix.lower() in IMAGE_SUFFIXES
        and path.stem.startswith(stem)
        and path.stem[len(stem) : len(stem) + 1] in ("_", "-", ".")
    )


def load_pairs(base: Path | None = None) -> list[dict]:
    """Every pair of the release, sorted by pair id. A pair folder without its text file, or with
    a malformed one, is skipped and reported (``data.items``); the rest are scored."""
    base = root() if base is None else base
    pairs, found = [], 0

    def add(pair_id: str, text: Path, images: list[Path]) -> None:
        try:
            pairs.append(_pair(pair_id, text, images))
        except DataError as exc:
            items.skip(items.RECORD, str(exc))

    for folder in sorted(p for p in base.iterdir() if p.is_dir()):
        texts = sorted(folder.glob("*.txt"))
        images = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not texts:
            if images:  # a pair whose differences are missing: nothing to score it against
                found += 1
                items.skip(NO_TEXT, f"{folder.name} ({folder})")
            continue
        found += 1
        if len(texts) > 1:
            items.skip(items.RECORD, f"{folder} has {len(texts)} .txt files; expected one")
            continue
        add(folder.name, texts[0], images)
    for text in sorted(base.glob("*.txt")):
        found += 1
        add(text.stem, text, sorted(p for p in base.iterdir() if _belongs(p, text.stem)))
    if not found:
        raise DataError(f"{ENV_VAR}: no image pairs under {base}. Expected: {LAYOUT}. {NO_RELEASE}.")
    return pairs
