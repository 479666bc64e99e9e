/// Where an engine legitimately differs from the other, said once here: a case that meets a difference asserts
/// the engine's own behaviour instead (docs/POSTGRES.md, "Conformance", lists them).
enum EngineDifference: String, Sendable, CaseIterable {
    /// PostgreSQL `text` (and `jsonb`, its change log's row images) cannot hold the NUL character ("invalid byte
    /// sequence for encoding UTF8: 0x00", checked with psql): a string with NUL is refused with an error and nothing
    /// is written. SQLite stores it and gives it back.
    case textRefusesNUL

    /// The differences of `engine`.
    static func of(_ engine: EngineKind) -> Set<EngineDifference> {
        switch engine {
        case .sqlite: []
        case .postgres: [.textRefusesNUL]
        }
    }
}
