"""Storage: the database rows, writing and reading a table, the group commit, the SQLite connection
and the migrations. Knows nothing of HTTP."""
