// The backend-neutral core (values, records, queries, events, listeners) is part of this module's public
// API: users write `import ObservableStore` only. The SQLite layer (StoreSQLite) has no public symbols.
@_exported public import ObservableStoreCore
