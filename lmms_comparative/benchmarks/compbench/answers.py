"""What MLLM-CompBench's prompts ask for (paper Table 7), as the ``random_choice`` baseline reads
them: the record's ``answer_spaces``. A leaf: the record imports it."""

from __future__ import annotations

import re
from typing import Sequence

from lmms_comparative.record import AnswerSpace

# CompBench Table 7: "... Choose from the following options. ... Options: None, a, b. Please only ..."
_OPTIONS = re.compile(r"Options:\s*(.+?)(?:\.\s+Please\b|\s*$)", re.S)
# CompBench Table 7: "If you choose the first image, return Left, ... return Right" (and Same).
_RETURN = re.compile(r"\breturn (Left|Right|Same|First|Second)\b")
# A question (sentence start, question mark) about which of the two pictures (SoccerNet's open
# question on a pair).
_WHICH_OF_TWO = re.compile(r"(?:^|[.?!]\s+)Which (?:frame|image|picture|photo)\b[^.?!]*\?")


def listed_options(prompt: str, doc: dict | None = None, n_images: int | None = None) -> list[str]:
    """The options after ``Options:`` (MagicBrush, Spot-the-diff, Q-Bench2): the doc's own list when
    it has one (so commas inside an option do not split it), plus "None" where the prompt offers it;
    else the prompt's comma-separated list."""
    match = _OPTIONS.search(prompt)
    if not match:
        return []
    listed = [o.strip() for o in match.group(1).split(",") if o.strip()]
    own: Sequence[str] | None = (doc or {}).get("options") if isinstance((doc or {}).get("options"), list) else None
    if own:
        return (["None"] if listed and listed[0] == "None" else []) + [str(o) for o in own]
    return listed


def return_words(prompt: str, doc: dict | None = None, n_images: int | None = None) -> list[str]:
    """The words the prompt asks to return (``return Left ... Right ... Same``), in order."""
    return list(dict.fromkeys(_RETURN.findall(prompt)))


def which_of_two(prompt: str, doc: dict | None = None, n_images: int | None = None) -> list[str]:
    """First or Second, for a "Which frame/image ...?" question on a pair."""
    return ["First", "Second"] if _WHICH_OF_TWO.search(prompt) else []


ANSWER_SPACES = (
    AnswerSpace("options", listed_options),
    AnswerSpace("words", return_words),
    AnswerSpace("which", which_of_two, fixed=True),
)
