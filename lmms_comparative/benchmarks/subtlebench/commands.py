"""SubtleBench's own commands: ``lmms-comparative synthetic DIR`` (the paper's synthetic pairs in the
release's layout) and the demo's data (``DEMO``: what ``lmms-comparative demo`` generates and runs)."""

from __future__ import annotations

import argparse

from lmms_comparative.benchmarks.subtlebench.table import ROOT_VARIABLE
from lmms_comparative.record import Command, Demo


def _types(value: str) -> tuple[str, ...]:
    """``--types attribute,quantity``: the synthetic difference types, each one the generator knows."""
    from lmms_comparative.benchmarks.subtlebench.synthetic_pairs import MAKERS

    types = tuple(t.strip() for t in value.split(",") if t.strip())
    unknown = [t for t in types if t not in MAKERS]
    if unknown or not types:
        raise argparse.ArgumentTypeError(
            f"unknown type(s) {', '.join(unknown) or '(none given)'}; "
            f"choose from {','.join(MAKERS)} (comma-separated, no spaces)"
        )
    return types


def _param(value: str) -> str:
    """``--param TYPE.FIELD=VALUE``: a difficulty factor the generator knows, given a number or a
    ``lo,hi`` range where the factor is one (a typo is one usage error, not a traceback)."""
    from lmms_comparative.benchmarks.subtlebench.synthetic import parse_param
    from lmms_comparative.benchmarks.subtlebench.synthetic_pairs import PARAMS

    try:
        category, name, parsed = parse_param(value)
    except ValueError as exc:  # an unknown TYPE.FIELD: the message lists the known ones
        raise argparse.ArgumentTypeError(str(exc)) from None
    default = getattr(PARAMS[category](), name)
    if isinstance(default, tuple) and not isinstance(parsed, tuple):
        example = ",".join(f"{v:g}" for v in default)
        raise argparse.ArgumentTypeError(
            f"{category}.{name} takes a number or a lo,hi range (default {category}.{name}={example}), not {parsed!r}"
        )
    return value


def _synthetic_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directory")
    parser.add_argument("--per-type", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--types",
        default="attribute,existence,quantity,viewpoint,spatial",
        type=_types,
        help="comma-separated difference types (default: all five)",
    )
    parser.add_argument(
        "--param",
        action="append",
        default=[],
        type=_param,
        metavar="TYPE.FIELD=VALUE",
        help="a difficulty factor, e.g. attribute.brightness_shift=0.25 or existence.n_shapes=4,8 (repeatable)",
    )


def _synthetic(args: argparse.Namespace) -> int:
    from lmms_comparative.benchmarks.subtlebench import synthetic

    root = synthetic.generate(
        args.directory, args.per_type, args.seed, synthetic.params_from_specs(args.param), args.types
    )
    print(f"{ROOT_VARIABLE}={root}")
    return 0


def _demo_data(root, per_type: int, seed: int):
    from lmms_comparative.benchmarks.subtlebench import synthetic

    return synthetic.generate(root, per_type=per_type, seed=seed)


def _demo_tasks() -> tuple[str, ...]:
    """The synthetic types' tasks, then the image-order check."""
    from lmms_comparative.benchmarks.subtlebench.data import CATEGORIES
    from lmms_comparative.benchmarks.subtlebench.synthetic_pairs import MAKERS

    code_of = {category: code for code, category in CATEGORIES.items()}
    return tuple(f"subtlebench_{code_of[t]}" for t in MAKERS) + ("subtlebench_swap",)


COMMANDS = (
    Command(
        "synthetic",
        "generate VLM-SubtleBench synthetic pairs in the SubtleBench layout",
        _synthetic_arguments,
        _synthetic,
        synopsis="DIR [--per-type N] [--param TYPE.FIELD=VALUE ...]",
        usage="the paper's synthetic pairs in the SubtleBench layout",
    ),
)
DEMO = Demo("synthetic SubtleBench pairs", "subtlebench_synthetic", _demo_data, _demo_tasks)
