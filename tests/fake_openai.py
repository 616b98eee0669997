"""A local OpenAI-compatible chat server on 127.0.0.1 for end-to-end tests.

Real HTTP, real JSON: lmms-eval's ``openai`` model (and our judge engine) talk to it exactly as
they would to vLLM or OpenAI. Each test gives it a ``responder``: a function from the request body
to the reply text. Every request body is recorded for assertions (images arrive as base64 data URLs).
"""

from __future__ import annotations

import base64
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from PIL import Image

Responder = Callable[[dict], "str | int"]  # reply text, or an HTTP error status to answer with


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


class FakeOpenAI:
    def __init__(self, responder: Responder):
        self.responder = responder
        self.requests: list[dict] = []
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                with server._lock:
                    server.requests.append(body)
                text = server.responder(body)
                if isinstance(text, int):
                    self._send(text, {"error": {"message": f"injected HTTP {text}", "type": "server_error"}})
                    return
                self._send(
                    200,
                    {
                        "id": f"chatcmpl-{len(server.requests)}",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                    },
                )

            def _send(self, status: int, obj: dict) -> None:
                payload = json.dumps(obj).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> "FakeOpenAI":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
