"""What the local test servers share: started with ``with``, stopped and closed on exit."""

from __future__ import annotations


class Loopback:
    """A server on 127.0.0.1 in a daemon thread (``self.httpd``, ``self.thread``), run by ``with``."""

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
