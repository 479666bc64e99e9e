import Foundation
import ObservableStore
import StoreCtlCore

/// One parser of user input under fuzzing. `check` runs an input through it: a thrown `StoreError` is a
/// correct refusal; a crash, a hang, or a broken property (checked with `precondition`) is a finding.
enum FuzzTarget: String, CaseIterable {
    /// JSON text: parsing never crashes, and a parsed value prints as compact JSON that parses back to itself.
    case json
    /// `storectl insert` input (JSON, NDJSON or CSV, guessed) for `nodes`: records hold only known columns.
    case records
    /// `--where EXPR` plus `--param` lines: never changes the store, even when the expression runs.
    case `where`
    /// `--set COL=VALUE` lines for `nodes`: typed values of the right storage class.
    case set
    /// A KEY argument for `nodes` (INTEGER key) and `user_info` (TEXT key).
    case key

    /// Runs one input; returns normally for accepted and refused input alike.
    func check(_ data: Data, in store: SQLiteStore) {
        do {
            switch self {
            case .json: try checkJSON(data)
            case .records: try store.read { try checkRecords(data, in: $0) }
            case .where: try checkWhere(data, in: store)
            case .set: try store.read { try checkAssignments(data, in: $0) }
            case .key: try store.read { try checkKey(data, in: $0) }
            }
        } catch is StoreError {
            // A clear refusal is the right answer to bad input.
        } catch {
            preconditionFailure("\(rawValue): an error that is not a StoreError escaped: \(error)")
        }
    }

    private func checkJSON(_ data: Data) throws {
        let compact = try InputParsing.json(String(decoding: data, as: UTF8.self))
        let again = try? InputParsing.json(compact)
        precondition(again == compact, "json: \(compact) does not parse back to itself")
    }

    private func checkRecords(_ data: Data, in tx: SQLiteTransaction) throws {
        let columns = Set(FuzzTarget.nodeColumns)
        var previousLine = 0
        for record in try InputParsing.records(data, format: nil, table: "nodes", in: tx) {
            precondition(record.columns.count == record.values.count, "records: columns and values differ in number")
            precondition(Set(record.columns).count == record.columns.count, "records: a column appears twice")
            precondition(record.columns.allSatisfy(columns.contains), "records: unknown column \(record.columns)")
            precondition(record.line >= max(previousLine, 1), "records: line numbers go backwards")
            previousLine = record.line
        }
    }

    private func checkWhere(_ data: Data, in store: SQLiteStore) throws {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let expression = String(lines.first ?? "")
        let parameters = lines.dropFirst().map(String.init)
        let before = try FuzzTarget.fingerprint(store)
        defer { precondition((try? FuzzTarget.fingerprint(store)) == before, "where: the store changed") }
        try store.read { tx in
            let clause = try InputParsing.whereClause(expression, parameters: parameters, table: "nodes", in: tx)
            precondition(clause.sql.contains(expression), "where: the clause lost the expression")
            // Running it may fail (a runtime error is fine); it must never write, and it must not swallow what
            // storectl appends after it (a comment or a stray ')' would).
            let rows = try? tx.fetchRows("SELECT count(*) FROM nodes" + clause.sql + " AND 0", named: clause.values)
            if let count = rows?.first?[0] {
                precondition(count == .integer(0), "where: '\(expression)' swallowed the SQL after it")
            }
        }
    }

    private func checkAssignments(_ data: Data, in tx: SQLiteTransaction) throws {
        let assignments = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        let parsed = try InputParsing.assignments(assignments, table: "nodes", in: tx)
        precondition(parsed.columns.count == assignments.count, "set: an assignment was lost")
        for (column, value) in zip(parsed.columns, parsed.values) {
            switch (column, value) {
            case (_, .null): break
            case ("id", .integer): break
            case ("x", .real), ("y", .real), ("width", .real), ("height", .real): break
            case ("name", .text), ("color", .text), ("created_at", .text), ("updated_at", .text): break
            default: preconditionFailure("set: \(column) got \(value)")
            }
        }
    }

    private func checkKey(_ data: Data, in tx: SQLiteTransaction) throws {
        let text = String(decoding: data, as: UTF8.self)
        if let value = try? InputParsing.key(text, table: "user_info", in: tx) {
            precondition(value == .text(text) || value == .null, "key: a TEXT key changed: \(value)")
        }
        switch try InputParsing.key(text, table: "nodes", in: tx) {
        case .integer, .null: break
        case let other: preconditionFailure("key: an INTEGER key became \(other)")
        }
    }

    static let nodeColumns = ["id", "name", "x", "y", "color", "width", "height", "created_at", "updated_at"]

    /// What must not change: the rows of every table, and the schema.
    private static func fingerprint(_ store: SQLiteStore) throws -> [DatabaseValue?] {
        try store.read { tx in
            [
                try tx.fetchValue("SELECT group_concat(id || name || x || y, ',') FROM nodes"),
                try tx.fetchValue("SELECT count(*) FROM user_info"),
                try tx.fetchValue("PRAGMA schema_version"),
            ]
        }
    }

    /// A store in memory with a few records, shared by every input of a run.
    static func makeStore() -> SQLiteStore {
        do {
            let store = try SQLiteStore(path: ":memory:")
            try store.write { tx in
                for index in 1...5 {
                    try tx.insert(NodeVO(id: Int64(index), name: "node \(index)", x: Double(index), y: 0))
                }
                try tx.insert(UserInfo(id: "alice", name: "Alice"))
            }
            return store
        } catch {
            fatalError("store-fuzz: cannot make the store: \(error)")
        }
    }
}
