"""A local Hugging Face hub on 127.0.0.1 for end-to-end tests, reached through ``HF_ENDPOINT``.

It speaks the part of the hub's HTTP protocol that ``huggingface_hub`` and ``datasets`` use to read
a dataset repository: the repo info (``/api/datasets/<repo>/revision/<rev>``), the file tree and
paths-info (``/api/datasets/<repo>/tree/...``, ``.../paths-info/<rev>``), and file resolves
(``HEAD``/``GET /datasets/<repo>/resolve/<rev>/<path>``, with the ``X-Repo-Commit``, ``ETag`` and
``Content-Length`` headers the client checks). Each repository is a local folder served at one
commit. Like the real hub, a gated repository answers 401 without the right token, a missing
file 404 with ``X-Error-Code: EntryNotFound``; ``rate_limit`` answers the first N requests 429
with ``Retry-After``. Every request is recorded (method, path) for assertions.

Model repositories (``models``) take commits the way ``HfApi.create_commit`` sends them: the
preupload request (``POST /api/models/<repo>/preupload/<rev>``: every small file "regular") and the
commit (``POST /api/models/<repo>/commit/<rev>``, an NDJSON body of a header line and base64 file
lines), with ``create_pr=1`` opening a pull request (``refs/pr/<n>``, listed in ``pull_requests``).
Writing needs the hub's token (401 without it), as on the real hub.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlparse

from helpers.loopback import Loopback, send_json

COMMIT = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class Repo:
    folder: Path
    gated: bool = False  # 401 without the hub's token, as a gated or private repo
    commit: str = COMMIT

    def files(self) -> list[str]:
        return sorted(p.relative_to(self.folder).as_posix() for p in self.folder.rglob("*") if p.is_file())


@dataclass
class ModelRepo:
    """A model repository that takes commits: its main branch's files and its pull requests."""

    files: dict[str, bytes] = field(default_factory=dict)
    pull_requests: list[dict] = field(default_factory=list)  # {"num", "title", "description", "files"}
    commits: list[dict] = field(default_factory=list)  # commits to main: {"oid", "title", "files"}


@dataclass
class Request:
    method: str
    path: str
    authorized: bool


@dataclass
class FakeHub(Loopback):
    repos: dict[str, Repo]
    models: dict[str, ModelRepo] = field(default_factory=dict)
    token: str = "hf_test_token"
    rate_limit: int = 0  # answer this many requests 429 first
    requests: list[Request] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._etags: dict[Path, str] = {}
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:
                hub._handle(self, "HEAD")

            def do_GET(self) -> None:
                hub._handle(self, "GET")

            def do_POST(self) -> None:
                hub._handle(self, "POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    # ---- what tests ask -------------------------------------------------------------------------

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def env(self, with_token: bool = False) -> dict[str, str]:
        """Variables that point huggingface_hub and datasets at this hub (online)."""
        env = {
            "HF_ENDPOINT": self.endpoint,
            "HF_HUB_OFFLINE": "0",
            "HF_DATASETS_OFFLINE": "0",
            "HF_HUB_DISABLE_XET": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1",
        }
        if with_token:
            env["HF_TOKEN"] = self.token
        return env

    def resolved(self, method: str = "GET") -> list[str]:
        """The repo paths of the files sent (``GET .../resolve/...``), in order."""
        return [
            r.path.split("/resolve/", 1)[1].split("/", 1)[1]
            for r in self.requests
            if r.method == method and "/resolve/" in r.path
        ]

    # ---- the protocol ---------------------------------------------------------------------------

    def _etag(self, path: Path) -> str:
        if path not in self._etags:
            self._etags[path] = hashlib.sha256(path.read_bytes()).hexdigest()
        return self._etags[path]

    def _handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        url = urlparse(handler.path)
        path = unquote(url.path)
        authorized = handler.headers.get("Authorization") == f"Bearer {self.token}"
        with self._lock:
            self.requests.append(Request(method, path, authorized))
            limited = self.rate_limit > 0
            if limited:
                self.rate_limit -= 1
        if limited:
            return self._send(handler, 429, {"error": "rate limited"}, {"Retry-After": "0"}, method=method)
        if method == "POST":
            length = int(handler.headers.get("Content-Length") or 0)
            body = handler.rfile.read(length).decode() if length else ""
        else:
            body = ""
        if path.startswith("/api/models/") and method == "POST":
            return self._model_write(handler, path[len("/api/models/") :], parse_qs(url.query), body, authorized)
        for prefix, kind in (("/api/datasets/", "api"), ("/datasets/", "resolve")):
            if path.startswith(prefix):
                rest = path[len(prefix) :]
                break
        else:
            return self._send(handler, 404, {"error": "not found"}, method=method)
        repo_id, repo, tail = self._repo(rest, "/resolve/" if kind == "resolve" else "/")
        if repo is None:
            return self._send(
                handler, 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"}, method=method
            )
        if repo.gated and not authorized:
            return self._send(
                handler,
                401,
                {
                    "error": f"Access to dataset {repo_id} is restricted. You must have access to it and be "
                    "authenticated to access it."
                },
                {"X-Error-Code": "GatedRepo"},
                method=method,
            )
        if kind == "resolve":
            _rev, _, file = tail.partition("/")
            return self._file(handler, repo, file, method)
        what, _, tail = tail.partition("/")
        rev, _, sub = tail.partition("/")
        if what == "revision":
            info = {
                "id": repo_id,
                "sha": repo.commit,
                "private": False,
                "gated": "auto" if repo.gated else False,
                "disabled": False,
                "lastModified": "2026-01-01T00:00:00.000Z",
                "tags": [],
                "cardData": {},
                "siblings": [{"rfilename": f} for f in repo.files()],
            }
            return self._send(handler, 200, info, method=method)
        if what == "tree":
            return self._send(
                handler,
                200,
                self._tree(repo, sub.strip("/"), parse_qs(url.query).get("recursive", ["false"])[0].lower() == "true"),
                method=method,
            )
        if what == "paths-info":
            paths = parse_qs(body).get("paths", [])
            if not paths and body.strip().startswith("{"):
                paths = json.loads(body).get("paths", [])
            return self._send(handler, 200, [e for p in paths for e in self._entry(repo, p.strip("/"))], method=method)
        return self._send(handler, 404, {"error": "not found"}, method=method)

    def _model_write(
        self, handler: BaseHTTPRequestHandler, rest: str, query: dict, body: str, authorized: bool
    ) -> None:
        repo_id = next((r for r in self.models if rest.startswith(r + "/")), None)
        if repo_id is None:
            return self._send(handler, 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
        if not authorized:
            return self._send(handler, 401, {"error": "Invalid credentials in Authorization header"})
        repo = self.models[repo_id]
        action, _, _rev = rest[len(repo_id) + 1 :].partition("/")
        if action == "preupload":
            files = json.loads(body or "{}").get("files", [])
            return self._send(
                handler,
                200,
                {
                    "files": [
                        {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False, "oid": None} for f in files
                    ]
                },
            )
        if action != "commit":
            return self._send(handler, 404, {"error": "not found"})
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        header = next((line["value"] for line in lines if line.get("key") == "header"), {})
        files = {}
        for line in lines:
            if line.get("key") == "file":
                value = line["value"]
                content = value["content"]
                files[value["path"]] = (
                    base64.b64decode(content) if value.get("encoding") == "base64" else content.encode()
                )
        oid = hashlib.sha1(body.encode()).hexdigest()
        if query.get("create_pr", ["0"])[0] == "1":
            with self._lock:
                num = len(repo.pull_requests) + 1
                repo.pull_requests.append(
                    {
                        "num": num,
                        "title": header.get("summary"),
                        "description": header.get("description"),
                        "files": files,
                    }
                )
            return self._send(
                handler,
                200,
                {
                    "commitUrl": f"{self.endpoint}/{repo_id}/commit/{oid}",
                    "commitOid": oid,
                    "pullRequestUrl": f"{self.endpoint}/{repo_id}/discussions/{num}",
                },
            )
        with self._lock:
            repo.files.update(files)
            repo.commits.append({"oid": oid, "title": header.get("summary"), "files": files})
        return self._send(
            handler,
            200,
            {"commitUrl": f"{self.endpoint}/{repo_id}/commit/{oid}", "commitOid": oid, "pullRequestUrl": None},
        )

    def _repo(self, rest: str, marker: str) -> tuple[str, Repo | None, str]:
        for repo_id, repo in self.repos.items():
            if rest.startswith(repo_id + marker):
                return repo_id, repo, rest[len(repo_id) + len(marker) :]
        return rest, None, ""

    def _entry(self, repo: Repo, rel: str) -> list[dict]:
        target = repo.folder / rel
        if target.is_file():
            return [{"type": "file", "path": rel, "size": target.stat().st_size, "oid": self._etag(target)[:40]}]
        if target.is_dir():
            return [{"type": "directory", "path": rel, "oid": "0" * 40}]
        return []

    def _tree(self, repo: Repo, sub: str, recursive: bool) -> list[dict]:
        base = repo.folder / sub if sub else repo.folder
        if not base.is_dir():
            return []
        children = base.rglob("*") if recursive else base.iterdir()
        return [e for p in sorted(children) for e in self._entry(repo, p.relative_to(repo.folder).as_posix())]

    def _file(self, handler: BaseHTTPRequestHandler, repo: Repo, rel: str, method: str) -> None:
        target = repo.folder / rel
        headers = {"X-Repo-Commit": repo.commit}
        if not target.is_file():
            return self._send(
                handler, 404, {"error": "Entry not found"}, {**headers, "X-Error-Code": "EntryNotFound"}, method=method
            )
        size = target.stat().st_size
        headers.update(
            {
                "ETag": f'"{self._etag(target)}"',
                "Content-Type": "application/octet-stream",
                "Accept-Ranges": "bytes",
                "Last-Modified": formatdate(usegmt=True),
            }
        )
        start = 0
        ranged = handler.headers.get("Range", "")
        if ranged.startswith("bytes=") and method == "GET":
            start = int(ranged[6:].split("-", 1)[0] or 0)
        handler.send_response(206 if start else 200)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(size - start))
        if start:
            handler.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        handler.end_headers()
        if method == "GET":
            with open(target, "rb") as fh:
                fh.seek(start)
                while chunk := fh.read(1 << 20):
                    handler.wfile.write(chunk)

    def _send(
        self, handler: BaseHTTPRequestHandler, status: int, obj, headers: dict | None = None, method: str = "GET"
    ) -> None:
        send_json(handler, status, obj, headers, body=method != "HEAD")


def hub_env(hub: FakeHub, hf_home: Path, with_token: bool = False) -> dict[str, str]:
    """``base_env``'s variables for a run against ``hub`` with its own HF cache ``hf_home``."""
    return {
        **hub.env(with_token),
        "HF_HOME": str(hf_home),
        "HF_HUB_CACHE": str(Path(hf_home) / "hub"),
        "HF_DATASETS_CACHE": str(Path(hf_home) / "datasets"),
    }


__all__ = ["COMMIT", "FakeHub", "ModelRepo", "Repo", "Request", "hub_env"]
