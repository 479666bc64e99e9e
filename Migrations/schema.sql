CREATE TABLE _store_commit_pieces (
  seq           INTEGER NOT NULL,   -- the commit (_store_commits.seq)
  piece         INTEGER NOT NULL,   -- 1 to piece_count - 1
  change_count  INTEGER NOT NULL,
  payload       BLOB    NOT NULL,
  PRIMARY KEY (seq, piece)
) WITHOUT ROWID, STRICT;

CREATE TABLE "_store_commits" (
  seq             INTEGER PRIMARY KEY,
  committed_at    TEXT    NOT NULL,
  origin          TEXT,
  change_count    INTEGER NOT NULL,
  tables          TEXT    NOT NULL,   -- the tables touched, comma-separated, for cheap filtering
  schema_changed  INTEGER NOT NULL DEFAULT 0,
  payload         BLOB    NOT NULL    -- table header + row images (see ChangePayload.swift)
, external INTEGER NOT NULL DEFAULT 0, piece_count INTEGER NOT NULL DEFAULT 1) STRICT;

CREATE TABLE _store_listeners (
  name        TEXT    PRIMARY KEY NOT NULL,
  cursor_seq  INTEGER NOT NULL,
  updated_at  TEXT    NOT NULL
, cursor_piece INTEGER NOT NULL DEFAULT 0) STRICT;

CREATE TABLE _store_meta (
  key    TEXT    PRIMARY KEY NOT NULL,
  value  INTEGER NOT NULL
) STRICT;

CREATE TABLE _store_migrations (
  set_name     TEXT    NOT NULL,
  version      INTEGER NOT NULL,
  name         TEXT    NOT NULL,
  checksum     TEXT    NOT NULL,
  applied_at   TEXT    NOT NULL,
  duration_ms  INTEGER NOT NULL,
  applied_by   TEXT    NOT NULL,
  PRIMARY KEY (set_name, version)
) STRICT;

CREATE TABLE nodes (
  id          INTEGER PRIMARY KEY,
  name        TEXT    NOT NULL,
  x           REAL    NOT NULL,
  y           REAL    NOT NULL,
  color       TEXT    NOT NULL DEFAULT '#4A90D9',
  width       REAL    NOT NULL DEFAULT 120 CHECK (width >= 0),
  height      REAL    NOT NULL DEFAULT 60 CHECK (height >= 0),
  created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

CREATE TABLE user_info (
  id          TEXT    PRIMARY KEY NOT NULL,
  name        TEXT    NOT NULL,
  hair_color  TEXT    DEFAULT NULL,
  created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;

CREATE INDEX nodes_updated_at ON nodes(updated_at);
