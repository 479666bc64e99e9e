/// The engines of the conformance suite.
enum EngineKind: String, Sendable, CaseIterable {
    /// `SQLiteStore`, on a SQLite file in WAL mode.
    case sqlite = "SQLite"
    /// `PostgresStore`, on a database of the test server.
    case postgres = "PostgreSQL"
}
