-- Marks the log rows that stand for a write the library did not make (the `sqlite3` shell, another
-- program): a library writer that finds the file changed by someone else since its own last commit,
-- with no log row or bookkeeping in between, logs one such row before its own, so that every process
-- and every durable listener sees the foreign write once, in its place in the sequence order.
ALTER TABLE _store_commits ADD COLUMN external INTEGER NOT NULL DEFAULT 0;
