"""The one HTTP client of the tests and benchmarks: plain ``http.client``, JSON in and out.

A server is named by its port on 127.0.0.1 or by its base URL (``http://host:port``). `Client` keeps
one connection alive and makes it again after an error; `request` and `call` send one request on a
connection of their own; `api` is a call that must succeed. A body is sent as JSON unless it is
already ``bytes``. Every read waits at most its timeout: that bounds a broken server, it asserts
nothing about speed.
"""

from __future__ import annotations

import http.client
import json
import time
import urllib.parse
from dataclasses import dataclass
from typing import Any

from tests.support.ports import HOST

READ_SECONDS = 10


class NotSent(OSError):
    """No request went out: the connection was refused, reset or timed out before it was sent."""


class InDoubt(OSError):
    """The request went out but no whole answer came: the server may or may not have applied it."""


class StatusError(Exception):
    """An answer `api` did not want (400 or more)."""

    def __init__(self, method: str, path: str, answer: Answer):
        super().__init__(f"{method} {path}: {answer.status} {answer.body[:300]!r}")
        self.status = answer.status
        self.answer = answer


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    ms: float  # from sending the request to the answer's last byte

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


def address_of(server: int | str) -> tuple[str, int]:
    """(host, port) of a server named by its port on 127.0.0.1 or by its base URL."""
    if isinstance(server, int):
        return HOST, server
    parts = urllib.parse.urlsplit(server)
    return parts.hostname or HOST, parts.port or 80


class Client:
    """One kept-alive connection to a server (from ``address``, a local address of the client's own,
    if given), made again after any error. ``secret``: the bearer secret sent with every request."""

    def __init__(
        self,
        server: int | str,
        *,
        timeout: float = READ_SECONDS,
        address: str | None = None,
        secret: str | None = None,
    ):
        self.host, self.port = address_of(server)
        self.timeout = timeout
        self.source = None if address is None else (address, 0)
        self.secret = secret
        self.connection: http.client.HTTPConnection | None = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        secret: str | None = None,
        headers: dict | None = None,
    ) -> Answer:
        """Send one request and read its whole answer; `NotSent` or `InDoubt` when none came."""
        sent = {} if body is None or isinstance(body, bytes) else {"Content-Type": "application/json"}
        if secret or self.secret:
            sent["Authorization"] = f"Bearer {secret or self.secret}"
        sent.update(headers or {})
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        if self.connection is None:
            self.connection = http.client.HTTPConnection(
                self.host, self.port, timeout=self.timeout, source_address=self.source
            )
        start = time.perf_counter()
        try:
            self.connection.request(method, path, body=data, headers=sent)
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise NotSent(f"not sent: {error!r}") from error
        try:
            response = self.connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise InDoubt(f"no answer: {error!r}") from error
        ms = (time.perf_counter() - start) * 1e3
        if response.will_close:
            self.close()
        return Answer(response.status, dict(response.getheaders()), raw, ms)

    def call(self, method: str, path: str, body: Any = None, secret: str | None = None) -> tuple[int, Any]:
        """(status, the answer's JSON or None when it has no body)."""
        answer = self.request(method, path, body, secret=secret)
        return answer.status, answer.json()

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def request(
    server: int | str,
    method: str,
    path: str,
    body: Any = None,
    *,
    secret: str | None = None,
    headers: dict | None = None,
    address: str | None = None,
    timeout: float = READ_SECONDS,
) -> Answer:
    """One request on a connection of its own."""
    with Client(server, timeout=timeout, address=address) as client:
        return client.request(method, path, body, secret=secret, headers=headers)


def call(
    server: int | str, method: str, path: str, body: Any = None, secret: str | None = None, **options: Any
) -> tuple[int, Any]:
    """(status, JSON answer or None) of one request on a connection of its own (``options``: those
    of `request`)."""
    answer = request(server, method, path, body, secret=secret, **options)
    return answer.status, answer.json()


def api(
    server: int | str,
    path: str,
    body: Any = None,
    secret: str | None = None,
    method: str | None = None,
    timeout: float = READ_SECONDS,
) -> Any:
    """The JSON answer of a request that must succeed (a POST when it has a body, else a GET);
    `StatusError` otherwise."""
    method = method or ("GET" if body is None else "POST")
    answer = request(server, method, path, body, secret=secret, timeout=timeout)
    if answer.status >= 400:
        raise StatusError(method, path, answer)
    return answer.json()
