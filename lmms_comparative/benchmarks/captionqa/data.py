"""CaptionQA in the layout of the HF dataset repo ``Borise/CaptionQA``.

Each split (natural, document, ecommerce, embodiedai) is a set of parquet files; a row is one image
set: ``id`` (e.g. "nat_001"), ``images`` (a list of images) and ``questions`` (a list of
``{question, choices, answer, category}``). The parquet files are looked for under ``<root>`` as
``data/<split>-*.parquet``, ``data/<split>/*.parquet`` or ``<split>/*.parquet``, else where the
dataset card (``README.md``) beside them says.

The official qa.py walks ``load_dataset("Borise/CaptionQA", split="all")``, and that order fixes
every question's option shuffle. Two card shapes are read:

- the card's configs name the domain splits only: "all" is their union in the order the card lists
  them, which is what ``load_dataset`` makes of ``split="all"`` (the only shape qa.py can load with
  ``datasets`` 5: a configured split named "all" is refused as "a special split keyword");
- the card (or the folder) also has an "all" split of its own: its rows, in file order.

The hub repository's card could not be read from here: both shapes are tested against
``load_dataset`` on generated copies (tests/captionqa/test_card_shapes.py), and a run's log says
which one it found.
"""

from __future__ import annotations

import glob
import json
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from loguru import logger

from lmms_comparative.benchmarks.captionqa.scoring import (
    DOMAINS,
    first_category,
    official_permutations,
)
from lmms_comparative.benchmarks.captionqa.split_rows import ENV_VAR, LAYOUT, SplitRows
from lmms_comparative.benchmarks.captionqa.table import HUB_REPO
from lmms_comparative.data import hub
from lmms_comparative.data.roots import local_root
from lmms_comparative.failures import DataError

TAXONOMY_DIR = Path(__file__).resolve().parent / "taxonomy"
_lock = threading.Lock()


def root() -> Path:
    """``CAPTIONQA_ROOT``, else the parquet data files of the hub repo, fetched once into the
    Hugging Face cache."""
    local = local_root(ENV_VAR, LAYOUT)
    return local if local is not None else _hub_root()


# The files each split has by the hub repo's own configs (its dataset card), per fetched folder.
_config_files: dict[tuple[str, str], list[str]] = {}


@lru_cache(maxsize=1)
def _hub_root() -> Path:
    snap = hub.snapshot(HUB_REPO, ENV_VAR)
    by_split = _configured_files(snap)
    folder = hub.fetch(snap, [f for files in by_split.values() for f in files], ENV_VAR, "CaptionQA parquet files")
    for split, files in by_split.items():
        _config_files[(str(folder), split)] = [str(folder / f) for f in files]
    return folder


def _configured_files(snap: hub.Snapshot) -> dict[str, list[str]]:
    """{split: repository paths} as ``datasets`` reads the repo's configs (what the official qa.py's
    ``load_dataset("Borise/CaptionQA", split=...)`` loads): the data files, no other upload. Offline,
    the parquet files that the cache holds."""
    known = hub.recall(snap, "captionqa_data_files")  # what the configs named when first fetched
    if known:
        return known
    if snap.files is None:
        return {
            split: [Path(f).relative_to(snap.folder).as_posix() for f in split_files(snap.folder, split)]
            for split in (*DOMAINS, "all")
        }
    from datasets import load_dataset_builder

    try:
        builder = load_dataset_builder(HUB_REPO, revision=snap.commit)
    except Exception as exc:  # noqa: BLE001
        raise DataError(
            f"{ENV_VAR} is not set and the configs of {HUB_REPO} could not be read ({type(exc).__name__}: {exc}). Set "
            f"{ENV_VAR} to a local copy: {LAYOUT}."
        ) from exc
    marker = f"{HUB_REPO}@{snap.commit}/"
    by_split = {
        str(split): [str(url).split(marker, 1)[1] for url in urls if marker in str(url)]
        for split, urls in (builder.config.data_files or {}).items()
    }
    missing = [s for s in DOMAINS if not by_split.get(s)]
    if missing:
        raise DataError(f"{HUB_REPO}'s configs name no data files for split(s) {missing} (found {sorted(by_split)}).")
    if not by_split.get("all"):  # the union of the configured splits, in the card's order (load_dataset's "all")
        by_split["all"] = [f for split, files in by_split.items() if split != "all" for f in files]
        logger.info(
            f"{HUB_REPO}: the card configures no 'all' split; 'all' is the union of {list(by_split)[:-1]}, in the "
            "card's order (as load_dataset reads split='all')"
        )
    hub.remember(snap, "captionqa_data_files", by_split)
    return by_split


def split_files(base: Path, split: str) -> list[str]:
    """The parquet files of ``split`` under ``base``: as the hub repo's configs named them, else by
    the usual names, else as the dataset card beside them says; "all" without files of its own is
    the union of the card's splits in the card's order."""
    configured = _config_files.get((str(base), split))
    if configured:
        return configured
    for pattern in (f"data/{split}-*.parquet", f"data/{split}/*.parquet", f"{split}/*.parquet", f"{split}-*.parquet"):
        found = sorted(glob.glob(str(base / pattern)))
        if found:
            return found
    card = card_splits(base)
    if split in card:
        return card[split]
    if split == "all" and all(card.get(d) for d in DOMAINS):
        return [f for name, files in card.items() if name != "all" for f in files]
    return []


def all_source(base: Path) -> str:
    """Where the "all" split's rows come from, for the log: its own files, or the union of the
    domain splits in the order of the hub configs or of the card."""
    own = [f for f in split_files(base, "all") if Path(f).name.startswith("all") or "/all/" in f]
    if own:
        return f"its own files ({', '.join(Path(f).name for f in own[:2])}{' ...' if len(own) > 2 else ''})"
    order = [s for s in (card_splits(base) or {d: [] for d in DOMAINS}) if s != "all"]
    if _config_files.get((str(base), "all")):
        order = [s for (b, s) in _config_files if b == str(base) and s != "all"]
    return f"the union of the splits {order}, in the dataset card's order (load_dataset's split='all')"


def card_splits(base: Path) -> dict[str, list[str]]:
    """{split: files}, in the order the dataset card beside the data (``README.md``, its YAML
    ``configs``, the default config) lists them; {} without a card that configures files."""
    path = base / "README.md"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    return _card_splits_cached(str(base), text)


@lru_cache(maxsize=16)
def _card_splits_cached(base: str, text: str) -> dict[str, list[str]]:
    import yaml

    if not text.startswith("---"):
        return {}
    try:
        meta = yaml.safe_load(text.split("---", 2)[1]) or {}
    except yaml.YAMLError:
        return {}
    configs = meta.get("configs") if isinstance(meta, dict) else None
    if not isinstance(configs, list) or not configs:
        return {}
    config = next(
        (c for c in configs if isinstance(c, dict) and c.get("config_name", "default") == "default"), configs[0]
    )
    entries = config.get("data_files") if isinstance(config, dict) else None
    out: dict[str, list[str]] = {}
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, dict) or "split" not in entry:
            continue
        patterns = entry.get("path")
        patterns = [patterns] if isinstance(patterns, str) else list(patterns or [])
        files = sorted({f for p in patterns for f in glob.glob(str(Path(base) / p)) if f.endswith(".parquet")})
        out[str(entry["split"])] = files
    return out


def _require_files(base: Path, split: str) -> list[str]:
    files = split_files(base, split)
    if not files:
        raise DataError(f"{ENV_VAR}: no parquet files for split {split!r} under {base}. Expected layout: {LAYOUT}.")
    return files


def _parse_questions(raw: Any, where: str) -> list[dict]:
    questions = json.loads(raw) if isinstance(raw, str) else raw
    if not isinstance(questions, list):
        raise DataError(f"{where}: 'questions' must be a list, got {type(questions).__name__}.")
    for q in questions:
        if not isinstance(q, dict) or "question" not in q or "choices" not in q:
            raise DataError(f"{where}: every question needs 'question' and 'choices' (got {q!r:.120}).")
    return questions


def question_table(base: Path, split: str) -> list[tuple[str, list[dict]]]:
    """(id, questions) per row of a split, in file order, read without touching the image column."""
    import pyarrow.parquet as pq

    rows: list[tuple[str, list[dict]]] = []
    for path in _require_files(base, split):
        try:
            table = pq.ParquetFile(path, memory_map=True).read(columns=["id", "questions"])
        except Exception as exc:  # noqa: BLE001 - unreadable or missing columns
            raise DataError(f"{ENV_VAR}: cannot read columns id, questions from {path} ({exc}).") from exc
        for i, (entry_id, questions) in enumerate(
            zip(table.column("id").to_pylist(), table.column("questions").to_pylist())
        ):
            if entry_id is None:
                raise DataError(f"{path}: row {i} has no id.")
            rows.append((str(entry_id), _parse_questions(questions, f"{path}: row {i} ({entry_id})")))
    return rows


def _stamp(files) -> tuple:
    """The files and their modification times: a cache key that a rewritten copy invalidates."""
    return tuple((f, Path(f).stat().st_mtime_ns) for f in files)


def files_stamp(base: Path, split: str) -> tuple:
    """The split's files and their modification times (empty if it has none)."""
    try:
        return _stamp(split_files(base, split))
    except OSError:
        return ()


@lru_cache(maxsize=32)
def _permutations_cached(
    base: str, stamp: tuple, uncaptioned: frozenset = frozenset()
) -> dict[tuple[str, int], list[int]]:
    base_path = Path(base)
    if split_files(base_path, "all"):
        logger.info(f"CaptionQA option order: qa.py's walk of split 'all', read as {all_source(base_path)}")
        entries = question_table(base_path, "all")
    else:
        logger.warning(
            f"{ENV_VAR}: no 'all' split under {base}; walking the domain splits in the order {DOMAINS} instead. Option "
            "order matches the official qa.py only if that is the 'all' order."
        )
        entries = [row for split in DOMAINS for row in question_table(base_path, split)]
    return official_permutations(entries, uncaptioned=uncaptioned)


def permutations(base: Path, uncaptioned: frozenset = frozenset()) -> dict[tuple[str, int], list[int]]:
    """The official option order of every scorable question, from the "all" split, with the image
    sets in ``uncaptioned`` taking no shuffle draws (qa.py skips an image set without a caption)."""
    files = split_files(base, "all") or [f for s in DOMAINS for f in split_files(base, s)]
    with _lock:
        return _permutations_cached(str(base), _stamp(files), frozenset(uncaptioned))


def walk_domains(base: Path) -> list[str]:
    """The domains in the order qa.py's walk of the "all" split first visits them (DOMAINS order
    without an "all" split)."""
    if not split_files(base, "all"):
        return list(DOMAINS)
    where = {entry_id: d for d in DOMAINS if split_files(base, d) for entry_id in questions_by_id(base, d)}
    order: list[str] = []
    for entry_id in questions_by_id(base, "all"):
        if where.get(entry_id) and where[entry_id] not in order:
            order.append(where[entry_id])
    return order + [d for d in DOMAINS if d not in order]


def load_split(base: Path, split: str) -> SplitRows:
    """The rows of a domain split (ids, image counts; images read when asked)."""
    return SplitRows(_require_files(base, split), split)


@lru_cache(maxsize=8)
def _questions_cached(base: str, split: str, stamp: tuple) -> dict[str, list[dict]]:
    return dict(question_table(Path(base), split))


def questions_by_id(base: Path, split: str) -> dict[str, list[dict]]:
    """{id: questions} of a split; parsed once per file version (every caption prompt's task
    of a domain, and a rescoring, reads the same questions). Treat the result as read-only."""
    with _lock:
        return _questions_cached(str(base), split, _stamp(_require_files(base, split)))


def taxonomy(domain: str) -> dict:
    """The official taxonomy of a domain (example_taxonomy/<domain>_taxonomy_v0.json, shipped verbatim)."""
    path = TAXONOMY_DIR / f"{domain}_taxonomy_v0.json"
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


__all__ = [
    "DOMAINS",
    "SplitRows",
    "first_category",
    "load_split",
    "permutations",
    "question_table",
    "questions_by_id",
    "root",
    "taxonomy",
    "walk_domains",
]
