"""The schema of an lmms-eval results JSON as our commands read it, checked at the gate
(``gate.results_json``) with pydantic.

Why pydantic: it is already in every environment this package runs in (lmms-eval and the
``openai`` SDK depend on it), its core is compiled (the JSON is parsed in linear time, with its
own recursion limit), and a ``TypedDict`` schema validates into the plain dicts and lists the
commands already read, so the checked value is the value used: no second parse, no copy into
other objects. msgspec would be as fast but is one more dependency for the same guarantee.

Only what a command reads is constrained: a section of rows is a mapping of name to a mapping; a
group's members are a list of names; ``config`` is a mapping; the record's tasks are mappings with
their item set, data and skips typed. Every key the schema does not name is kept as it is (the
honest files of other lmms-eval versions carry more); the bounds on depth, digits and strings
(``untrusted.loads``) hold for those too.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from pydantic import ConfigDict, TypeAdapter, ValidationError
from typing_extensions import TypedDict

from lmms_comparative.data.untrusted import Unsafe

_OPEN = ConfigDict(extra="allow")

Row = Dict[str, Any]
Rows = Dict[str, Row]


class ItemSet(TypedDict, total=False):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    count: Optional[int]
    sha256: Optional[str]
    order_sha256: Optional[str]


class TaskEntry(TypedDict, total=False):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    benchmark: Optional[str]
    items: Optional[ItemSet]
    data: Optional[Dict[str, Any]]
    skipped: Optional[Dict[str, Any]]
    prompts: Optional[Union[str, Dict[str, Any]]]
    variant_of: Optional[str]


class Record(TypedDict, total=False):
    __pydantic_config__ = _OPEN  # type: ignore[misc]
    tasks: Dict[str, TaskEntry]
    llm: Optional[Dict[str, Dict[str, Any]]]
    llm_answers: Optional[Dict[str, Any]]
    predictions: Optional[Dict[str, Any]]
    schema: Optional[int]


# The sections keyed by task or group name; ``n-samples`` and the rest hold a mapping per name.
Results = TypedDict(
    "Results",
    {
        "results": Rows,
        "groups": Optional[Rows],
        "group_subtasks": Optional[Dict[str, List[str]]],
        "configs": Optional[Rows],
        "versions": Optional[Dict[str, Any]],
        "n-samples": Optional[Dict[str, Dict[str, Any]]],
        "higher_is_better": Optional[Dict[str, Any]],
        "n-shot": Optional[Dict[str, Any]],
        "config": Optional[Dict[str, Any]],
        "lmms_comparative": Optional[Record],
    },
    total=False,
)
Results.__pydantic_config__ = _OPEN  # type: ignore[attr-defined]

_RESULTS = TypeAdapter(Results)


def check_results(value: Any) -> dict:
    """``value`` when it has the shape of an lmms-eval results JSON where our commands read it;
    ``Unsafe`` naming the first place that does not (one line)."""
    if not isinstance(value, dict):
        raise Unsafe(f"a JSON {type(value).__name__}, not the object lmms-eval writes")
    if not isinstance(value.get("results"), dict):
        raise Unsafe('not an lmms-eval results JSON (no "results" table)')
    try:
        _RESULTS.validate_python(value, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(
            str(p) for p in first["loc"] if not (isinstance(p, str) and p in ("dict[str,any]", "list[str]"))
        )
        raise Unsafe(f"not an lmms-eval results JSON: {where[:120]!s}: {first['msg'].lower()}") from None
    return value
