-- Statement-level capture of INSERT and DELETE, with the whole row named so that no column can shadow it: a captured
-- table with a column named like the row's alias (`r` before) logged that column's value instead of the row. A
-- qualified `alias.*` is always the whole row.
CREATE OR REPLACE FUNCTION _store_capture_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO _store_changes (txid, tbl, op, new_row)
      SELECT pg_current_xact_id(), TG_TABLE_NAME, 'I', to_jsonb(_store_row.*) FROM _store_new_rows AS _store_row;
  ELSE
    INSERT INTO _store_changes (txid, tbl, op, old_row)
      SELECT pg_current_xact_id(), TG_TABLE_NAME, 'D', to_jsonb(_store_row.*) FROM _store_old_rows AS _store_row;
  END IF;
  IF FOUND THEN PERFORM _store_open_commit(); END IF;
  RETURN NULL;
END;
$$;
