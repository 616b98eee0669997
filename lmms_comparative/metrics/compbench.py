"""MLLM-CompBench answer parsing and scoring. Pure functions; no lmms-eval import.

The official repository (github RaptorMai/MLLM-CompBench) ships data preparation only, no
evaluation script; the paper (§5.1, appendix B.2) fixes the protocol: exact-match accuracy of a
Left/Right (Same) answer or of one of the offered options. Rules:

- binary and quantity answers: "Right"/"Second" is looked for before "Left"/"First", then "Same"
  (whole words, case-insensitive, so "brighter" is not "right");
- option answers (MagicBrush, Spot-the-diff, Q-Bench2): the answer and every option, plus
  "None", are normalised (lower case, punctuation removed, white space collapsed) and compared
  for equality; an answer equal to no option is unparseable;
- unparseable answers score 0 and are counted apart.
"""

from __future__ import annotations

import re
import string
from typing import Sequence

_RIGHT = re.compile(r"\b(right|second)\b", re.I)
_LEFT = re.compile(r"\b(left|first)\b", re.I)
_SAME = re.compile(r"\bsame\b", re.I)
_PUNCT = str.maketrans("", "", string.punctuation)
NONE_OPTION = "None"


def parse_side(response: str | None, allow_same: bool = False) -> str | None:
    """"Right", "Left", "Same" (quantity only) or None."""
    if not response:
        return None
    if _RIGHT.search(response):
        return "Right"
    if _LEFT.search(response):
        return "Left"
    if allow_same and _SAME.search(response):
        return "Same"
    return None


def normalize(text: str) -> str:
    return " ".join(str(text).lower().translate(_PUNCT).split())


def parse_option(response: str | None, options: Sequence[str], with_none: bool = True) -> str | None:
    """The offered option (or "None") that the response names, by normalised equality."""
    if not response:
        return None
    wanted = normalize(response)
    for option in [*options, *([NONE_OPTION] if with_none else [])]:
        if normalize(option) == wanted:
            return option
    return None


def is_correct(parsed: str | None, answer: str) -> bool:
    return parsed is not None and normalize(parsed) == normalize(answer)
