"""The preview's HTTP server: requests in, the served page, the event stream, the PDF and the
built files out. It binds 127.0.0.1 only, and answers only requests addressed to it there.

Routes: `/` (and `/index.html`) the page as `page.served_page` makes it; `page.EVENTS` a stream
of Server-Sent Events that announces each new version with a `reload` event; `/article.pdf` and
`/metrics.json` made from the last page that built when first asked for; any other path a file
of the site folder, named by plain segments (no `..`, `.`, empty, hidden or backslashed segment:
such a path is not found) and read through `fileio.open_input` confined to the site folder. A
request whose Host header names another host (a page elsewhere that had its name resolve to
127.0.0.1) is refused.
"""

from __future__ import annotations

import errno
import mimetypes
import os
import sys
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from reportgen.errors import InputError, whole_file
from reportgen.fileio import open_input
from reportgen.serve.page import EVENTS, error_page, served_page
from reportgen.serve.preview import MADE_ON_REQUEST, PAGE, Preview

LOOPBACK = "127.0.0.1"  # the only address the preview listens on
DEFAULT_PORT = 8000
PORT_TRIES = 10  # a busy port: the next ones are tried, this many in all
KEEPALIVE_S = 15.0  # an idle event stream sends a comment this often, to notice a closed page
FIRST_BUILD_S = 120.0  # how long a request waits for the first build
_CHUNK = 1 << 16
RETRY_MS = 300  # how soon a browser reconnects to the event stream after the server restarts


def site_path(url_path: str) -> tuple[str, ...] | None:
    """The segments of a request's path inside the site folder, or None when the path could
    lead anywhere else or to a file the preview never serves."""
    path = unquote(url_path)
    if not path.startswith("/"):
        return None
    parts = tuple(path[1:].split("/"))
    for part in parts:
        if not part or part.startswith(".") or "\\" in part or "\0" in part:
            return None  # "..", ".", "//", hidden files (a file being written is hidden)
    return parts


class PreviewServer(ThreadingHTTPServer):
    """A threading HTTP server on 127.0.0.1 that serves one `Preview`."""

    daemon_threads = True  # an open event stream never holds up the exit

    def __init__(self, port: int, preview: Preview) -> None:
        self.preview = preview
        self._serving = False
        super().__init__((LOOPBACK, port), Handler)

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.server_address[1])

    @property
    def url(self) -> str:
        """The page's address."""
        return f"http://{LOOPBACK}:{self.port}/"

    def serve_forever(self, poll_interval: float = 0.25) -> None:
        """Answer requests until `stop` (from another thread) or an exception."""
        self._serving = True
        try:
            super().serve_forever(poll_interval)
        finally:
            self._serving = False

    def stop(self) -> None:
        """Stop answering, from any thread, and close the socket."""
        if self._serving:
            self.shutdown()
        self.server_close()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A browser that went away mid-answer is no error; anything else is reported as usual."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


def bind(preview: Preview, port: int = DEFAULT_PORT, tries: int = PORT_TRIES) -> PreviewServer:
    """A server for `preview` on 127.0.0.1 at `port`, or the first free port of the `tries`
    from it (`port` 0: any free port); `InputError` when all are in use."""
    last = port if port == 0 else min(port + tries - 1, 65535)
    for candidate in range(port, last + 1):
        try:
            return PreviewServer(candidate, preview)
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
    span = f"port {port} is" if last == port else f"ports {port} to {last} are"
    raise InputError(
        [whole_file("--port", f"{span} in use on {LOOPBACK}; choose another with --port")]
    )


def _content_type(name: str) -> str:
    kind = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return f"{kind}; charset=utf-8" if kind.startswith("text/") or kind.endswith("json") else kind


class Handler(BaseHTTPRequestHandler):
    """One request to the preview (see the module docstring for the routes)."""

    server: PreviewServer
    server_version = "reportgen-serve"

    def log_message(self, format: str, *args: Any) -> None:
        """Requests are not logged: the terminal shows the rebuilds."""

    def do_GET(self) -> None:
        """Answer a GET."""
        self._answer(body=True)

    def do_HEAD(self) -> None:
        """Answer a HEAD: the GET's headers."""
        self._answer(body=False)

    def _answer(self, body: bool) -> None:
        if not self._addressed_here():
            message = f"reportgen serve answers at {self.server.url} only\n"
            self._send(HTTPStatus.FORBIDDEN, message.encode(), "text/plain; charset=utf-8", body)
            return
        url = urlsplit(self.path)
        if url.path == EVENTS:
            self._events(url.query)
        elif url.path in ("/", f"/{PAGE}"):
            self._page(body)
        elif url.path[1:] in MADE_ON_REQUEST:
            self._made(url.path[1:], body)
        else:
            self._file(site_path(url.path), body)

    def _addressed_here(self) -> bool:
        host = self.headers.get("Host")
        port = self.server.port
        return host is None or host in (f"{LOOPBACK}:{port}", f"localhost:{port}")

    def _send(self, status: HTTPStatus, data: bytes, kind: str, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.end_headers()
        if body:
            self.wfile.write(data)

    def _page(self, body: bool) -> None:
        preview = self.server.preview
        preview.wait(0, FIRST_BUILD_S)  # the first build, if it is still running
        page, state = preview.page()
        served = served_page(page, state, preview.session)
        self._send(HTTPStatus.OK, served, "text/html; charset=utf-8", body)

    def _made(self, name: str, body: bool) -> None:
        preview = self.server.preview
        preview.wait(0, FIRST_BUILD_S)
        try:
            path = preview.made(name)
        except InputError as exc:
            note = f"{name} is made from the last page that built; fix the article and reload."
            data = error_page(f"{name} could not be made", note, tuple(exc.problems))
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, data, "text/html; charset=utf-8", body)
            return
        self._file((path.name,), body)

    def _file(self, parts: tuple[str, ...] | None, body: bool) -> None:
        site = self.server.preview.site
        try:
            if parts is None:
                raise InputError([whole_file(self.path, "not a file of the preview")])
            handle = open_input(site.joinpath(*parts), "run", inside=site)
        except InputError:
            self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain; charset=utf-8", body)
            return
        with handle:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", _content_type(parts[-1]))
            self.send_header("Content-Length", str(os.fstat(handle.fileno()).st_size))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            while body and (chunk := handle.read(_CHUNK)):
                self.wfile.write(chunk)

    def _served_at(self, query: str) -> int:
        """The version the page that opens the event stream was served at: -1 for a page of an
        earlier preview (so that it reloads at once), the current one when it does not say."""
        preview = self.server.preview
        asked = parse_qs(query)
        if asked.get("session", [""])[0] != preview.session:
            return -1
        after = asked.get("after", [""])[0]
        return int(after) if after.isdigit() else preview.state.version

    def _events(self, query: str) -> None:
        preview = self.server.preview
        after = self._served_at(query)
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(f"retry: {RETRY_MS}\n\n".encode())
        self.wfile.flush()
        while not preview.closed:
            version = preview.wait(after, KEEPALIVE_S)
            if preview.closed:
                break
            if version > after:
                self.wfile.write(f"id: {version}\nevent: reload\ndata: {version}\n\n".encode())
                after = version
            else:
                self.wfile.write(b": waiting\n\n")  # a closed page shows as a failed write
            self.wfile.flush()
