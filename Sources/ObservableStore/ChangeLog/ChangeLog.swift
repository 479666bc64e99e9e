import Foundation
import ObservableStoreCore
import StoreSQLite

/// Writes the captured changes of a transaction into `_store_commits`, just before COMMIT, on the
/// writer connection. Keeps each table's column names and primary key, refreshed when the schema changes.
///
/// It observes the writer's transactions (``WriteObserver``) to remember the schema version a commit left.
///
/// Used only inside writes (the writer's lock held); not thread-safe.
final class ChangeLog: WriteObserver {
    static let commitsTable = "_store_commits"
    /// The rows of a commit's pieces after the first (migration 0007).
    static let piecesTable = "_store_commit_pieces"
    /// Built once: a commit's statement is found by its text, which is not rebuilt at each commit.
    private static let insertCommitSQL =
        "INSERT INTO \(commitsTable) (committed_at, origin, change_count, tables, schema_changed, payload) "
        + "VALUES (?, ?, ?, ?, ?, ?)"
    private static let insertCommitInPiecesSQL =
        "INSERT INTO \(commitsTable) (committed_at, origin, change_count, tables, schema_changed, piece_count, payload) "
        + "VALUES (?, ?, ?, ?, ?, ?, ?)"
    private static let insertPieceSQL = "INSERT INTO \(piecesTable) (seq, piece, change_count, payload) VALUES (?, ?, ?, ?)"
    let layout: ChangeLogLayout
    /// The most bytes of records in one piece of a commit (see ``ChangeCapture/pieceByteLimit``).
    let pieceByteLimit: Int

    init(layout: ChangeLogLayout = .payloadPerCommit, pieceByteLimit: Int = ChangeCapture.defaultPieceByteLimit) {
        self.layout = layout
        self.pieceByteLimit = pieceByteLimit
    }

    /// The piece size for a connection whose values may be at most `lengthLimit` bytes: the configured one,
    /// and at most half the limit (a piece may end with one record past it, and its header comes on top).
    func pieceByteLimit(lengthLimit: Int) -> Int {
        max(1, min(pieceByteLimit, lengthLimit / 2))
    }
    /// Each table's description, encoded for the payload (``ChangePayload/encodedDescription(of:)``).
    private var tables: [String: [UInt8]] = [:]
    private var schemaVersion: Int64 = -1
    /// Whether `_store_commits` exists: a store opened below the library migration that creates it
    /// (migration tests, `migrationPolicy: .none`) writes without a log and publishes no events.
    private var hasLog = false
    /// Whether the log can hold a commit in pieces (migration 0007); below it, a commit is one row.
    private var hasPieces = false
    /// The commit times written last, formatted.
    private let commitTimes = TimestampCache()

    /// The file's data version and schema version just after this writer's last commit.
    private var afterLastCommit: (dataVersion: UInt32, schemaVersion: Int64)?
    /// The schema version ``append(_:schemaAtStart:mayHaveChangedSchema:origin:on:)`` read in the open transaction.
    private var schemaVersionAtEnd: Int64?

    /// The schema version at the start of a write transaction: the one this writer's last commit ended with
    /// when nothing was committed to the file since (its data version has not moved), else read
    /// (``currentSchemaVersion(on:)``). Saves one of the two reads of a commit.
    func schemaVersionAtStart(on connection: Connection) throws -> Int64 {
        if let afterLastCommit, afterLastCommit.dataVersion == connection.fileDataVersion {
            return afterLastCommit.schemaVersion
        }
        return try currentSchemaVersion(on: connection)
    }

    /// Remembers the schema version the transaction ended with, when it appended (a transaction that did not, such as
    /// pruning, leaves what the last append remembered).
    func writeDidCommit(on connection: Connection) {
        if let schemaVersionAtEnd { afterLastCommit = (connection.fileDataVersion, schemaVersionAtEnd) }
        schemaVersionAtEnd = nil
    }

    func writeDidRollBack() {
        schemaVersionAtEnd = nil
    }

    /// `PRAGMA schema_version` now; read at the end of a write transaction that may have changed the schema,
    /// and at its start unless known.
    func currentSchemaVersion(on connection: Connection) throws -> Int64 {
        try StoreError.wrapping {
            let version = try connection.cachedStatement("PRAGMA schema_version")
            defer { version.reset() }
            return try version.step() ? version.int64(at: 0) : 0
        }
    }

    /// Appends the commit record for what `capture` holds; nil when it holds nothing (no commit record,
    /// no event: a `BEGIN; COMMIT` with no writes is not a commit). `schemaAtStart` is the schema
    /// version when the transaction began: if it moved, the commit is a schema change. It is read again
    /// only when `mayHaveChangedSchema` (the transaction ran a statement that may have changed it).
    func append(
        _ capture: ChangeCapture, schemaAtStart: Int64, mayHaveChangedSchema: Bool, origin: String?, on connection: Connection
    ) throws -> LoggedCommit? {
        let current = mayHaveChangedSchema ? try currentSchemaVersion(on: connection) : schemaAtStart
        schemaVersionAtEnd = current
        capture.schemaChanged = current != schemaAtStart
        guard capture.changeCount > 0 || capture.schemaChanged else { return nil }
        try StoreError.wrapping {
            if current != schemaVersion || capture.schemaChanged {
                tables.removeAll()
                schemaVersion = current
                hasLog = try ChangeLog.exists(on: connection)
                hasPieces = try ChangeLog.hasPieces(on: connection)
            }
        }
        guard hasLog else { return nil }
        let descriptions = try capture.tableNames.map { try encodedDescription(of: $0, on: connection) }
        let pieceCount = hasPieces ? capture.pieceCount : 1
        // Piece 0 goes into the commit row; the others, read back from the capture one at a time, into
        // `_store_commit_pieces`. A log without pieces (below migration 0007) gets the whole commit in one row.
        let first = try hasPieces ? capture.piece(0) : ChangeLog.allPieces(of: capture)
        let payload = ChangePayload.encode(
            encodedTables: descriptions, changeCount: hasPieces ? capture.changeCount(ofPiece: 0) : capture.changeCount,
            records: first.records)
        let now = Date()
        let sequence: Int64 = try StoreError.wrapping {
            var arguments: [DatabaseValue] = [
                .text(commitTimes.text(for: now)), origin.map(DatabaseValue.text) ?? .null,
                .integer(Int64(capture.changeCount)), .text(capture.touchedTableList),
                .integer(capture.schemaChanged ? 1 : 0),
            ]
            if pieceCount > 1 { arguments.append(.integer(Int64(pieceCount))) }
            try connection.cachedStatement(pieceCount > 1 ? ChangeLog.insertCommitInPiecesSQL : ChangeLog.insertCommitSQL)
                .execute(arguments, thenBlob: payload)
            return connection.lastInsertRowID
        }
        var changeIndex = 0
        try appendRowsPerChange(first, sequence: sequence, from: &changeIndex, capture: capture, on: connection)
        for index in 1..<pieceCount {
            let piece = try capture.piece(index)
            let changeCount = capture.changeCount(ofPiece: index)
            try StoreError.wrapping {
                try connection.cachedStatement(ChangeLog.insertPieceSQL).execute(
                    [.integer(sequence), .integer(Int64(index)), .integer(Int64(changeCount))],
                    thenBlob: ChangePayload.encode(encodedTables: descriptions, changeCount: changeCount, records: piece.records))
            }
            try appendRowsPerChange(piece, sequence: sequence, from: &changeIndex, capture: capture, on: connection)
        }
        return LoggedCommit(
            sequence: sequence, committedAt: Date(timeIntervalSince1970: Double(Timestamp.milliseconds(of: now)) / 1000),
            origin: origin, payload: payload, schemaChanged: capture.schemaChanged, pieceCount: pieceCount)
    }

    /// Every piece's records in one, for a log that cannot hold pieces.
    private static func allPieces(of capture: ChangeCapture) throws -> (records: [UInt8], offsets: [Int]) {
        guard capture.pieceCount > 1 else { return try capture.piece(0) }
        var records: [UInt8] = []
        var offsets: [Int] = []
        for index in 0..<capture.pieceCount {
            let piece = try capture.piece(index)
            offsets += piece.offsets.map { $0 + records.count }
            records += piece.records
        }
        return (records, offsets)
    }

    /// With the ``ChangeLogLayout/rowPerChange`` layout (a measurement), one `_store_changes` row per change of
    /// `piece`, numbered from `changeIndex` on.
    private func appendRowsPerChange(
        _ piece: (records: [UInt8], offsets: [Int]), sequence: Int64, from changeIndex: inout Int, capture: ChangeCapture,
        on connection: Connection
    ) throws {
        guard layout == .rowPerChange else { return }
        try StoreError.wrapping {
            let insert = try connection.cachedStatement(
                "INSERT INTO _store_changes (seq, idx, table_name, op, change) VALUES (?, ?, ?, ?, ?)")
            let offsets = piece.offsets + [piece.records.count]
            for index in 0..<piece.offsets.count {
                let record = piece.records[offsets[index]..<offsets[index + 1]]
                var reader = ValueReader(Array(record))
                let table = Int(try reader.varint())
                let operation = Int64(try reader.byte())
                try insert.execute([
                    .integer(sequence), .integer(Int64(changeIndex)), .text(capture.tableNames[table]), .integer(operation),
                    .blob(Data(record)),
                ])
                changeIndex += 1
            }
        }
    }

    private func encodedDescription(of name: String, on connection: Connection) throws -> [UInt8] {
        if let known = tables[name] { return known }
        let info = try StoreError.wrapping {
            let statement = try connection.prepare("PRAGMA table_info(\(quoted(name)))")
            var columns: [String] = []
            var keyParts: [(position: Int64, index: Int)] = []
            var realColumns: [Int] = []
            while try statement.step() {
                let position = statement.int64(at: 5)
                if position > 0 { keyParts.append((position, columns.count)) }
                if ChangeLog.hasRealAffinity(statement.text(at: 2)) { realColumns.append(columns.count) }
                columns.append(statement.text(at: 1))
            }
            return ChangePayload.Table(
                name: name, columns: columns, primaryKey: keyParts.sorted { $0.position < $1.position }.map(\.index),
                realColumns: realColumns)
        }
        let encoded = ChangePayload.encodedDescription(of: info)
        tables[name] = encoded
        return encoded
    }

    /// The commits after `sequence` (at most `limit`, and none past `last` when given), in order: each one's
    /// commit row, with piece 0 of a commit logged in pieces (the others: ``readPiece(_:of:on:)``). The page
    /// also ends after the row whose payload brings it to `byteBudget` bytes (each piece 0 may be a few MiB),
    /// so fewer than `limit` rows does not mean the end of the log: an empty page does.
    static func read(
        after sequence: Int64, through last: Int64? = nil, limit: Int = 512, byteBudget: Int = pageByteBudget,
        on connection: Connection
    ) throws -> [LoggedCommit] {
        try StoreError.wrapping {
            let statement = try connection.cachedStatement(
                "SELECT seq, committed_at, origin, schema_changed, payload, external, piece_count FROM \(commitsTable) "
                    + "WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?")
            defer { statement.reset() }
            try statement.bind([.integer(sequence), .integer(last ?? .max), .integer(Int64(limit))])
            var commits: [LoggedCommit] = []
            var bytes = 0
            while bytes < byteBudget, try statement.step() {
                commits.append(
                    LoggedCommit(
                        sequence: statement.int64(at: 0),
                        committedAt: Timestamp.parse(statement.text(at: 1)) ?? Date(timeIntervalSince1970: 0),
                        origin: statement.isNull(at: 2) ? nil : statement.text(at: 2),
                        payload: [UInt8](statement.blob(at: 4)), schemaChanged: statement.int64(at: 3) != 0,
                        isExternalChange: statement.int64(at: 5) != 0, pieceCount: Int(statement.int64(at: 6))))
                bytes += commits[commits.count - 1].encodedSize
            }
            return commits
        }
    }

    /// How many payload bytes a page of ``SQLiteStore/commits(after:limit:)`` reads at most (past its first piece).
    static let pageByteBudget = ChangeCapture.defaultPieceByteLimit

    /// Piece `index` of commit `sequence`, or nil when the log no longer holds it (pruned).
    static func readPiece(_ index: Int, of sequence: Int64, on connection: Connection) throws -> LoggedCommit? {
        if index == 0 { return try read(after: sequence - 1, through: sequence, limit: 1, on: connection).first }
        return try StoreError.wrapping {
            let statement = try connection.cachedStatement(
                "SELECT c.committed_at, c.origin, c.schema_changed, c.piece_count, p.payload FROM \(piecesTable) p "
                    + "JOIN \(commitsTable) c ON c.seq = p.seq WHERE p.seq = ? AND p.piece = ?")
            defer { statement.reset() }
            try statement.bind([.integer(sequence), .integer(Int64(index))])
            guard try statement.step() else { return nil }
            return LoggedCommit(
                sequence: sequence, committedAt: Timestamp.parse(statement.text(at: 0)) ?? Date(timeIntervalSince1970: 0),
                origin: statement.isNull(at: 1) ? nil : statement.text(at: 1), payload: [UInt8](statement.blob(at: 4)),
                schemaChanged: statement.int64(at: 2) != 0, pieceCount: Int(statement.int64(at: 3)), pieceIndex: index)
        }
    }

    /// What tells other processes' writes apart, read in one statement (one snapshot): the last
    /// sequence assigned, the oldest one still kept, and the bookkeeping counter (library writes that
    /// add no log row).
    static func position(on connection: Connection) throws -> LogPosition {
        try StoreError.wrapping {
            let statement = try connection.cachedStatement(
                "SELECT (SELECT coalesce(max(seq), 0) FROM \(commitsTable)), "
                    + "(SELECT coalesce(min(seq), 0) FROM \(commitsTable)), "
                    + "(SELECT coalesce(max(value), 0) FROM _store_meta WHERE key = 'bookkeeping')")
            defer { statement.reset() }
            guard try statement.step() else { return LogPosition(last: 0, oldest: 0, bookkeeping: 0) }
            return LogPosition(last: statement.int64(at: 0), oldest: statement.int64(at: 1), bookkeeping: statement.int64(at: 2))
        }
    }

    /// Whether the change log exists (a store migrated only part of the way may have none).
    static func exists(on connection: Connection) throws -> Bool {
        try count(of: "'seq'", on: connection) == 1
    }

    /// Whether the change log has its current layout, with markers (`external`, migration 0006): only then
    /// is it read (the feed, durable listeners) and are markers written. Below that, commits are logged
    /// and published in this process only.
    static func hasMarkers(on connection: Connection) throws -> Bool {
        try count(of: "'seq', 'external'", on: connection) == 2
    }

    /// Whether the change log can hold a commit in pieces (migration 0007): its current layout. Only then is
    /// it read (the feed, durable listeners); below that, commits are logged and published in this process only.
    static func hasPieces(on connection: Connection) throws -> Bool {
        try count(of: "'seq', 'piece_count'", on: connection) == 2
    }

    /// How many of `columns` (quoted, comma-separated) the log table has.
    private static func count(of columns: String, on connection: Connection) throws -> Int64 {
        try StoreError.wrapping {
            let statement = try connection.prepare("SELECT count(*) FROM pragma_table_info('\(commitsTable)') WHERE name IN (\(columns))")
            return try statement.step() ? statement.int64(at: 0) : 0
        }
    }

    /// What a log row without row changes stands for.
    enum Marker {
        /// A foreign writer changed the file (``LoggedCommit/isExternalChange``).
        case externalChange
        /// A migration changed the schema: every listener rereads.
        case schemaChange
    }

    /// Appends a log row with no row changes, for `marker`, inside the caller's write transaction.
    /// Needs the log's current layout (``hasMarkers(on:)``).
    static func appendMarker(_ marker: Marker, origin: String?, on connection: Connection) throws -> LoggedCommit {
        let now = Date()
        let payload = ChangePayload.encode(encodedTables: [], changeCount: 0, records: [])
        let external = marker == .externalChange
        let sequence = try StoreError.wrapping { () -> Int64 in
            try connection.cachedStatement(
                "INSERT INTO \(commitsTable) (committed_at, origin, change_count, tables, schema_changed, external, payload) "
                    + "VALUES (?, ?, 0, '', ?, ?, ?)"
            ).execute(
                [
                    .text(Timestamp.format(now)), origin.map(DatabaseValue.text) ?? .null, .integer(external ? 0 : 1),
                    .integer(external ? 1 : 0),
                ], thenBlob: payload)
            return connection.lastInsertRowID
        }
        return LoggedCommit(
            sequence: sequence, committedAt: Date(timeIntervalSince1970: Double(Timestamp.milliseconds(of: now)) / 1000),
            origin: origin, payload: payload, schemaChanged: !external, isExternalChange: external)
    }

    /// Counts a library write that adds no change-log row (cursor acknowledgements, pruning); call it
    /// inside that write's transaction.
    static func bumpBookkeeping(on connection: Connection) throws {
        try StoreError.wrapping {
            try connection.cachedStatement("UPDATE _store_meta SET value = value + 1 WHERE key = 'bookkeeping'").execute()
        }
    }

    /// SQLite's affinity rules (https://www.sqlite.org/datatype3.html#determination_of_column_affinity):
    /// REAL when the declared type has no INT, CHAR, CLOB, TEXT or BLOB but has REAL, FLOA or DOUB.
    static func hasRealAffinity(_ declaredType: String) -> Bool {
        let type = declaredType.uppercased()
        if ["INT", "CHAR", "CLOB", "TEXT", "BLOB"].contains(where: type.contains) { return false }
        return ["REAL", "FLOA", "DOUB"].contains(where: type.contains)
    }

    /// The highest sequence ever assigned (0 before the first commit), read in `transaction`'s snapshot.
    /// Pruning always keeps the newest commit record, so it is the log's largest `seq`.
    static func lastSequence(_ transaction: SQLiteTransaction) throws -> Int64 {
        try transaction.fetchValue("SELECT coalesce(max(seq), 0) FROM \(commitsTable)").flatMap(Int64.fromDatabaseValue) ?? 0
    }
}
