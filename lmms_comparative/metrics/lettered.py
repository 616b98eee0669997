"""The answer space every lettered multiple-choice prompt offers (``A. ...`` / ``A) ...`` lines):
a record's ``answer_spaces`` entry for the ``random_choice`` baseline (SubtleBench, CaptionQA on the
image, the guide's toy)."""

from __future__ import annotations

import re

from lmms_comparative.record import AnswerSpace

_OPTION_LINE = re.compile(r"^\s*([A-Z])[.)]\s", re.MULTILINE)


def offered_letters(prompt: str, doc: dict | None = None, n_images: int | None = None) -> list[str]:
    """The option letters a prompt lists as lines, in order, without repeats."""
    return list(dict.fromkeys(_OPTION_LINE.findall(prompt)))


LETTERS = AnswerSpace("letters", offered_letters)
