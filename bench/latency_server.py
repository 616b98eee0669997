"""An OpenAI-compatible chat server for bench scripts: every answer takes a fixed latency, and at
most ``--slots`` requests are served at once (like the batch slots of a vLLM or SGLang server), so
its capacity is exactly slots / latency requests per second.

    python bench/latency_server.py --latency 0.02 --slots 64     # prints its base URL, serves until stdin closes

Answers "A" to everything. asyncio and aiohttp keep its own CPU cost small, so a client's
measured throughput reflects the client.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from aiohttp import web


def make_app(latency: float, slots: int) -> web.Application:
    limit = asyncio.Semaphore(slots)
    counter = {"n": 0}

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

    async def completions(request: web.Request) -> web.Response:
        await request.read()
        async with limit:
            await asyncio.sleep(latency)
        counter["n"] += 1
        return web.Response(body=answer, content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/chat/completions", completions)
    return app


async def serve(latency: float, slots: int) -> None:
    runner = web.AppRunner(make_app(latency, slots), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, backlog=1024)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]
    print(f"http://127.0.0.1:{port}/v1", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until the parent closes stdin
    await runner.cleanup()


class LatencyServer:
    """Context manager for bench scripts: the server in a process of its own."""

    def __init__(self, latency: float, slots: int):
        self.args = ["--latency", str(latency), "--slots", str(slots)]

    def __enter__(self) -> str:
        import subprocess

        self.proc = subprocess.Popen([sys.executable, __file__, *self.args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        return self.proc.stdout.readline().strip()

    def __exit__(self, *exc) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.02)
    parser.add_argument("--slots", type=int, default=64)
    args = parser.parse_args()
    asyncio.run(serve(args.latency, args.slots))
