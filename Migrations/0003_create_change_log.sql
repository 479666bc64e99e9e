-- The change log: one row per commit that changed rows (or the schema), written by the library in
-- the same transaction as the changes. `seq` is the store-wide, gap-free commit sequence
-- (AUTOINCREMENT: never reused, even after old rows are pruned).
CREATE TABLE _store_commits (
  seq             INTEGER PRIMARY KEY AUTOINCREMENT,
  committed_at    TEXT    NOT NULL,
  origin          TEXT,
  change_count    INTEGER NOT NULL,
  tables          TEXT    NOT NULL,   -- the tables touched, comma-separated, for cheap filtering
  schema_changed  INTEGER NOT NULL DEFAULT 0,
  payload         BLOB    NOT NULL    -- table header + row images (see ChangePayload.swift)
) STRICT;

-- Durable named listeners and their cursors (the last sequence each one acknowledged).
CREATE TABLE _store_listeners (
  name        TEXT    PRIMARY KEY NOT NULL,
  cursor_seq  INTEGER NOT NULL,
  updated_at  TEXT    NOT NULL
) STRICT;
