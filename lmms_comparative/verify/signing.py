"""Which verdict files ``verify`` made on this machine: a keyed MAC (HMAC-SHA256) over the verdict
document, with a key that never leaves the maintainer's config folder (docs/security.md).

A verdict file lies in the results folder, which a stranger writes: anyone can write
``"verdict": "PASS"`` and the right file hashes beside an edited metric. The MAC says the document
came from ``verify`` run with this key; a document without a valid one is the submitter's claim,
which ``report`` and ``compare`` show as such.

The key is 32 random bytes in ``verdict.key`` under ``LMMS_COMPARATIVE_CONFIG_DIR``, else
``$XDG_CONFIG_HOME/lmms-comparative`` (``~/.config`` when that is unset). ``verify`` creates it on
first use (mode 0600, created exclusively, no link followed); ``report`` and ``compare`` only read
it, and with no key every verdict is a claim.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import stat
from pathlib import Path

MAC_FIELD = "hmac_sha256"
KEY_BYTES = 32
CONFIG_VARIABLE = "LMMS_COMPARATIVE_CONFIG_DIR"


class KeyProblem(OSError):
    """The verdict key cannot be made or read as a key (a link, another kind of file, readable by
    others, the wrong size): one line, naming the file."""


def config_dir() -> Path:
    """The maintainer's config folder of this package (read at each call: tests point it elsewhere)."""
    given = os.environ.get(CONFIG_VARIABLE)
    if given:
        return Path(given)
    xdg = os.environ.get("XDG_CONFIG_HOME")
    base = (
        Path(xdg) if xdg and os.path.isabs(xdg) else Path(os.path.expanduser("~")) / ".config"
    )  # a relative XDG path is to be ignored (the spec)
    return base / "lmms-comparative"


def key_path() -> Path:
    return config_dir() / "verdict.key"


def _read(path: Path) -> bytes:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise KeyProblem(f"{path}: a link stands where the verdict key is kept (remove it)") from None
        raise
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise KeyProblem(f"{path}: not a regular file, so not a verdict key")
        # Whoever can read the key can forge a verdict made here; whoever can write it, replace it.
        if os.name == "posix" and (info.st_mode & 0o077 or info.st_uid != os.geteuid()):
            raise KeyProblem(f"{path}: the verdict key must be this user's and readable by no one else (chmod 600)")
        data = handle.read(KEY_BYTES + 1)
    if len(data) != KEY_BYTES:
        raise KeyProblem(
            f"{path}: a verdict key holds {KEY_BYTES} bytes, this one {len(data)}{'+' if len(data) > KEY_BYTES else ''}"
            " (remove it: verify makes a new one)"
        )
    return data


def _create(path: Path) -> None:
    """A new key at ``path``, published whole: written to a file of its own (created exclusively,
    no link followed, 0600) and hard-linked to its name, which fails if anything stands there (a
    second ``verify`` that made one first wins; a link there is never written through)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    secret = os.urandom(KEY_BYTES)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    temporary = path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")
    try:
        _write_new(temporary, secret, flags)
        try:
            os.link(temporary, path, follow_symlinks=False)
        except FileExistsError:
            pass  # made meanwhile, or something stands there: _read says which
        except OSError:  # a file system without hard links: the key file itself, created exclusively
            try:
                _write_new(path, secret, flags)
            except FileExistsError:
                pass
    finally:
        try:
            os.unlink(temporary)
        except OSError:
            pass


def _write_new(path: Path, data: bytes, flags: int) -> None:
    fd = os.open(path, flags, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def key(create: bool) -> bytes | None:
    """The verdict key; made first when ``create`` (``verify``). None when there is none and
    ``create`` is false; ``KeyProblem`` when the file there is not a key, ``OSError`` when the
    folder cannot be written."""
    path = key_path()
    try:
        return _read(path)
    except FileNotFoundError:
        if not create:
            return None
    _create(path)
    return _read(path)


def canonical(document: dict) -> bytes:
    """The bytes the MAC covers: the document without its MAC, as JSON with sorted keys, no spaces
    and ASCII escapes (so the file's own layout and encoding do not matter)."""
    body = {k: v for k, v in document.items() if k != MAC_FIELD}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


def sign(document: dict) -> dict:
    """``document`` with its MAC under this machine's key (made on first use)."""
    secret = key(create=True)
    if secret is None:  # key(create=True) makes one or raises: never reached
        raise KeyProblem(f"{key_path()}: no verdict key could be made")
    return {**document, MAC_FIELD: hmac.new(secret, canonical(document), hashlib.sha256).hexdigest()}


def made_here(document: dict) -> bool:
    """Whether ``document`` carries a valid MAC under this machine's key: False for no MAC, a wrong
    one, a document that cannot be put in canonical form, and when there is no usable key."""
    mac = document.get(MAC_FIELD)
    if not isinstance(mac, str):
        return False
    try:
        secret = key(create=False)
        body = canonical(document)
    except (OSError, ValueError, TypeError, RecursionError):
        return False
    if secret is None:
        return False
    return hmac.compare_digest(
        mac.encode("ascii", "replace"), hmac.new(secret, body, hashlib.sha256).hexdigest().encode("ascii")
    )
