"""A local OpenAI-compatible chat server on 127.0.0.1 for end-to-end tests.

Real HTTP, real JSON: lmms-eval's ``openai`` model (and our judge engine) talk to it exactly as
they would to vLLM or OpenAI. Each test gives it a ``responder``: a function from the request body
to the reply text. Every request body is recorded for assertions (images arrive as base64 data URLs).

Like a real endpoint (``vllm serve --api-key``, OpenAI), it answers 401 unless the request carries
the configured key: ``Authorization: Bearer <key>``, or with ``azure=True`` Azure's ``api-key``
header on ``/openai/deployments/<deployment>/chat/completions?api-version=...``. A request without
the right credentials never reaches the responder.

Like vLLM, SGLang or a LiteLLM proxy it lists the models it serves at ``GET /v1/models`` (with the
key): by default the names the registered benchmarks' readers and judges use by default
(``scoring_calls``) and ``vlm`` (the model under test in ``model_cli``); ``models=[...]`` serves
others, ``models=None`` has no such route (404, as some servers do). Those GETs are counted in
``listings``, not in ``requests``.

A scoring call pointed here with ``judge_env(prefix)`` asks under ``/<prefix>/v1``: the server
strips the prefix and tells the responder which call asked (``SCORING_CALL``), so ``any_scorer``
answers with the reply the call's record gives (``ScoringCall.test_reply``), without reading the
prompt for a benchmark's wording.
"""

from __future__ import annotations

import base64
import contextvars
import io
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Union

from PIL import Image

from helpers.loopback import Loopback, send_json
from lmms_comparative.registry import BENCHMARKS


@dataclass
class Reply:
    """A reply other than a normal completion: an HTTP error, a malformed body, a dropped connection."""

    status: int = 200
    headers: dict = field(default_factory=dict)
    body: bytes | None = None  # raw body instead of a JSON error object
    drop: bool = False  # close the connection without answering


Responder = Callable[[dict], Union[str, int, Reply]]  # reply text, an HTTP error status, or a Reply


def message_text(body: dict) -> str:
    """All text parts of all messages, joined by newlines."""
    parts = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(p.get("text", "") for p in content or [] if p.get("type") == "text")
    return "\n".join(parts)


def message_images(body: dict) -> list[Image.Image]:
    """The images of a request, decoded from their data URLs, in order."""
    images = []
    for message in body.get("messages", []):
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image_url":
                url = part["image_url"]["url"]
                images.append(Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))))
    return images


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the default backlog of 5 resets connections under concurrent load

    def handle_error(self, request, client_address):  # clients that time out or hang up are expected
        pass


TEST_KEY = "sk-x"  # the key the tests configure, for the model under test and for the judges


def _default_models() -> list[str]:
    """The default model of every reader and judge the registry's benchmarks declare
    (``scoring_calls``), and the model under test: what the server lists unless told otherwise."""
    return sorted({c.default["model"] for b in BENCHMARKS for c in b.scoring_calls if c.kind == "llm"}) + ["vlm"]


DEFAULT_MODELS = _default_models()


class FakeOpenAI(Loopback):
    def __init__(
        self,
        responder: Responder,
        api_key: str = TEST_KEY,
        azure: bool = False,
        models: list[str] | None = DEFAULT_MODELS,
        port: int = 0,
    ):
        self.responder = responder
        self.api_key, self.azure, self.models = api_key, azure, models
        self.listings = 0  # GET /v1/models answered 200
        self.requests: list[dict] = []
        self.paths: list[str] = []  # request path and query of every accepted request
        self.rejected = 0  # requests answered 401
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_GET(self):
                _, self.path = _routed(self.path)
                if server.azure or server.models is None or self.path.rstrip("/") != "/v1/models":
                    self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                    return
                if not server.authorized(self.headers, self.path):
                    with server._lock:
                        server.rejected += 1
                    self._send(
                        401,
                        {
                            "error": {
                                "message": "Incorrect API key provided.",
                                "type": "invalid_request_error",
                                "code": "invalid_api_key",
                            }
                        },
                    )
                    return
                with server._lock:
                    server.listings += 1
                self._send(
                    200,
                    {
                        "object": "list",
                        "data": [{"id": name, "object": "model", "owned_by": "test"} for name in server.models],
                    },
                )

            def do_POST(self):
                call, self.path = _routed(self.path)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                if not server.authorized(self.headers, self.path):
                    with server._lock:
                        server.rejected += 1
                    error = {
                        "error": {
                            "message": "Incorrect API key provided.",
                            "type": "invalid_request_error",
                            "code": "invalid_api_key",
                        }
                    }
                    self._send(401, error)
                    return
                with server._lock:
                    server.requests.append(body)
                    server.paths.append(self.path)
                token = SCORING_CALL.set(call)
                try:
                    text = server.responder(body)
                finally:
                    SCORING_CALL.reset(token)
                if isinstance(text, int):
                    text = Reply(status=text)
                if isinstance(text, Reply):
                    if text.drop:
                        self.close_connection = True
                        self.connection.shutdown(2)
                        return
                    error = {"error": {"message": f"injected HTTP {text.status}", "type": "server_error"}}
                    self._send(text.status, error, text.headers, text.body)
                    return
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "fake"),
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

            def _send(self, status: int, obj: dict, headers: dict | None = None, raw: bytes | None = None) -> None:
                send_json(self, status, obj, headers, raw)

        self.httpd = _QuietServer(("127.0.0.1", port), Handler)  # port 0: any free one
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def authorized(self, headers, path: str) -> bool:
        if self.azure:
            return (
                headers.get("api-key") == self.api_key
                and path.startswith("/openai/deployments/")
                and "api-version=" in path
            )
        return headers.get("Authorization") == f"Bearer {self.api_key}"

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (``.../v1``); for ``azure=True``, the resource endpoint."""
        root = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        return root if self.azure else f"{root}/v1"

    @property
    def model_cli(self) -> list[str]:
        """``--model openai --model_args ...``: lmms-eval's openai model class pointed at this server."""
        return ["--model", "openai", "--model_args", f"model_version=vlm,base_url={self.base_url},api_key=sk-x"]

    def judge_env(self, prefix: str) -> dict[str, str]:
        """The variables that point a benchmark's judge (or reader) at this server with its key. Its
        requests arrive under ``/<prefix>`` (stripped before the routes are matched), so a responder
        knows which scoring call asked (``SCORING_CALL``)."""
        root = self.base_url if self.azure else self.base_url.replace("/v1", f"/{prefix}/v1", 1)
        return {f"{prefix}_BASE_URL": root, f"{prefix}_API_KEY": self.api_key}

    def every_llm_env(self) -> dict[str, str]:
        """Every reader and judge of every registered benchmark pointed at this server (each
        ``scoring_calls`` prefix, and the shared ``LMMS_COMPARATIVE_LLM`` fallback)."""
        env = self.judge_env("LMMS_COMPARATIVE_LLM")
        for benchmark in BENCHMARKS:
            for prefix in benchmark.llm_prefixes():
                env.update(self.judge_env(prefix))
        return env


# The settings prefix of the scoring call a request came from (``judge_env``), while a responder runs.
SCORING_CALL: contextvars.ContextVar[str | None] = contextvars.ContextVar("scoring_call", default=None)
_PREFIX = re.compile(r"^/([A-Z][A-Z0-9_]*)(/.*)$")


def _routed(path: str) -> tuple[str | None, str]:
    """(the scoring call's prefix or None, the path without it)."""
    found = _PREFIX.match(path)
    return (found.group(1), found.group(2)) if found else (None, path)


def _test_replies() -> dict[str, object]:
    """{settings prefix: the test reply its record gives} of every registered LLM scoring call."""
    return {c.setting: c.test_reply for b in BENCHMARKS for c in b.scoring_calls if c.kind == "llm" and c.test_reply}


def any_scorer(body: dict) -> str:
    """A usable reply for any registered benchmark's scoring call: the one its record gives test
    servers (``ScoringCall.test_reply``) for a request that came through the call's own settings
    (``judge_env``); else a letter for a prompt that lists lettered options (``question_reader``),
    else "Yes" (a judge asked whether a reply matches). Nothing here knows a benchmark's prompt."""
    text = message_text(body)
    reply = _test_replies().get(SCORING_CALL.get() or "")
    if reply is not None:
        return reply(text) if callable(reply) else str(reply)
    return question_reader(body) if re.search(r"^[A-Z]\. ", text, re.M) else "Yes"


def question_reader(body: dict) -> str:
    """A CaptionQA reader whose answer depends only on the question (right, wrong or unusable), so
    that two runs of the same captions get the same answers however the calls are ordered."""
    text = message_text(body)
    options = re.findall(r"^([A-Z])\. ", text, re.M)
    question = re.search(r"Question:\n(.*)\n", text)
    pick = sum(map(ord, question.group(1) if question else text)) % (len(options) + 1)
    return options[pick] if pick < len(options) else "unsure"
