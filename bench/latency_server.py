"""An OpenAI-compatible chat server for bench scripts: every answer takes a fixed latency, and at
most ``--slots`` requests are served at once (like the batch slots of a vLLM or SGLang server), so
its capacity is exactly slots / latency requests per second.

    # prints its base URL, serves until stdin closes
    python bench/latency_server.py --latency 0.02 --slots 64 [--api-key KEY]

Answers "A" to everything. asyncio and aiohttp keep its own CPU cost small, so a client's
measured throughput reflects the client.

With ``--api-key`` it checks credentials as a real endpoint does: a request with another key gets
401. A request with no Authorization header is still served (upstream lmms-eval's captionqa
reader sends none, as the server its launcher starts expects) and counted apart, so a bench can
check that a client which should send the key did. ``GET /v1/stats`` returns the counts since the
last ``GET /v1/stats?reset=1``: requests answered, with the key, without one, refused, and the
number of distinct request bodies (a question sent twice shows as requests > distinct).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from aiohttp import web


def make_app(latency: float, slots: int, api_key: str | None = None) -> web.Application:
    limit = asyncio.Semaphore(slots)
    expected = f"Bearer {api_key}" if api_key else None
    stats = {"answered": 0, "with_key": 0, "without_key": 0, "refused": 0}
    bodies: set[int] = set()

    # One pre-encoded answer: the server reads the request body but does no per-request JSON work,
    # so its own CPU cost (which counts against the client's measured share) stays small.
    answer = json.dumps(
        {
            "id": "cmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": "bench",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "A"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()

    refusal = json.dumps(
        {"error": {"message": "Incorrect API key provided.", "type": "invalid_request_error"}}
    ).encode()

    async def completions(request: web.Request) -> web.Response:
        body = await request.read()
        auth = request.headers.get("Authorization")
        if expected is not None and auth is not None and auth != expected:
            stats["refused"] += 1
            return web.Response(status=401, body=refusal, content_type="application/json")
        async with limit:
            await asyncio.sleep(latency)
        stats["answered"] += 1
        stats["with_key" if auth is not None else "without_key"] += 1
        bodies.add(hash(body))
        return web.Response(body=answer, content_type="application/json")

    async def report(request: web.Request) -> web.Response:
        out = {**stats, "distinct_bodies": len(bodies)}
        if request.query.get("reset"):
            stats.update(dict.fromkeys(stats, 0))
            bodies.clear()
        return web.json_response(out)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    app.router.add_get("/v1/stats", report)
    return app


async def serve(latency: float, slots: int, api_key: str | None = None) -> None:
    runner = web.AppRunner(make_app(latency, slots, api_key), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"http://127.0.0.1:{port}/v1", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the parent closes stdin
    await runner.cleanup()


class LatencyServer:
    """Context manager for bench scripts: the server in a process of its own."""

    def __init__(self, latency: float, slots: int, api_key: str | None = None):
        self.args = ["--latency", str(latency), "--slots", str(slots)] + (["--api-key", api_key] if api_key else [])

    def __enter__(self) -> str:
        import subprocess

        self.proc = subprocess.Popen(
            [sys.executable, __file__, *self.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        return self.proc.stdout.readline().strip()

    def __exit__(self, *exc) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def server_stats(base_url: str, reset: bool = True) -> dict:
    """The server's counts since the last reset (and reset them)."""
    import urllib.request

    with urllib.request.urlopen(f"{base_url}/stats" + ("?reset=1" if reset else "")) as response:
        return json.loads(response.read())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--slots", type=int, default=64)
    parser.add_argument("--api-key", default=None)
    args = parser.parse_args()
    asyncio.run(serve(args.latency, args.slots, args.api_key))
