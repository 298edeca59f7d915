"""A real HTTP(S) server on 127.0.0.1 for tests, with the network's faults on demand.

Tests of retrieval need the real thing — sockets, keep-alive, a connection dropped mid-body, a
server that answers slowly — without sending a packet beyond this machine. ``NetServer`` is a
threaded stdlib server on an ephemeral loopback port with routes you register (static bodies,
statuses, delays, redirect chains and loops, Retry-After that succeeds after N attempts,
gzip/deflate/br, a gzip bomb, Content-Length lies, ETag/Last-Modified with 304, documents that
change, a directory of files), and a log of every request exactly as received.

``network_guard`` / the ``loopback_only`` fixture make any attempt to connect or resolve beyond
loopback fail the test, so a bug in the code under test cannot reach the internet.

It must never bind anything but loopback, and it stops by itself: at the end of the ``with`` or
fixture, and in any case after ``lifetime`` seconds.

    from netserver import NetServer, Reply, loopback_only, netserver  # fixtures import too

    def test_x(netserver):
        netserver.static("/a", b"hello", content_type="text/plain")
        ...fetch netserver.url("/a")...
        assert netserver.requests_to("/a")[0].header("user-agent").startswith("citeledger/")
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import hashlib
import ipaddress
import itertools
import mimetypes
import socket
import ssl
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from email.utils import format_datetime, parsedate_to_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Literal

import pytest

try:
    import brotli
except ImportError:  # pragma: no cover
    brotli = None

LOOPBACK = "127.0.0.1"


# ---------------------------------------------------------------------------------------------
# What the server sends and what it saw


@dataclass
class Reply:
    """One response. Defaults: 200, text/plain, an honest Content-Length."""

    status: int = 200
    body: bytes | Sequence[bytes] = b""  # a sequence is sent as separate writes (chunks)
    headers: Sequence[tuple[str, str]] = ()
    content_type: str | None = "text/plain; charset=utf-8"
    delay: float = 0.0  # seconds before the status line (a read timeout)
    chunk_delay: float = 0.0  # seconds between body chunks (a slow drip)
    content_length: int | Literal["auto"] | None = "auto"  # an int may lie; None: close-delimited
    drop_after: int | None = None  # drop the connection after this many body bytes
    chunked: bool = False  # Transfer-Encoding: chunked


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    method: str
    path: str  # with the query string
    headers: tuple[tuple[str, str], ...]
    body: bytes
    raw: bytes  # request line + header lines + body, as bytes on the wire
    connection: int  # which TCP connection carried it (1, 2, … in accept order)

    def header(self, name: str) -> str | None:
        name = name.lower()
        for k, v in self.headers:
            if k.lower() == name:
                return v
        return None

    @property
    def host(self) -> str:
        """The Host header's name, without the port."""
        value = self.header("host") or ""
        if value.startswith("["):
            return value[1 : value.index("]")]
        return value.rsplit(":", 1)[0] if ":" in value else value


Handler = Callable[[Seen], Reply]


# ---------------------------------------------------------------------------------------------
# Payloads


@functools.lru_cache(maxsize=4)
def gzip_bomb_bytes(size: int = 256 * 1024 * 1024) -> bytes:
    """A gzip stream of ``size`` zero bytes (256 MB → about 250 kB on the wire)."""
    comp = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    block = bytes(1 << 20)
    parts = [comp.compress(block) for _ in range(size >> 20)]
    parts.append(comp.compress(bytes(size & ((1 << 20) - 1))))
    parts.append(comp.flush())
    return b"".join(parts)


def encode(body: bytes, encoding: str) -> bytes:
    """Encode a body: ``gzip``, ``deflate`` (zlib), ``deflate-raw`` (raw deflate), ``br``."""
    if encoding == "gzip":
        comp = zlib.compressobj(6, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        return comp.compress(body) + comp.flush()
    if encoding == "deflate":
        return zlib.compress(body)
    if encoding == "deflate-raw":
        comp = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        return comp.compress(body) + comp.flush()
    if encoding == "br":
        if brotli is None:  # pragma: no cover
            raise RuntimeError("brotli is not installed")
        return bytes(brotli.compress(body))
    raise ValueError(encoding)


def http_date(when: _dt.datetime) -> str:
    return format_datetime(when.astimezone(_dt.timezone.utc), usegmt=True)


@dataclass
class Document:
    """A resource whose body a test may change; validators follow the body (for recheck)."""

    body: bytes
    content_type: str = "text/html; charset=utf-8"
    modified: _dt.datetime = field(
        default_factory=lambda: _dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=_dt.timezone.utc)
    )
    validators: bool = True
    gone: bool = False  # answer 410 from now on

    def update(self, body: bytes) -> None:
        self.body = body
        self.modified = self.modified + _dt.timedelta(days=1)

    @property
    def etag(self) -> str:
        return '"' + hashlib.sha256(self.body).hexdigest()[:16] + '"'

    @property
    def last_modified(self) -> str:
        return http_date(self.modified)

    def respond(self, req: Seen) -> Reply:
        if self.gone:
            return Reply(status=410, body=b"gone")
        if not self.validators:
            return Reply(body=self.body, content_type=self.content_type)
        validators = (("ETag", self.etag), ("Last-Modified", self.last_modified))
        inm = req.header("if-none-match")
        ims = req.header("if-modified-since")
        fresh = False
        if inm is not None:
            fresh = self.etag in [t.strip() for t in inm.split(",")] or inm.strip() == "*"
        elif ims is not None:
            try:
                fresh = self.modified <= parsedate_to_datetime(ims)
            except (TypeError, ValueError):
                fresh = False
        if fresh:
            return Reply(status=304, body=b"", headers=validators, content_type=None)
        return Reply(body=self.body, content_type=self.content_type, headers=validators)


# ---------------------------------------------------------------------------------------------
# TLS


@functools.lru_cache(maxsize=1)
def self_signed_cert() -> tuple[str, str]:
    """(cert.pem, key.pem) for localhost / 127.0.0.1, made once per test session."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = _dt.datetime.now(_dt.timezone.utc)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - _dt.timedelta(days=1))
        .not_valid_after(now + _dt.timedelta(days=2))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address(LOOPBACK))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    folder = Path(tempfile.mkdtemp(prefix="citeledger-netserver-"))
    cert_path, key_path = folder / "cert.pem", folder / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return str(cert_path), str(key_path)


# ---------------------------------------------------------------------------------------------
# The server


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    allow_reuse_address = True
    owner: NetServer

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = self.socket.accept()
        ctx = self.owner._tls
        if ctx is not None:
            sock = ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        return sock, addr

    def process_request(self, request: Any, client_address: Any) -> None:
        self.owner._opened(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        self.owner._closed(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that drops us, or refuses our certificate, is what tests provoke


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    timeout = 10  # an idle keep-alive connection is closed after this

    def setup(self) -> None:
        if isinstance(self.request, ssl.SSLSocket):
            self.request.settimeout(5)
            self.request.do_handshake()
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._serve()

    do_HEAD = do_GET
    do_POST = do_GET
    do_PUT = do_GET

    def _serve(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        header_lines = "".join(f"{k}: {v}\r\n" for k, v in self.headers.items())
        raw = self.raw_requestline + header_lines.encode("latin-1") + b"\r\n" + body
        seen = Seen(
            method=self.command,
            path=self.path,
            headers=tuple(self.headers.items()),
            body=body,
            raw=raw,
            connection=owner._connection_number(self.request),
        )
        owner._log(seen)
        with owner._in_flight(seen.host):
            reply = owner._dispatch(seen)
            self._send(reply)

    def _send(self, reply: Reply) -> None:
        stopping = self.server.owner._stopping
        if reply.delay and stopping.wait(reply.delay):
            return
        chunks = [reply.body] if isinstance(reply.body, bytes | bytearray) else list(reply.body)
        total = sum(len(c) for c in chunks)
        self.send_response(reply.status)
        names = {k.lower() for k, _ in reply.headers}
        if reply.content_type and "content-type" not in names:
            self.send_header("Content-Type", reply.content_type)
        lie = False
        if reply.chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif reply.content_length == "auto":
            if reply.status != 304 and "content-length" not in names:
                self.send_header("Content-Length", str(total))
        elif reply.content_length is None:
            self.send_header("Connection", "close")
            self.close_connection = True
        else:
            self.send_header("Content-Length", str(reply.content_length))
            lie = reply.content_length != total
        for k, v in reply.headers:
            self.send_header(k, v)
        self.end_headers()
        if self.command == "HEAD" or reply.status == 304:
            self.wfile.flush()
            return
        sent = 0
        for i, chunk in enumerate(chunks):
            if i and reply.chunk_delay and stopping.wait(reply.chunk_delay):
                return
            if reply.drop_after is not None and sent + len(chunk) >= reply.drop_after:
                self._write(chunk[: reply.drop_after - sent], reply.chunked)
                self._drop()
                return
            self._write(chunk, reply.chunked)
            sent += len(chunk)
        if reply.chunked:
            self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()
        if lie or reply.drop_after is not None:
            self._drop()

    def _write(self, chunk: bytes, chunked: bool) -> None:
        if not chunk:
            return
        if chunked:
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
        else:
            self.wfile.write(chunk)
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)


class NetServer:
    """A loopback HTTP(S) server with registered routes and a request log.

    Use as a context manager or through the ``netserver`` fixture. Unknown paths get 404.
    """

    def __init__(self, *, tls: bool = False, lifetime: float = 120.0) -> None:
        self.tls = tls
        self.lifetime = lifetime
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._exact: dict[str, Reply | Handler] = {}
        self._prefix: list[tuple[str, Reply | Handler]] = []
        self._log_list: list[Seen] = []
        self._sockets: dict[int, tuple[int, Any]] = {}  # id(sock) -> (number, sock)
        self._connections = 0
        self._active: dict[str, int] = {}
        self._max_active: dict[str, int] = {}
        self._max_total = 0
        self._total = 0
        self._tls: ssl.SSLContext | None = None
        self.cert_file: str | None = None
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None

    # lifecycle ------------------------------------------------------------------------------

    def start(self) -> NetServer:
        if self.tls:
            cert, key = self_signed_cert()
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(cert, key)
            self._tls, self.cert_file = ctx, cert
        httpd = _Server((LOOPBACK, 0), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        self._timer = threading.Timer(self.lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            socks = [s for _, s in self._sockets.values()]
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> NetServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # addresses ------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    @property
    def scheme(self) -> str:
        return "https" if self.tls else "http"

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://{LOOPBACK}:{self.port}"

    def url(self, path: str = "/", host: str | None = None) -> str:
        """Absolute URL of ``path``; ``host`` puts a name in it (resolve it with a stub)."""
        return f"{self.scheme}://{host or LOOPBACK}:{self.port}{path}"

    # routes ---------------------------------------------------------------------------------

    def route(self, path: str, reply: Reply | Handler, *, prefix: bool = False) -> str:
        """Answer ``path`` (exactly, or every path under it with ``prefix``) with a reply or
        handler; returns the path so calls chain into URLs."""
        with self._lock:
            if prefix:  # registering a prefix again replaces it
                self._prefix = [(p, r) for p, r in self._prefix if p != path]
                self._prefix.append((path, reply))
                self._prefix.sort(key=lambda item: -len(item[0]))
            else:
                self._exact[path] = reply
        return path

    def static(
        self,
        path: str,
        body: bytes,
        *,
        content_type: str | None = "text/html; charset=utf-8",
        status: int = 200,
        headers: Sequence[tuple[str, str]] = (),
    ) -> str:
        return self.route(path, Reply(status, body, headers, content_type))

    def status(self, path: str, code: int, headers: Sequence[tuple[str, str]] = ()) -> str:
        return self.route(path, Reply(code, f"HTTP {code}".encode(), headers))

    def delay(self, path: str, seconds: float, body: bytes = b"late") -> str:
        """Say nothing for ``seconds`` before answering (a read timeout)."""
        return self.route(path, Reply(body=body, delay=seconds))

    def drip(self, path: str, chunks: Sequence[bytes], interval: float) -> str:
        """Send the body in pieces, ``interval`` seconds apart (slow, but never idle)."""
        total = sum(len(c) for c in chunks)
        return self.route(
            path, Reply(body=list(chunks), chunk_delay=interval, content_length=total)
        )

    def redirect(self, path: str, to: str, status: int = 302) -> str:
        """Redirect to ``to`` (a path on this server or an absolute URL)."""
        return self.route(path, Reply(status, b"", [("Location", to)], None))

    def redirect_chain(self, path: str, hops: int, final: Reply | bytes = b"arrived") -> str:
        """``path`` → ``path/1`` → … → ``path/hops`` which answers ``final``; returns its path."""
        names = [path] + [f"{path}/{i}" for i in range(1, hops + 1)]
        for here, there in itertools.pairwise(names):
            self.redirect(here, there, status=301)
        end = final if isinstance(final, Reply) else Reply(body=final)
        return self.route(names[-1], end)

    def redirect_loop(self, a: str, b: str) -> str:
        self.redirect(a, b)
        self.redirect(b, a)
        return a

    def flaky(
        self,
        path: str,
        *,
        fail: int = 503,
        times: int = 2,
        retry_after: str | None = "0",
        then: Reply | bytes = b"finally",
    ) -> str:
        """Answer ``fail`` (with Retry-After) ``times`` times, then ``then``."""
        count = [0]
        end = then if isinstance(then, Reply) else Reply(body=then)
        headers = [("Retry-After", retry_after)] if retry_after is not None else []

        def handler(req: Seen) -> Reply:
            with self._lock:
                count[0] += 1
                n = count[0]
            if n <= times:
                return Reply(fail, f"HTTP {fail}".encode(), headers)
            return end

        return self.route(path, handler)

    def encoded(
        self,
        path: str,
        body: bytes,
        encoding: str | Sequence[str],
        *,
        content_type: str = "text/html; charset=utf-8",
    ) -> str:
        """Serve ``body`` content-encoded (several encodings are applied in order)."""
        names = [encoding] if isinstance(encoding, str) else list(encoding)
        data = body
        for name in names:
            data = encode(data, name)
        label = ", ".join("deflate" if n == "deflate-raw" else n for n in names)
        return self.route(
            path, Reply(body=data, headers=[("Content-Encoding", label)], content_type=content_type)
        )

    def gzip_bomb(self, path: str, size: int = 256 * 1024 * 1024) -> str:
        """A small gzip body that inflates to ``size`` zero bytes."""
        data = gzip_bomb_bytes(size)
        return self.route(
            path,
            Reply(body=data, headers=[("Content-Encoding", "gzip")], content_type="text/html"),
        )

    def truncated(self, path: str, body: bytes, claimed: int) -> str:
        """Announce ``claimed`` bytes, send ``body``, then drop the connection."""
        return self.route(path, Reply(body=body, content_length=claimed))

    def document(self, path: str, body: bytes, **kw: Any) -> Document:
        """A changeable resource with ETag/Last-Modified and 304 answers; change ``.update()``."""
        doc = Document(body, **kw)
        self.route(path, doc.respond)
        return doc

    def changing(
        self, path: str, bodies: Sequence[bytes], content_type: str = "text/html; charset=utf-8"
    ) -> str:
        """The n-th request gets ``bodies[n]`` (the last one thereafter)."""
        count = [0]

        def handler(req: Seen) -> Reply:
            with self._lock:
                n = count[0]
                count[0] += 1
            return Reply(body=bodies[min(n, len(bodies) - 1)], content_type=content_type)

        return self.route(path, handler)

    def barrier(self, path: str, parties: int, reply: Reply, timeout: float = 2.0) -> str:
        """Hold requests until ``parties`` have arrived (in generations), then answer each.

        Makes "the client had N requests in flight" observable without timing: with a client
        limit of N the generation fills at once; above it, the server would see more.
        """
        cond = threading.Condition()
        arrived = [0]

        def handler(req: Seen) -> Reply:
            with cond:
                arrived[0] += 1
                target = ((arrived[0] - 1) // parties + 1) * parties
                cond.notify_all()
                cond.wait_for(lambda: arrived[0] >= target or self._stopping.is_set(), timeout)
            return reply

        return self.route(path, handler)

    def serve_directory(self, prefix: str, directory: str | Path) -> str:
        """Serve files under ``directory`` at ``prefix/…`` (the corpus), never outside it."""
        root = Path(directory).resolve()
        base = prefix.rstrip("/")

        def handler(req: Seen) -> Reply:
            rel = req.path.split("?", 1)[0][len(base) :].lstrip("/")
            target = (root / rel).resolve()
            if not target.is_relative_to(root) or not target.is_file():
                return Reply(404, b"no such file")
            ctype, _ = mimetypes.guess_type(target.name)
            return Reply(body=target.read_bytes(), content_type=ctype or "application/octet-stream")

        return self.route(base + "/", handler, prefix=True)

    # observation ----------------------------------------------------------------------------

    @property
    def requests(self) -> list[Seen]:
        with self._lock:
            return list(self._log_list)

    def requests_to(self, path: str) -> list[Seen]:
        return [r for r in self.requests if r.path.split("?", 1)[0] == path]

    def clear_log(self) -> None:
        with self._lock:
            self._log_list.clear()

    @property
    def connections(self) -> int:
        """TCP connections accepted so far."""
        with self._lock:
            return self._connections

    def max_in_flight(self, host: str | None = None) -> int:
        """Most requests handled at once, for one Host (name without port) or overall."""
        with self._lock:
            return self._max_total if host is None else self._max_active.get(host, 0)

    # internals ------------------------------------------------------------------------------

    def _dispatch(self, seen: Seen) -> Reply:
        path = seen.path.split("?", 1)[0]
        with self._lock:
            target = self._exact.get(path)
            if target is None:
                target = next((r for p, r in self._prefix if path.startswith(p)), None)
        if target is None:
            return Reply(404, b"no route")
        return target if isinstance(target, Reply) else target(seen)

    def _log(self, seen: Seen) -> None:
        with self._lock:
            self._log_list.append(seen)

    def _opened(self, sock: Any) -> None:
        with self._lock:
            self._connections += 1
            self._sockets[id(sock)] = (self._connections, sock)

    def _closed(self, sock: Any) -> None:
        with self._lock:
            self._sockets.pop(id(sock), None)

    def _connection_number(self, sock: Any) -> int:
        with self._lock:
            return self._sockets.get(id(sock), (0, None))[0]

    @contextlib.contextmanager
    def _in_flight(self, host: str) -> Iterator[None]:
        with self._lock:
            self._active[host] = self._active.get(host, 0) + 1
            self._total += 1
            self._max_active[host] = max(self._max_active.get(host, 0), self._active[host])
            self._max_total = max(self._max_total, self._total)
        try:
            yield
        finally:
            with self._lock:
                self._active[host] -= 1
                self._total -= 1


@contextlib.contextmanager
def unaccepting_port() -> Iterator[int]:
    """A loopback port whose accept queue is full: connecting to it hangs (a connect timeout)."""
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    fillers: list[socket.socket] = []
    try:
        listener.bind((LOOPBACK, 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        for _ in range(3):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setblocking(False)
            with contextlib.suppress(BlockingIOError, OSError):
                s.connect((LOOPBACK, port))
            fillers.append(s)
        yield port
    finally:
        for s in fillers:
            s.close()
        listener.close()


# ---------------------------------------------------------------------------------------------
# Keeping tests on this machine


def _loopback(host: Any) -> bool:
    if host is None:
        return False
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    text = str(host).strip("[]").split("%", 1)[0]
    if text in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(text).is_loopback
    except ValueError:
        return False


class NetworkGuard:
    """Refuse (and record) every connect or name lookup that is not loopback."""

    def __init__(self) -> None:
        self.escapes: list[str] = []
        self._saved: list[tuple[Any, str, Any]] = []

    def __enter__(self) -> NetworkGuard:
        guard = self
        real_connect = socket.socket.connect
        real_connect_ex = socket.socket.connect_ex
        real_getaddrinfo = socket.getaddrinfo

        def allowed(sock: socket.socket, address: Any) -> bool:
            if sock.family not in (socket.AF_INET, socket.AF_INET6):
                return True
            return isinstance(address, tuple) and _loopback(address[0])

        def connect(sock: socket.socket, address: Any) -> Any:
            if not allowed(sock, address):
                guard.escapes.append(f"connect {address!r}")
                raise PermissionError(f"network guard: test tried to connect to {address!r}")
            return real_connect(sock, address)

        def connect_ex(sock: socket.socket, address: Any) -> Any:
            if not allowed(sock, address):
                guard.escapes.append(f"connect {address!r}")
                raise PermissionError(f"network guard: test tried to connect to {address!r}")
            return real_connect_ex(sock, address)

        def getaddrinfo(host: Any, *args: Any, **kw: Any) -> Any:
            if host is not None and not _loopback(host):
                guard.escapes.append(f"resolve {host!r}")
                raise socket.gaierror(socket.EAI_NONAME, f"network guard: resolve {host!r}")
            return real_getaddrinfo(host, *args, **kw)

        for owner, name, new in (
            (socket.socket, "connect", connect),
            (socket.socket, "connect_ex", connect_ex),
            (socket, "getaddrinfo", getaddrinfo),
        ):
            self._saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, new)
        return self

    def __exit__(self, *exc: object) -> None:
        for owner, name, old in reversed(self._saved):
            setattr(owner, name, old)
        self._saved.clear()


network_guard = NetworkGuard


@pytest.fixture
def loopback_only() -> Iterator[NetworkGuard]:
    """Fail the test if anything tried to leave loopback (and refuse it when it tries)."""
    with NetworkGuard() as guard:
        yield guard
    assert not guard.escapes, f"network escape attempted: {guard.escapes}"


@pytest.fixture
def netserver() -> Iterator[NetServer]:
    with NetServer() as server:
        yield server


@pytest.fixture
def tls_netserver() -> Iterator[NetServer]:
    with NetServer(tls=True) as server:
        yield server


# ---------------------------------------------------------------------------------------------
# Pointing names at the server without DNS (for code that takes an injectable resolver)


class StubResolver:
    """``async (host, port) -> [ip…]`` from a table; unknown names raise ``socket.gaierror``.

    A value may be an IP, a list of IPs, an exception to raise, or a callable of the call count
    (for answers that change between lookups, as in DNS rebinding). ``calls`` logs the names.
    """

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        answer = self.answers.get(host)
        if callable(answer):
            answer = answer(self.calls.count(host))
        if answer is None:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        if isinstance(answer, BaseException):
            raise answer
        return [answer] if isinstance(answer, str) else list(answer)


class StandInBackend:
    """An httpcore network backend that dials the loopback server whatever IP it is asked for.

    Lets a test give a name a *public* address (so the address check passes) while the bytes
    still go to 127.0.0.1; ``dialled`` records the (ip, port) the code under test asked for.
    With ``network_guard`` active, a bug that bypassed this backend still could not leave.
    """

    def __init__(self) -> None:
        import httpcore

        self._inner = httpcore.AnyIOBackend()
        self.dialled: list[tuple[str, int]] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> Any:
        self.dialled.append((host, port))
        return await self._inner.connect_tcp(
            LOOPBACK,
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(self, *a: Any, **kw: Any) -> Any:  # pragma: no cover
        raise OSError("no unix sockets here")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
