"""The package's source read as a whole (``ast``, no import, no process): every file it writes goes
through the no-follow writer (``data/untrusted.py``), and every image it decodes is decoded only as
the formats our data use (docs/security.md, "What they write"). A new write or decoder elsewhere
fails here with its file and line, until it goes through the writer or is added to ``ALLOWED``
with the reason it cannot.

What counts as a write: ``.write_text(``, ``.write_bytes(``, ``open(...)`` (any ``*.open``) in a
mode that writes, ``os.open`` whose flags are not visibly read-only, ``ZipFile(..., "w")``,
``shutil`` copies, and ``.save(``, ``.savefig(``, ``.to_parquet(``, ``write_table(`` to anything
but an in-memory buffer. What counts as a decoder: ``Image.open(`` (it must name ``formats=``) and
``cv2.VideoCapture(`` (it must name its backend)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import lmms_comparative

PACKAGE = Path(lmms_comparative.__file__).parent
WRITER = "data/untrusted.py"  # the writer itself: the one place that opens files for writing

# (file, enclosing function, kind): why that write cannot go through ``untrusted.write_file``.
ALLOWED = {
    (
        "data/fixture_images.py",
        "write_video",
        "open for writing",
    ): "PyAV writes the test video's container itself, into the fixture folder the caller names",
    (
        "benchmarks/vlm2bench/fixture.py",
        "write_zip",
        "ZipFile for writing",
    ): "zipfile writes the fixture's release zip itself, at the path the test names",
    (
        "benchmarks/vlm2bench/tsv.py",
        "_locked",
        "open for writing",
    ): "the TSV image cache's lock file, opened only to hold an flock on it; nothing is written into it",
    (
        "judges/cache.py",
        "AnswerCache.__init__",
        "os.open for writing",
    ): "creates the SQLite answer cache owner-only (0600) before sqlite3 opens it; nothing is written through it here",
    (
        "provenance/hash_cache.py",
        "open_hash_cache",
        "os.open for writing",
    ): "creates the SQLite hash cache owner-only (0600) before sqlite3 opens it; nothing is written through it here",
    (
        "verify/signing.py",
        "_write_new",
        "os.open for writing",
    ): (
        "the verdict key: created exclusively (O_EXCL, O_NOFOLLOW, 0600) and hard-linked into place, where"
        " write_file's rename would replace a key another verify made"
    ),
}

_MODE = re.compile(r"[rwxabtU+]+")
_WRITE_FLAGS = {"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC"}
_BUFFERS = {"BytesIO", "StringIO", "BufferOutputStream"}
# Methods that write a whole file to their destination argument (its position, its keywords).
_TO_DESTINATION = {
    "save": (0, ("fp",)),
    "savefig": (0, ("fname",)),
    "to_parquet": (0, ("path_or_buf",)),
    "write_table": (1, ("where",)),
    "to_csv": (0, ("path_or_buf",)),
    "to_json": (0, ("path_or_buf",)),
}


def _name(node: ast.AST) -> str:
    """``a.b.c`` of a call's function (the last parts that are names), or ""."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


class _Checker(ast.NodeVisitor):
    """The writes and decoders of one module's source: (line, enclosing function, kind)."""

    def __init__(self, tree: ast.Module):
        self.found: list[tuple[int, str, str]] = []
        self.scopes: list[tuple[str, dict[str, list[ast.AST]], set[str]]] = [("", _assigned(tree.body), set())]

    def visit_FunctionDef(self, node):  # noqa: N802 - ast's name
        args = node.args
        params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | {
            a.arg for a in (args.vararg, args.kwarg) if a
        }
        outer = self.scopes[-1][0]
        self.scopes.append((f"{outer}.{node.name}" if outer else node.name, _assigned(node.body), params))
        self.generic_visit(node)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):  # noqa: N802
        outer = self.scopes[-1][0]
        self.scopes.append((f"{outer}.{node.name}" if outer else node.name, {}, set()))
        self.generic_visit(node)
        self.scopes.pop()

    def _resolved(self, node: ast.AST, depth: int = 0) -> list[ast.AST] | None:
        """The expressions a name stands for (its assignments in the innermost scope that has
        one), the node itself otherwise; None where it cannot be seen (a parameter)."""
        if not isinstance(node, ast.Name) or depth > 8:
            return [node]
        for _, assigned, params in reversed(self.scopes):
            if node.id in assigned:
                out = []
                for value in assigned[node.id]:
                    inner = self._resolved(value, depth + 1)
                    if inner is None:
                        return None
                    out += inner
                return out
            if node.id in params:
                return None
        return None

    def _flag_names(self, node: ast.AST, depth: int = 0) -> set[str] | None:
        """Every name, attribute and string inside ``node``, names expanded; None where one cannot be seen."""
        found: set[str] = set()
        called = {
            id(sub.func) for sub in ast.walk(node) if isinstance(sub, ast.Call)
        }  # getattr(os, "O_..."): the function is no flag
        for sub in ast.walk(node):
            if isinstance(sub, ast.Attribute):
                found.add(sub.attr)
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                found.add(sub.value)
            elif isinstance(sub, ast.Name) and sub.id != "os" and id(sub) not in called and depth < 8:
                values = self._resolved(sub)
                if values is None or values == [sub]:
                    return None
                for value in values:
                    inner = self._flag_names(value, depth + 1)
                    if inner is None:
                        return None
                    found |= inner
        return found

    def _in_memory(self, node: ast.AST) -> bool:
        values = self._resolved(node)
        return values is not None and all(
            isinstance(v, ast.Call) and _name(v.func).split(".")[-1] in _BUFFERS for v in values
        )

    def _mode(self, call: ast.Call, positions: tuple[int, ...]) -> str | None:
        candidates = [call.args[i] for i in positions if i < len(call.args)] + [
            k.value for k in call.keywords if k.arg == "mode"
        ]
        for node in candidates:
            for value in self._resolved(node) or []:
                if isinstance(value, ast.Constant) and isinstance(value.value, str) and _MODE.fullmatch(value.value):
                    return value.value
        return None

    def visit_Call(self, node):  # noqa: N802
        name = _name(node.func)
        last = name.split(".")[-1]
        kind = None
        if last in ("write_text", "write_bytes"):
            kind = last
        elif name == "os.open":
            flags = self._flag_names(node.args[1]) if len(node.args) > 1 else None
            if flags is None or flags & _WRITE_FLAGS or "O_RDONLY" not in flags:
                kind = "os.open for writing"
        elif last == "open" and name != "Image.open":
            mode = self._mode(node, (0, 1))
            if mode and set(mode) & set("wax+"):
                kind = "open for writing"
        elif last == "ZipFile":
            mode = self._mode(node, (1,))
            if mode and set(mode) & set("wax"):
                kind = "ZipFile for writing"
        elif name.startswith("shutil.") and last in ("copy", "copy2", "copyfile", "copytree", "move"):
            kind = f"shutil.{last}"
        elif last in _TO_DESTINATION:
            position, keywords = _TO_DESTINATION[last]
            target = (
                node.args[position]
                if position < len(node.args)
                else next((k.value for k in node.keywords if k.arg in keywords), None)
            )
            if target is not None and not self._in_memory(target):
                kind = f".{last}( to a path"
        if name.endswith("Image.open") and not any(k.arg == "formats" for k in node.keywords):
            kind = "Image.open without formats="
        if name.endswith("VideoCapture") and len(node.args) + len(node.keywords) < 2:
            kind = "cv2.VideoCapture without its backend"
        if kind:
            self.found.append((node.lineno, self.scopes[-1][0], kind))
        self.generic_visit(node)


def _assigned(body: list[ast.stmt]) -> dict[str, list[ast.AST]]:
    """{name: the expressions assigned to it} in ``body``, nested functions and classes left out."""
    out: dict[str, list[ast.AST]] = {}
    pending = list(body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    out.setdefault(target.id, []).append(stmt.value)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            out.setdefault(stmt.target.id, []).append(stmt.value)
        elif isinstance(stmt, (ast.With, ast.AsyncWith)):
            for item in stmt.items:
                if isinstance(item.optional_vars, ast.Name):
                    out.setdefault(item.optional_vars.id, []).append(item.context_expr)
        pending += [child for child in ast.iter_child_nodes(stmt) if isinstance(child, ast.stmt)]
    return out


def findings(source: str) -> list[tuple[int, str, str]]:
    """(line, enclosing function, kind) of every write and decoder in ``source`` that this test watches."""
    checker = _Checker(ast.parse(source))
    checker.visit(ast.parse(source))
    return sorted(checker.found)


def _package_findings() -> dict[tuple[str, str, str], list[int]]:
    found: dict[tuple[str, str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == WRITER:
            continue
        for line, function, kind in findings(path.read_text(encoding="utf-8")):
            found.setdefault((relative, function, kind), []).append(line)
    return found


def test_every_write_goes_through_the_writer_and_every_image_decodes_only_as_our_formats():
    found = _package_findings()
    bad = [
        f"lmms_comparative/{file}:{line}: {kind} (in {function or 'the module'})"
        for (file, function, kind), lines in found.items()
        if (file, function, kind) not in ALLOWED
        for line in lines
    ]
    assert not bad, (
        "write through lmms_comparative.data.untrusted.write_file (or write_image, write_figure), decode with"
        " formats=untrusted.IMAGE_FORMATS, or add to ALLOWED with the reason:\n" + "\n".join(bad)
    )
    stale = [key for key in ALLOWED if key not in found]
    assert not stale, f"ALLOWED names writes that are no longer there: {stale}"


def test_every_allowed_write_says_why():
    assert all(len(reason.split()) >= 6 for reason in ALLOWED.values())


# ---- the checker can fail: each forbidden form, beside what it lets pass ---------------------


@pytest.mark.parametrize(
    "source, kind",
    [
        ("from pathlib import Path\nPath('x').write_text('y')\n", "write_text"),
        ("def f(p):\n    p.write_bytes(b'')\n", "write_bytes"),
        ("with open('out.json', 'w') as h:\n    h.write('x')\n", "open for writing"),
        ("def f(p):\n    with p.open(mode='ab') as h:\n        pass\n", "open for writing"),
        ("import os\nos.open('x', os.O_WRONLY | os.O_CREAT)\n", "os.open for writing"),
        ("import os\nFLAGS = os.O_RDWR\ndef f(p):\n    os.open(p, FLAGS)\n", "os.open for writing"),
        ("import os\ndef f(p, flags):\n    os.open(p, flags)\n", "os.open for writing"),
        ("def chart(fig, path):\n    fig.savefig(path, bbox_inches='tight')\n", ".savefig( to a path"),
        ("def draw(image, root):\n    image.save(root / 'a.png')\n", ".save( to a path"),
        ("import zipfile\nzipfile.ZipFile('a.zip', 'w')\n", "ZipFile for writing"),
        ("import shutil\nshutil.copy2('a', 'b')\n", "shutil.copy2"),
        ("from PIL import Image\nImage.open('evil.png')\n", "Image.open without formats="),
        ("import cv2\ncv2.VideoCapture('v.mp4')\n", "cv2.VideoCapture without its backend"),
    ],
)
def test_the_checker_reports_a_forbidden_write_or_decoder(source, kind):
    assert [k for _, _, k in findings(source)] == [kind]


def test_the_checker_lets_reads_buffers_and_restricted_decoders_pass():
    source = """
import io, os, cv2
from PIL import Image
READ = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)

def ok(fig, image, path):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    image.save(io.BytesIO(), "PNG")
    with open(path, encoding="utf-8") as handle, open(path, "rb") as raw:
        pass
    os.open(path, READ)
    os.open(path, os.O_RDONLY)
    Image.open(path, formats=("PNG",))
    cv2.VideoCapture(path, cv2.CAP_FFMPEG)
"""
    assert findings(source) == []


def test_a_finding_names_its_function():
    assert findings("class A:\n    def w(self, p):\n        p.write_text('')\n") == [(3, "A.w", "write_text")]
