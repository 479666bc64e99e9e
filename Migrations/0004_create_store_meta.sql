-- Bookkeeping the library shares between processes. `bookkeeping` counts the library's own writes that
-- produce no change-log row (durable listener cursors, log pruning), so that a process which sees the
-- file change with no new log row can tell them from a foreign writer's changes.
CREATE TABLE _store_meta (
  key    TEXT    PRIMARY KEY NOT NULL,
  value  INTEGER NOT NULL
) STRICT;

INSERT INTO _store_meta (key, value) VALUES ('bookkeeping', 0);
