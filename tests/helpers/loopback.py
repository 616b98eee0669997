"""What the local test servers share: started with ``with``, stopped and closed on exit, and
their JSON replies."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler


def send_json(
    handler: BaseHTTPRequestHandler,
    status: int,
    obj,
    headers: dict | None = None,
    raw: bytes | None = None,
    body: bool = True,
) -> None:
    """Answer ``status`` with ``obj`` as JSON (or the bytes ``raw``), the extra ``headers``, and a
    body unless ``body`` is False (a HEAD request)."""
    payload = raw if raw is not None else json.dumps(obj).encode()
    handler.send_response(status)
    for name, value in (headers or {}).items():
        handler.send_header(name, value)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(payload)))
    handler.end_headers()
    if body:
        handler.wfile.write(payload)


class Loopback:
    """A server on 127.0.0.1 in a daemon thread (``self.httpd``, ``self.thread``), run by ``with``."""

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
