#if PostgreSQL
@_exported import ObservableStoreCore
#endif
