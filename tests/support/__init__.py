"""What the tests, the end-to-end tests and the benchmarks share to reach a real server.

- `ports`: a free local port, or one that stays free across a server's restarts.
- `server`: ``companion serve`` in a subprocess, as a person starts it: its environment, waiting
  until it answers, its log, and stopping or killing it (the whole process group).
- `http`: the one HTTP client (plain ``http.client``): one request, or a kept-alive connection.
- `sse`: a follower's ``/stream``, read event by event.
- `postgres`: a throwaway PostgreSQL server in a temporary directory.

Nothing here imports the app: a benchmark may use it against any running server.
"""
