"""Multiple-choice helpers: deterministic option order, option rendering, letters.

Pure functions; no lmms-eval import.
"""

from __future__ import annotations

import hashlib
import random
import string
from typing import Sequence

LETTERS = string.ascii_uppercase


def stable_seed(*parts: object) -> int:
    """A 64-bit seed from the item's content, identical in every process, rank and run."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def shuffle_options(answer: str, distractors: Sequence[str], key: str) -> tuple[list[str], int]:
    """Options ``[answer] + distractors`` in a per-item order; returns (options, index of answer).

    The official adapter (dataset_adapters/unified_adapter.py) builds ``[answer] + distractors`` and
    calls the unseeded global ``random.shuffle``, so its order changes from run to run. We keep the
    same candidate list but draw the permutation from a generator seeded by the item key, so the
    order never depends on the process, the rank or the order in which items are visited.
    """
    candidates = [answer, *distractors]
    # Shuffle positions, not values: the answer is candidate 0 even if a distractor repeats its text.
    order = list(range(len(candidates)))
    random.Random(stable_seed("options", key)).shuffle(order)
    return [candidates[i] for i in order], order.index(0)


def format_options(options: Sequence[str]) -> str:
    """``A. first`` lines, as the official evaluator renders them (multiple_choice_evaluator.py)."""
    return "\n".join(f"{LETTERS[i]}. {opt}" for i, opt in enumerate(options))


def letter_index(letter: str) -> int:
    """0 for "A" ... ; -1 for "" (as the official ``_parse_mc_result``)."""
    return LETTERS.index(letter) if letter and len(letter) == 1 and letter in LETTERS else -1
