"""What ``verify`` says of a results file: a ``Verdict`` per task and group of ours, ``BadFile`` for
a file that cannot be read as one, and the file read through the gate (``read_results``) with the
rows of ours it holds (``rows_of_ours``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from lmms_comparative.data import gate, untrusted
from lmms_comparative.registry import of_task

# The sections of a results file whose rows ``report`` and ``export`` read, task or group name -> row.
SECTIONS = ("results", "groups")


class BadFile(ValueError):
    """A results file that cannot be read as one: the message says what is wrong in one line."""


@dataclass
class Verdict:
    """The check of one task or group: its problems (any one fails it), why it could not be checked
    (``unverified``), and notes on what passed."""

    task: str
    problems: list[str] = field(default_factory=list)
    unverified: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        """``FAIL`` with any problem, else ``UNVERIFIED`` with a reason, else ``PASS``."""
        return "FAIL" if self.problems else "UNVERIFIED" if self.unverified else "PASS"

    def line(self) -> str:
        """The printed line: the status padded to 10 columns, the task, then its problems, the
        reason or the notes."""
        detail = (
            "; ".join(self.problems) if self.problems else self.unverified if self.unverified else "; ".join(self.notes)
        )
        return f"{self.status:10} {self.task}: {detail}"


def read_results(run: gate.Run) -> dict:
    """The results JSON through the gate (bounded, checked against its schema); ``BadFile`` for a
    file that is not one (truncated, not an object, a section of another shape)."""
    try:
        return gate.results_json(run.results)
    except untrusted.Unsafe as exc:
        raise BadFile(str(exc)) from None


def rows_of_ours(results: dict) -> list[str]:
    """Every task or group name of one of our benchmarks with a row in the file's ``results`` or
    ``groups``."""
    return sorted({name for section in SECTIONS for name in results.get(section) or {} if of_task(name) is not None})
