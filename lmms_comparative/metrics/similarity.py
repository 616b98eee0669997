"""Sentence-BERT cosine similarity and Yes/No verdicts. No lmms-eval import.

The embedding model is loaded once per process (per name) and encodes in batches.
"""

from __future__ import annotations

import re
import threading
from typing import Sequence

_models: dict[str, object] = {}
_lock = threading.Lock()


def embedder(name: str):
    with _lock:
        if name not in _models:
            from sentence_transformers import SentenceTransformer

            _models[name] = SentenceTransformer(name, device="cpu")
        return _models[name]


def cosine_similarities(references: Sequence[str], candidates: Sequence[str], model: str, batch_size: int = 64) -> list[float]:
    """Cosine similarity of each reference with its candidate (paper appendix B.3, "CSS")."""
    if len(references) != len(candidates):
        raise ValueError("references and candidates must pair up")
    if not references:
        return []
    encoder = embedder(model)
    ref = encoder.encode(list(references), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)
    cand = encoder.encode(list(candidates), batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)
    return [float(x) for x in (ref * cand).sum(axis=1)]


_YES_NO = re.compile(r"\b(yes|no)\b", re.I)


def parse_yes_no(text: str | None) -> bool | None:
    """True for a verdict that says Yes, False for No, None when it says neither (or both first
    words are ambiguous): the first of "yes"/"no" as a whole word decides."""
    match = _YES_NO.search(text or "")
    return None if match is None else match.group(1).lower() == "yes"
