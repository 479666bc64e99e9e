#if PostgreSQL
// Users write `import ObservableStorePostgres` only: the core's records, queries, events and listeners come with it.
@_exported import ObservableStoreCore
#endif
