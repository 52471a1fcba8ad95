"""A follower's live stream (``GET /api/tables/<code>/stream``), read event by event as EventSource
reads it: comments and the ``retry`` line skipped, an event ending at its blank line."""

from __future__ import annotations

import http.client
import json

from tests.support.http import READ_SECONDS, address_of
from tests.support.ports import HOST


class Stream:
    """One follower: an open ``/stream`` response (``last_id``: the ``Last-Event-ID`` EventSource
    sends when it reconnects; ``address``: the follower's own local address)."""

    def __init__(
        self,
        server: int | str,
        code: str,
        last_id: str | None = None,
        address: str = HOST,
        timeout: float = READ_SECONDS,
    ):
        host, port = address_of(server)
        self.connection = http.client.HTTPConnection(host, port, timeout=timeout, source_address=(address, 0))
        headers = {"Accept": "text/event-stream"}
        if last_id is not None:
            headers["Last-Event-ID"] = last_id
        self.connection.request("GET", f"/api/tables/{code}/stream", headers=headers)
        self.response = self.connection.getresponse()

    def fields(self) -> dict[str, str]:
        """The fields of the next ``state`` event (``event``, ``id``, ``data``)."""
        fields: dict[str, str] = {}
        while True:
            line = self.response.readline()
            if not line:
                raise AssertionError("the stream ended before sending a state")
            line = line.decode().rstrip("\r\n")
            if line == "":
                if fields.get("event") == "state":
                    return fields
                fields = {}
            elif not line.startswith(":"):
                name, _, value = line.partition(":")
                fields[name] = value.removeprefix(" ")

    def next(self) -> dict:
        """The next ``state`` event as ``{"id", "answer"}`` (the answer: its data, parsed)."""
        fields = self.fields()
        return {"id": fields["id"], "answer": json.loads(fields["data"])}

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> Stream:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
