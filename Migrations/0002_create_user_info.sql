-- The user shown by several views (the property-listener pattern: UserInfo.name).
-- Only id and name are required; every other column has a default.
CREATE TABLE user_info (
  id          TEXT    PRIMARY KEY NOT NULL,
  name        TEXT    NOT NULL,
  hair_color  TEXT    DEFAULT NULL,
  created_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at  TEXT    NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
) STRICT;
