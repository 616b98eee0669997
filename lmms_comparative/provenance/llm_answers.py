"""The LLM answers of a run: every answer a judge or reader gave (``note_answers``), which the run
writes beside its results (``<date>_llm_answers.jsonl``: prefix, answer key, text) and from which
``verify`` re-scores the judged tasks without calling an endpoint (``ANSWERS_ENV``)."""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

# A file of logged LLM answers (``<date>_llm_answers.jsonl``): with this variable set, every engine
# answers from it and calls no endpoint (``lmms-comparative verify`` re-scores judged tasks so).
ANSWERS_ENV = "LMMS_COMPARATIVE_LLM_ANSWERS"

_lock = threading.Lock()
_answers: dict[str, dict] = {}  # answer key -> {"prefix", "key", "text"}: every LLM answer of the run


def answer_key(messages: list) -> str:
    """What a logged LLM answer is found by: a sha256 of the request's messages (canonical JSON).
    The endpoint, model and sampling settings are the run's, recorded beside (``llm``)."""
    import json

    return hashlib.sha256(
        json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    ).hexdigest()


def note_answers(prefix: str | None, answered: list[tuple[str, str]]) -> None:
    """The (answer key, text) pairs a judge or reader answered, for the run's answers log."""
    with _lock:
        for key, text in answered:
            _answers[key] = {"prefix": prefix or "LMMS_COMPARATIVE_LLM", "key": key, "text": text}


def logged_answers() -> list[dict]:
    """The LLM answers this process logged so far (what the run's ``<date>_llm_answers.jsonl`` holds), in key order."""
    with _lock:
        return [dict(_answers[k]) for k in sorted(_answers)]


def load_answers(path: str | Path) -> dict[str, str]:
    """{answer key: text} from an answers log."""
    import json

    found = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            found[row["key"]] = row["text"]
    return found


def forget() -> None:
    """Forget the answers logged in this process."""
    with _lock:
        _answers.clear()
