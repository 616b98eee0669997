"""What VLM²-Bench's prompts ask for (paper Tables 9-19), as the ``random_choice`` baseline reads
them: the record's ``answer_spaces``. A leaf: the record imports it."""

from __future__ import annotations

import re

from lmms_comparative.record import AnswerSpace

# Grp (paper Tables 14 and 19): "Choices: A) 1 and 3; B) None; C) 2 and 3; D) 1 and 2."
_CHOICES = re.compile(r"Choices:\s*(.+?)\s*$", re.S)
_CHOICE = re.compile(r"(\(?[A-Z]\))\s*([^;()]*?)\s*(?=;|\(?[A-Z]\)|\.?\s*$)")
_INLINE_CHOICE = re.compile(r"\([A-Z]\)")
# OC/PC ask for "'T' or 'F'" (paper Tables 12, 17); the GC pairs ask "Is the answer '...' correct
# for the given question: '...'" and are scored against "T"/"F" (Tables 9-10).
_TRUE_FALSE = re.compile(
    r"'T' or 'F'|\bT or F\b|\bTrue or False\b|\bIs the answer '.*' correct for the given question\b", re.S
)
# Cnt: "... provide *ONE* correct numerical answer ..."
_COUNT = re.compile(r"numerical answer|answer with a number", re.I)


def grouping_choices(prompt: str, doc: dict | None = None, n_images: int | None = None) -> list[str]:
    """``["A) 1 and 3", "B) None", ...]`` from a grouping question; [] if none."""
    match = _CHOICES.search(prompt)
    if match:
        segment = match.group(1)
    elif len(_INLINE_CHOICE.findall(prompt)) > 1:  # "(A) 1 and 2 (B) 1 and 3 ..." after the question
        first = _INLINE_CHOICE.search(prompt)
        segment = prompt[first.start() :] if first else ""
    else:
        return []
    # The label as printed: the official answer "A) 1 and 3" is compared up to its ")".
    return [f"{label} {text}".strip() for label, text in _CHOICE.findall(segment)]


def true_false(prompt: str, doc: dict | None = None, n_images: int | None = None) -> list[str]:
    """T or F, where the prompt asks for a truth value (a T/F pair is answered consistently by
    ``random_choice``: the kind ``tf``)."""
    return ["T", "F"] if _TRUE_FALSE.search(prompt) else []


def count(prompt: str, doc: dict | None = None, n_images: int | None = None) -> list[str]:
    """A count in 1..N, N the number of images, where the prompt asks for a number."""
    return [str(k) for k in range(1, n_images + 1)] if _COUNT.search(prompt) and n_images else []


ANSWER_SPACES = (
    AnswerSpace("choices", grouping_choices),
    AnswerSpace("tf", true_false, fixed=True),
    AnswerSpace("count", count, fixed=True),
)
