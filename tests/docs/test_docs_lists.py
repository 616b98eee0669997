"""The docs' numbered lists count 1, 2, 3 in the text as they are read: a Markdown renderer renumbers
a list from its first number, so "5, 7, 6" in the file shows as 5, 6, 7 on a page, and the file and
the page would then disagree on which contract is number 6."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "lmms_comparative" / "benchmarks").glob("*/README.md")]
)


def numbered_lists(text: str) -> list[list[tuple[int, int]]]:
    """Each top-level ordered list of a Markdown text as (line, number) pairs, outside code fences:
    a list goes on over indented lines and blank lines, and ends at other unindented text."""
    lists: list[list[tuple[int, int]]] = []
    current: list[tuple[int, int]] | None = None
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        item = re.match(r"(\d+)[.)] ", line)
        if item:
            if current is None:
                current = []
                lists.append(current)
            current.append((number, int(item.group(1))))
        elif line.strip() and not line.startswith((" ", "\t")):
            current = None
    return lists


def test_every_numbered_list_of_the_docs_counts_up_by_one():
    wrong = []
    for doc in DOCS:
        for found in numbered_lists(doc.read_text(encoding="utf-8")):
            numbers = [n for _, n in found]
            if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
                wrong.append(f"{doc.relative_to(ROOT)}:{found[0][0]}: numbered {', '.join(map(str, numbers))}")
    assert wrong == []


def test_a_list_numbered_out_of_order_is_found():
    assert numbered_lists("1. a\n   more\n\n2. b\n3. c\n\ntext\n\n1. x\n```\n7. not a list\n```\n") == [
        [(1, 1), (4, 2), (5, 3)],
        [(9, 1)],
    ]
    assert [n for _, n in numbered_lists("5. a\n7. b\n6. c\n")[0]] == [5, 7, 6]
