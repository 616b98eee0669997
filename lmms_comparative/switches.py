"""What our processes tell each other through the environment, and what they read off the command
line: names shared by layers that otherwise do not import each other (the harness reads them, the
``score`` and ``verify`` runs set them). Nothing here imports the package."""

from __future__ import annotations

import sys

# Index our task folder only, not lmms-eval's ~3,600 task files (score, verify and demo set it).
OURS_ONLY = "LMMS_COMPARATIVE_OUR_TASKS_ONLY"
# The replay file whose recorded skips a ``score`` run keeps as skips (tasklib.docs_hook).
RECORDED_SKIPS_ENV = "LMMS_COMPARATIVE_RECORDED_SKIPS"
# Set by ``verify``'s re-scoring run: recorded skips are checked against the data at hand.
CHECK_SKIPS_ENV = "LMMS_COMPARATIVE_CHECK_SKIPS"


def cli_value(flag: str, argv: list[str] | None = None) -> str | None:
    """The value of ``flag`` (``--tasks X`` or ``--tasks=X``) on the current process's command line
    (the lmms-eval CLI's, under torchrun each rank's), or None without it."""
    argv = sys.argv[1:] if argv is None else argv
    for i, arg in enumerate(argv):
        if arg == flag and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith(flag + "="):
            return arg.split("=", 1)[1]
    return None
