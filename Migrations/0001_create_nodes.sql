-- Nodes of a node editor: the records of the Presentation Model pattern (NodesPM).
-- Only name, x and y are required; every other column has a default.
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

CREATE INDEX nodes_updated_at ON nodes(updated_at);
