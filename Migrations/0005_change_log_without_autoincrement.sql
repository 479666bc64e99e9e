-- `seq` without AUTOINCREMENT: its `sqlite_sequence` row cost one more page write on every commit.
-- Sequences still never repeat: pruning always keeps the newest commit record, so max(seq) never goes
-- down. A log pruned empty under the old rule gets one empty record (no table, no change) at the last
-- sequence it assigned, so that counting goes on from there.
CREATE TABLE _store_commits_new (
  seq             INTEGER PRIMARY KEY,
  committed_at    TEXT    NOT NULL,
  origin          TEXT,
  change_count    INTEGER NOT NULL,
  tables          TEXT    NOT NULL,   -- the tables touched, comma-separated, for cheap filtering
  schema_changed  INTEGER NOT NULL DEFAULT 0,
  payload         BLOB    NOT NULL    -- table header + row images (see ChangePayload.swift)
) STRICT;

INSERT INTO _store_commits_new SELECT * FROM _store_commits;

INSERT INTO _store_commits_new (seq, committed_at, origin, change_count, tables, schema_changed, payload)
SELECT seq, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), NULL, 0, '', 0, x'010000'
FROM sqlite_sequence
WHERE name = '_store_commits' AND seq > (SELECT coalesce(max(seq), 0) FROM _store_commits_new);

DROP TABLE _store_commits;
ALTER TABLE _store_commits_new RENAME TO _store_commits;
