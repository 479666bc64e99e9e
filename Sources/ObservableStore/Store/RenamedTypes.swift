/// The former name of ``SQLiteStore``, kept for one minor release so that existing code builds with a warning.
@available(*, deprecated, renamed: "SQLiteStore")
public typealias Store = SQLiteStore

/// The former name of ``SQLiteStoreConfiguration``, kept for one minor release so that existing code builds with a
/// warning.
@available(*, deprecated, renamed: "SQLiteStoreConfiguration")
public typealias StoreConfiguration = SQLiteStoreConfiguration
