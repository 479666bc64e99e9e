-- A commit's changes may span several log rows, so that any transaction SQLite can commit can be logged
-- (a value longer than SQLITE_LIMIT_LENGTH cannot be stored) and read back in bounded pieces. The
-- `_store_commits` row keeps piece 0 (a small commit is written and read as before); pieces 1 to
-- piece_count - 1 are rows of `_store_commit_pieces`, written in the same transaction. Each piece's payload
-- is complete on its own (its own table header and change count; see ChangePayload.swift);
-- `_store_commits.change_count` and `tables` cover the whole commit.
ALTER TABLE _store_commits ADD COLUMN piece_count INTEGER NOT NULL DEFAULT 1;

CREATE TABLE _store_commit_pieces (
  seq           INTEGER NOT NULL,   -- the commit (_store_commits.seq)
  piece         INTEGER NOT NULL,   -- 1 to piece_count - 1
  change_count  INTEGER NOT NULL,
  payload       BLOB    NOT NULL,
  PRIMARY KEY (seq, piece)
) WITHOUT ROWID, STRICT;

-- A durable listener's cursor inside a commit of several pieces: the first `cursor_piece` pieces of commit
-- `cursor_seq + 1` are acknowledged (0: none; every commit up to `cursor_seq` is).
ALTER TABLE _store_listeners ADD COLUMN cursor_piece INTEGER NOT NULL DEFAULT 0;
