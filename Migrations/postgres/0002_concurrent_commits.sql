-- Commits that do not wait for each other (docs/POSTGRES.md, "Change capture and the sequence"). At COMMIT a
-- transaction only takes a ticket (the next value of a plain sequence, no lock held past the call); gap-free
-- sequence numbers are given afterwards, in ticket order, to committed commits, by one stamper at a time: whoever
-- gets the stamp lock without waiting (a committing writer, the library right after its COMMIT, a feed's poll).
-- One NOTIFY per stamped batch. Applied by the migrator in one transaction, under pg_advisory_xact_lock; a
-- transaction of the 0001 scheme still open when this commits runs the new stamp at its COMMIT.

-- The ticket: taken at COMMIT, after every write of the transaction; its order is a commit order.
CREATE SEQUENCE _store_ticket AS bigint;
ALTER TABLE _store_commits ADD COLUMN ticket bigint;
-- The commits waiting for their sequence number (committed ones have a ticket; open ones none yet).
CREATE INDEX _store_commits_unstamped ON _store_commits (ticket) WHERE seq IS NULL;

-- Numbers every committed, unstamped commit after the head, in ticket order, then `own` (the committing transaction's
-- row, when it stamps at its own COMMIT: no ticket yet) after them, taking its ticket and its summary in the same
-- update; moves the head and rings the doorbell once; returns how many it numbered. The caller holds the stamp lock
-- (_store_stamp_lock()), so stampers run one at a time and their numbers become visible as a prefix (the lock is
-- released only once the stamper's commit is visible). It never numbers a commit that has not committed: an open
-- transaction's row is invisible here. A commit that takes a lower ticket but commits after a stamper ran is
-- numbered by a later stamper, after the ones numbered now: no dependency can run against that order (a commit that
-- waited for another's lock or read its rows took its ticket after that one had committed).
CREATE FUNCTION _store_number_commits(own xid8 DEFAULT NULL) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  head bigint;
  numbered bigint;
BEGIN
  SELECT seq INTO head FROM _store_head WHERE id = 1;
  WITH waiting AS (
    SELECT txid, row_number() OVER (ORDER BY ticket) AS n
      FROM _store_commits WHERE seq IS NULL AND ticket IS NOT NULL)
  UPDATE _store_commits c SET seq = head + w.n FROM waiting w WHERE c.txid = w.txid;
  GET DIAGNOSTICS numbered = ROW_COUNT;
  IF own IS NOT NULL THEN
    numbered := numbered + 1;
    PERFORM _store_summarize(own, head + numbered);
  END IF;
  IF numbered > 0 THEN
    UPDATE _store_head SET seq = head + numbered WHERE id = 1;
    PERFORM pg_notify('observable_store', (head + numbered)::text);
  END IF;
  RETURN numbered;
END;
$$;

-- At COMMIT: commit row `own` takes its ticket and its summary (committed_at, change_count, tables), and sequence
-- number `seq` when its own COMMIT stamps it (NULL: a stamper numbers it later).
CREATE FUNCTION _store_summarize(own xid8, number bigint) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE _store_commits c
     SET ticket = nextval('_store_ticket'),
         seq = number,
         committed_at = date_trunc('milliseconds', clock_timestamp()),
         change_count = s.n,
         tables = s.tables
    FROM (SELECT count(*)::int AS n, coalesce(string_agg(DISTINCT tbl, ',' ORDER BY tbl), '') AS tables
            FROM _store_changes WHERE txid = own) s
   WHERE c.txid = own;
END;
$$;

-- The stamp lock, for the rest of the current transaction, when it is free: true when taken. A committing writer only
-- ever tries it.
CREATE FUNCTION _store_stamp_lock() RETURNS boolean LANGUAGE sql AS $$
  SELECT pg_try_advisory_xact_lock(6004511418195660112);  -- 'STORSTMP'
$$;

-- Waits until the session holding the stamp lock has ended its transaction (its numbers are then visible), without
-- keeping the lock: a shared request waits only for the holder, and the subtransaction it is taken in is rolled back
-- at once, which gives it back (also when the wait is cancelled: nothing can stay held). Every session waiting for
-- the same stamper wakes at once.
CREATE FUNCTION _store_await_stamper() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  BEGIN
    PERFORM pg_advisory_xact_lock_shared(6004511418195660112);
    RAISE EXCEPTION USING ERRCODE = 'OSAWT', MESSAGE = 'the stamper ended';
  EXCEPTION WHEN SQLSTATE 'OSAWT' THEN
    NULL;
  END;
END;
$$;

-- At COMMIT (the deferred constraint trigger of 0001, once per writing transaction): the transaction id for
-- _store_settle() in this session; the commit's ticket and summary; and, when the stamp lock is free and the
-- transaction is READ COMMITTED, its number too, in the same update, after every commit waiting before it (one
-- flush for a lone writer, and no more row versions than the first scheme). A REPEATABLE READ or SERIALIZABLE
-- writer never stamps here: its snapshot would not see the last stamper's head.
CREATE OR REPLACE FUNCTION _store_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('observable_store.committed', NEW.txid::text, false);
  IF current_setting('transaction_isolation') = 'read committed' AND _store_stamp_lock() THEN
    PERFORM _store_number_commits(NEW.txid);
  ELSE
    PERFORM _store_summarize(NEW.txid, NULL);
  END IF;
  RETURN NULL;
END;
$$;

-- Opens the current transaction's commit row (once), carrying its origin; refuses a change made after the stamp
-- fired early (SET CONSTRAINTS ALL IMMEDIATE before COMMIT): the ticket would no longer follow every write of the
-- transaction, and ticket order would no longer be a commit order.
CREATE OR REPLACE FUNCTION _store_open_commit() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO _store_commits (txid, origin)
  VALUES (pg_current_xact_id(), nullif(current_setting('observable_store.origin', true), ''))
  ON CONFLICT (txid) DO NOTHING;
  IF NOT FOUND AND EXISTS (SELECT 1 FROM _store_commits WHERE txid = pg_current_xact_id() AND ticket IS NOT NULL) THEN
    RAISE EXCEPTION 'a captured change after the commit stamp fired (SET CONSTRAINTS ALL IMMEDIATE): make every change before it'
      USING ERRCODE = 'object_not_in_prerequisite_state';
  END IF;
END;
$$;

-- A feed's poll: numbers what is waiting when the stamp lock is free, then returns the head (the last sequence number
-- given) as this session now sees it.
CREATE FUNCTION _store_stamp_waiting() RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  IF _store_stamp_lock() THEN PERFORM _store_number_commits(); END IF;
  RETURN (SELECT seq FROM _store_head WHERE id = 1);
END;
$$;

-- The sequence numbers of the committed transactions `txids`, numbering them first if they are still waiting. When
-- the stamp lock is free, this session numbers every waiting commit. When it is taken, the session waits for that
-- stamper to end and looks again: most find their commits in its batch. Those still waiting queue for the lock, and
-- look again once they hold it (the first of them numbered the others'), so only one of them writes.
CREATE FUNCTION _store_sequences_of(txids xid8[]) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM _store_commits WHERE txid = ANY(txids) AND seq IS NULL) THEN
    IF NOT _store_stamp_lock() THEN
      PERFORM _store_await_stamper();
      IF EXISTS (SELECT 1 FROM _store_commits WHERE txid = ANY(txids) AND seq IS NULL) THEN
        PERFORM pg_advisory_xact_lock(6004511418195660112);
      END IF;
    END IF;
    IF EXISTS (SELECT 1 FROM _store_commits WHERE txid = ANY(txids) AND seq IS NULL) THEN
      PERFORM _store_number_commits();
    END IF;
  END IF;
  RETURN QUERY SELECT seq FROM _store_commits WHERE txid = ANY(txids) AND seq IS NOT NULL ORDER BY seq;
END;
$$;

-- Right after a COMMIT, in the same session: the sequence number of the commit this session just made (numbering it
-- first if it is still waiting), or NULL when that transaction logged no change. Forgets it, so that the next call
-- answers for the next commit only.
CREATE FUNCTION _store_settle() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  own xid8 := nullif(current_setting('observable_store.committed', true), '')::xid8;
BEGIN
  IF own IS NULL THEN RETURN NULL; END IF;
  PERFORM set_config('observable_store.committed', '', false);
  RETURN (SELECT s FROM _store_sequences_of(ARRAY[own]) s);
END;
$$;
