"""VLM-SubtleBench scoring: the answer-letter parser of the multiple-choice tasks, and for the
difference captions Sentence-BERT cosine similarity and Yes/No verdicts. No lmms-eval import.

The embedding model is loaded once per process (per name) and encodes in batches.
"""

from __future__ import annotations

import re
import string
import threading
from typing import Sequence

# Official VLM-SubtleBench parser only knows five letters
# (src/vlm_subtlebench/dataset_adapters/response_parser.py: valid_choices = {"A", ..., "E"}).
SUBTLEBENCH_VALID_LETTERS = frozenset("ABCDE")
_ANSWER_HEADER = re.compile(r"### Answer\s*([A-E])")
_STANDALONE_LETTER = re.compile(r"\b[A-E]\b")


def parse_subtlebench_letter(response: str | None) -> str:
    """The answer letter, by the rules of the official ``extract_multiple_choice_answer``.

    Order (response_parser.py): ``### Answer X``; else the last line that is a single letter A-E
    once punctuation is stripped from its ends; else the last such word; else the first standalone
    letter A-E. Returns "" when nothing matches (the official code returns None for empty input and
    "" otherwise; both score as wrong).
    """
    if not response:
        return ""
    text = response.strip()
    match = _ANSWER_HEADER.search(text)
    if match:
        return match.group(1)
    lines = [line.strip(string.punctuation) for line in text.split("\n")]
    hits = [line for line in lines if line in SUBTLEBENCH_VALID_LETTERS]
    if hits:
        return hits[-1]
    words = [word.strip(string.punctuation) for word in text.split()]
    hits = [word for word in words if word in SUBTLEBENCH_VALID_LETTERS]
    if hits:
        return hits[-1]
    match = _STANDALONE_LETTER.search(text)
    return match.group() if match else ""


_models: dict[str, object] = {}
_lock = threading.Lock()


def embedder(name: str):
    """The SBERT model ``name`` (a hub id or a folder; ``SUBTLEBENCH_SBERT_MODEL``), on the CPU, loaded
    once per process."""
    with _lock:
        if name not in _models:
            from sentence_transformers import SentenceTransformer

            _models[name] = SentenceTransformer(name, device="cpu")
        return _models[name]


def cosine_similarities(
    references: Sequence[str], candidates: Sequence[str], model: str, batch_size: int = 64
) -> list[float]:
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
