// `DatabaseValue` is defined by the SQLite layer and is part of the public API (raw SQL arguments,
// untyped rows). Everything else in StoreSQLite is `package`, so users see only that type.
@_exported public import StoreSQLite
