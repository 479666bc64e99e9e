import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

// Bad input, the library's side of StoreCtlBadInputTableTests, through the public API only:
// - opening what is not a healthy, compatible store file fails with the right `StoreError.code` and leaves
//   the file's bytes as they were;
// - a write that fails (wrong type, constraint, bad SQL, a value over SQLite's limit, a full disk) fails with
//   the right code, rolls back everything the closure did, and delivers no event;
// - values that must be accepted (20 MB) or survived (invalid UTF-8 written by another tool) are.

// MARK: - Opening

/// Opening something that is not a healthy, compatible store.
struct OpenFailureCase: Sendable, Identifiable, CustomTestStringConvertible {
    enum Setup: Sendable, Equatable {
        /// A directory at the store path.
        case directory
        /// 64 KiB of noise.
        case randomBytes
        /// A file of zero bytes.
        case emptyFile
        /// A store of 2,000 nodes, checkpointed, then cut to half its pages.
        case truncatedStore
        /// A healthy store in a directory this process cannot write (chmod 0555; for root, `chattr +i`).
        case readOnlyDirectory
        /// A store whose history holds migration 0099 of the library's set, as newer code leaves it.
        case newerSchema
        /// Another application's SQLite database (application_id 42).
        case otherApplication
    }

    let name: String
    let setup: Setup
    /// `SQLiteStoreConfiguration.createIfMissing`.
    let createIfMissing: Bool
    let code: StoreError.Code
    /// The message must contain one of these.
    let messageMentions: [String]

    var id: String { name }
    var testDescription: String { name }

    static let all: [OpenFailureCase] = [
        // A directory is not a database file; SQLite would say only "unable to open database file".
        OpenFailureCase(
            name: "a directory", setup: .directory, createIfMissing: true, code: .cannotOpen,
            messageMentions: ["is a directory"]),
        // SQLite's "file is not a database", and the bytes are left alone.
        OpenFailureCase(
            name: "a file of random bytes", setup: .randomBytes, createIfMissing: true, code: .notAStore,
            messageMentions: ["not a database", "not an ObservableStore store"]),
        // Without createIfMissing, an empty file is not turned into a store: that would be creating one.
        OpenFailureCase(
            name: "an empty file without createIfMissing", setup: .emptyFile, createIfMissing: false, code: .notAStore,
            messageMentions: ["empty", "not a"]),
        // The header promises more pages than the file holds: corrupt, found before anything is written.
        OpenFailureCase(
            name: "a truncated store", setup: .truncatedStore, createIfMissing: true, code: .corrupt,
            messageMentions: ["malformed"]),
        // WAL needs `-wal` and `-shm` beside the file: one clear code whoever runs it (an ordinary user gets
        // SQLITE_READONLY from SQLite, root with `chattr +i` SQLITE_CANTOPEN).
        OpenFailureCase(
            name: "a store in a read-only directory", setup: .readOnlyDirectory, createIfMissing: true, code: .readOnly,
            messageMentions: ["read-only", "readonly", "not writable"]),
        // Newer code migrated it: refused, nothing changed (no backup, no history row).
        OpenFailureCase(
            name: "a store newer than the code", setup: .newerSchema, createIfMissing: true, code: .schemaTooNew,
            messageMentions: ["0099"]),
        // Another application's database is not converted into a store.
        OpenFailureCase(
            name: "another application's database", setup: .otherApplication, createIfMissing: true, code: .notAStore,
            messageMentions: ["application_id 0x2a"]),
    ]
}

@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct BadInputTests {
    @Test(arguments: OpenFailureCase.all)
    func openingFailsWithItsCodeAndLeavesTheFileAlone(_ badCase: OpenFailureCase) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            try prepare(badCase.setup, at: path)
            let before = try FileState(of: path)
            let configuration = {
                var configuration = SQLiteStoreConfiguration()
                configuration.createIfMissing = badCase.createIfMissing
                return configuration
            }()

            let lockedDirectory = badCase.setup == .readOnlyDirectory ? directory.path : nil
            let error = try withUnwritable(lockedDirectory, isDirectory: true) { () -> StoreError? in
                return #expect(throws: StoreError.self) { try SQLiteStore(path: path, configuration: configuration) }
            }

            #expect(error?.code == badCase.code, "\(String(describing: error))")
            #expect(
                badCase.messageMentions.contains { error?.message.contains($0) == true },
                "the message should mention one of \(badCase.messageMentions): \(error?.message ?? "(no error)")")
            #expect(try FileState(of: path) == before, "opening changed what is at the store path")
        }
    }

    /// A value of 2 GiB or more used to trap converting its length to Int32; SQLite now refuses it (TOOBIG).
    /// The bytes are never touched, so the zeroed pages cost no memory.
    @Test func aValueOverTwoGigabytesIsRefusedNotATrap() throws {
        try withTemporaryStore { store, _ in
            let huge = Data(count: Int(Int32.max) + 1_000)
            let error = #expect(throws: StoreError.self) { try store.write { try $0.execute("SELECT length(?)", [huge]) } }
            #expect(error?.code == .invalidInput)
            #expect(error?.sqliteCode == 18, "SQLITE_TOOBIG")
            let small = try store.write { try $0.fetchValue("SELECT length(?)", [Data(count: 10)]) }
            #expect(small == .integer(10))
        }
    }

    @Test func anEmptyFileBecomesAStoreWhenCreatingIsAllowed() throws {
        try withTemporaryDirectory { directory in
            // What `mktemp` leaves: with createIfMissing (the default) it is initialised like a missing file.
            let path = directory.appendingPathComponent("store.sqlite").path
            #expect(FileManager.default.createFile(atPath: path, contents: Data()))
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            #expect(try store.schemaVersion() == MigrationSet.store.latestVersion)
            #expect(try store.repository(NodeVO.self).count() == 0)
        }
    }

    @Test func aReadOnlyStoreFileOpensAndReadsButRefusesWrites() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            _ = try makeStore(path, nodes: 3)
            let before = try snapshot(path)
            try withUnwritable(path, isDirectory: false) {
                let store = try SQLiteStore(path: path)
                defer { store.close() }
                #expect(try store.repository(NodeVO.self).count() == 3)
                let (recorder, token) = store.record()
                defer { token.cancel() }
                let error = #expect(throws: StoreError.self) {
                    try store.repository(NodeVO.self).insert(NodeVO(name: "refused", x: 0, y: 0))
                }
                #expect(error?.code == .readOnly, "\(String(describing: error))")
                #expect(recorder.all.isEmpty, "a refused write delivers no event")
            }
            #expect(try snapshot(path) == before)
        }
    }

    @Test func aCorruptedPageFailsItsReadsAndWritesAndIsNotMadeWorse() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            let layout = try makeStore(path, nodes: 2_000)
            // Garbage over the root page of `nodes` (an interior b-tree page by now; page type 7 does not exist).
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try file.seek(toOffset: UInt64((layout.nodesRoot - 1) * layout.pageSize))
            try file.write(contentsOf: Data((0..<layout.pageSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
            try file.close()
            let bytes = FileManager.default.contents(atPath: path)
            do {
                // Opening reads the history and the change log, not `nodes`: the damage shows where it is.
                let store = try SQLiteStore(path: path)
                defer { store.close() }
                let read = #expect(throws: StoreError.self) { try store.repository(NodeVO.self).fetchAll() }
                #expect(read?.code == .corrupt, "\(String(describing: read))")
                let write = #expect(throws: StoreError.self) {
                    try store.repository(NodeVO.self).insert(NodeVO(name: "more", x: 0, y: 0))
                }
                #expect(write?.code == .corrupt, "\(String(describing: write))")
            }
            #expect(FileManager.default.contents(atPath: path) == bytes, "nothing may be written to a damaged file")
        }
    }

    // MARK: - Failing writes

    @Test(arguments: WriteFailureCase.all)
    func aFailingWriteRollsBackEverythingAndDeliversNothing(_ badCase: WriteFailureCase) throws {
        try withTemporaryStore { store, _ in
            try seed(store)
            let before = try snapshot(of: store)
            let sequence = try store.lastSequence()
            let (recorder, token) = store.record()
            defer { token.cancel() }

            let error = #expect(throws: StoreError.self) {
                try store.write { tx in
                    // Work that succeeds first: it must go with the failing statement.
                    try tx.insert(NodeVO(name: "written before the failure", x: 0, y: 0))
                    try tx.execute(badCase.sql, badCase.arguments)
                }
            }

            #expect(error?.code == badCase.code, "\(String(describing: error))")
            if let sqliteCode = badCase.sqliteCode {
                #expect(error?.sqliteCode == sqliteCode, "\(String(describing: error))")
            }
            #expect(
                error?.message.contains(badCase.messageMentions) == true,
                "the message should mention \"\(badCase.messageMentions)\": \(error?.message ?? "(no error)")")
            #expect(try snapshot(of: store) == before, "the write was not rolled back")
            #expect(try store.lastSequence() == sequence, "a rolled-back write is not logged")
            #expect(recorder.all.isEmpty, "a rolled-back write delivers no event")
            // The store and the listener still work: the next write is delivered as usual.
            try store.repository(NodeVO.self).insert(NodeVO(name: "after", x: 0, y: 0))
            #expect(recorder.commits.map { $0.changes.count } == [1])
        }
    }

    @Test func aFailedStatementCaughtInsideAWriteTakesBackOnlyItsOwnRowsAndEvents() throws {
        try withTemporaryStore { store, _ in
            let (recorder, token) = store.record()
            defer { token.cancel() }
            try store.write { tx in
                try tx.insert(NodeVO(name: "kept", x: 0, y: 0))
                // One statement, two rows: the first is inserted, the second breaks NOT NULL, and SQLite takes back
                // the whole statement. Its captured first row must go too.
                let error = #expect(throws: StoreError.self) {
                    try tx.execute("INSERT INTO nodes (name, x, y) VALUES ('undone', 0, 0), (NULL, 0, 0)")
                }
                #expect(error?.code == .constraint)
                try tx.insert(NodeVO(name: "also kept", x: 0, y: 0))
            }
            #expect(try store.repository(NodeVO.self).fetchAll(RecordQuery().order(by: "id")).map(\.name) == ["kept", "also kept"])
            #expect(recorder.commits.count == 1)
            #expect(recorder.changes.map { $0.new?["name"] } == [.text("kept"), .text("also kept")])
        }
    }

    // MARK: - Huge values

    @Test func twentyMegabyteTextAndBlobValuesRoundTrip() throws {
        try withTemporaryStore(configuration: Sample.configuration) { store, _ in
            // 35 UTF-8 bytes per repeat (ASCII, 2-byte and 4-byte characters): 21,000,000 bytes.
            let text = String(repeating: "abcdefghijklmnopqrstuvwxyz-éü😀", count: 600_000)
            let node = try store.repository(NodeVO.self).insert(NodeVO(name: text, x: 0, y: 0))
            let nodeID = try #require(node.id)
            let fetchedNode = try store.repository(NodeVO.self).fetch(nodeID)
            let textIsWhole = fetchedNode?.name == text  // not in #expect: a failure would print 21 MB twice
            #expect(textIsWhole, "read back \(fetchedNode?.name.utf8.count ?? -1) bytes of \(text.utf8.count)")

            // A 251-byte pattern (a prime, so it never lines up with pages) repeated to over 20 MiB.
            let block = Data((0..<251).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
            var bytes = Data(capacity: 251 * 83_600)
            for _ in 0..<83_600 { bytes.append(block) }
            #expect(bytes.count >= 20 * 1024 * 1024)
            var sample = Sample.make(1)
            sample.bytes = bytes
            let inserted = try store.repository(Sample.self).insert(sample)
            let sampleID = try #require(inserted.id)
            let fetchedSample = try store.repository(Sample.self).fetch(sampleID)
            let bytesAreWhole = fetchedSample?.bytes == bytes
            #expect(bytesAreWhole, "read back \(fetchedSample?.bytes.count ?? -1) bytes of \(bytes.count)")
        }
    }

    // MARK: - Invalid UTF-8 stored by another tool

    @Test func invalidUTF8StoredAsTextReadsAsReplacementCharactersAndIsNotRewritten() throws {
        try withTemporaryStore { store, _ in
            let (recorder, token) = store.record()
            defer { token.cancel() }
            // What the sqlite3 shell or another library can store: TEXT holding 'A' 0xFF 'B'.
            try store.write { try $0.execute("INSERT INTO nodes (name, x, y) VALUES (CAST(x'41ff42' AS TEXT), 0, 0)") }
            // Decided: reads never fail or crash on it; the bad byte reads as U+FFFD, in raw rows, records and events.
            #expect(try store.read { try $0.fetchValue("SELECT name FROM nodes") } == .text("A\u{FFFD}B"))
            #expect(try store.repository(NodeVO.self).fetchAll().map(\.name) == ["A\u{FFFD}B"])
            #expect(recorder.changes.map { $0.new?["name"] } == [.text("A\u{FFFD}B")])
            // The file keeps the bytes as they were written: reading does not repair them.
            #expect(try store.read { try $0.fetchValue("SELECT hex(name) FROM nodes") } == .text("41FF42"))
        }
    }

    // MARK: - A full disk

    @Test func aFullDiskFailsTheWholeWriteWithDiskFullAndDeliversNothing() throws {
        try withTemporaryStore { store, _ in
            try seed(store)
            let before = try snapshot(of: store)
            let (recorder, token) = store.record()
            defer { token.cancel() }
            // A max_page_count below the file's size is raised to it: the file may not grow by one page, and SQLite
            // fails the growth with SQLITE_FULL, exactly as on a full disk. It is a setting of the writer connection.
            try store.write { tx in _ = try tx.fetchValue("PRAGMA max_page_count = 1") }

            let error = #expect(throws: StoreError.self) {
                try store.write { tx in
                    try tx.insert(NodeVO(name: "small", x: 0, y: 0))
                    try tx.insert(NodeVO(name: String(repeating: "x", count: 1_000_000), x: 0, y: 0))  // ~250 new pages
                }
            }
            #expect(error?.code == .diskFull, "\(String(describing: error))")
            #expect(error?.sqliteCode == 13, "SQLITE_FULL: \(String(describing: error))")
            #expect(try snapshot(of: store) == before, "the write was not rolled back")
            #expect(recorder.all.isEmpty, "a failed write delivers no event")

            // Space again: the same store writes, and its listener hears it.
            try store.write { tx in _ = try tx.fetchValue("PRAGMA max_page_count = 1073741823") }
            try store.repository(NodeVO.self).insert(NodeVO(name: String(repeating: "x", count: 1_000_000), x: 0, y: 0))
            #expect(recorder.commits.count == 1)
        }
    }

    /// A writer process under a file-size limit, and what it must leave: every commit before the failed one
    /// (`earlierCommits`), or nothing new at all.
    struct LimitedWriter: Sendable, CustomTestStringConvertible {
        let name: String
        /// The store-fixture subcommand, and its arguments after DB.
        let job: (subcommand: String, arguments: [String])
        let earlierCommits: Bool
        var testDescription: String { name }

        static let all = [
            // Each commit is small: the WAL grows past the limit inside a COMMIT, where SQLite does not record
            // errno (sqlite3_system_errno is 0). That was reported as `internal` ("disk I/O error").
            LimitedWriter(name: "20,000 one-row commits", job: ("write", ["20000"]), earlierCommits: true),
            // Larger than SQLite's page cache: pages spill to the WAL before COMMIT, inside a statement.
            LimitedWriter(name: "one commit of 5,000 rows of 1 KB", job: ("write-batch", ["5000", "1000"]), earlierCommits: false),
            LimitedWriter(name: "one commit of one 4 MB row", job: ("write-batch", ["1", "4000000"]), earlierCommits: false),
        ]
    }

    @Test(arguments: LimitedWriter.all)
    func aFileSizeLimitInAWriterProcessFailsItsWriteWithDiskFullAndLeavesNothingPartial(_ writer: LimitedWriter) throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite").path
            _ = try makeStore(path, nodes: 3)
            let fixture = try builtProduct("store-fixture").path
            let command = ([fixture, writer.job.subcommand, path] + writer.job.arguments).map(quotedForShell).joined(separator: " ")
            // The limit is set in the child's shell, never in this process. 2048 blocks are 1 MB where sh counts
            // 512-byte blocks (dash) and 2 MB where it counts KiB; each job needs far more WAL.
            // SIGXFSZ is ignored, so the write past the limit fails with EFBIG instead of killing the writer.
            let child = try runShellScript("ulimit -f 2048 && trap '' XFSZ && exec \(command)")
            #expect(!child.signaled, "the writer died of a signal: \(child.stderr)")
            #expect(child.status == 1, "store-fixture exits 1 when a write fails: \(child.stderr)")
            // Documented: a full disk, file-size limit or quota is `disk_full`, whichever SQLite call hit it.
            #expect(child.stderr.contains("error[disk_full]: "), "the failure should be disk_full: \(child.stderr)")
            #expect(child.stderr.contains("a file size limit"), "the message should say what is full: \(child.stderr)")

            // Every commit acknowledged before the limit is there, the failed one is not there at all.
            let store = try SQLiteStore(path: path)
            defer { store.close() }
            let (integrity, rows, logged) = try store.read { tx -> (DatabaseValue?, DatabaseValue?, DatabaseValue?) in
                (
                    try tx.fetchValue("PRAGMA integrity_check"),
                    try tx.fetchValue("SELECT count(*) FROM nodes"),
                    try tx.fetchValue("SELECT CAST(total(change_count) AS INTEGER) FROM _store_commits")
                )
            }
            #expect(integrity == .text("ok"))
            #expect(rows == logged, "every logged change has its row and every row its logged change")
            guard case .integer(let count)? = rows else {
                Issue.record("no row count: \(String(describing: rows))")
                return
            }
            if writer.earlierCommits {
                #expect(count > 3 && count < 20_003, "some commits before the limit, and none after the failed one: \(count)")
            } else {
                #expect(count == 3, "the failed commit left rows: \(count)")
            }
            // The store is writable again once the limit is gone.
            try store.repository(NodeVO.self).insert(NodeVO(name: "after the limit", x: 0, y: 0))
            #expect(try store.repository(NodeVO.self).count() == Int(count) + 1)
        }
    }
}

// MARK: - Failing writes: the table

/// One statement that must fail inside `write`, and how.
struct WriteFailureCase: Sendable, Identifiable, CustomTestStringConvertible {
    let name: String
    let sql: String
    let arguments: [DatabaseValue]
    let code: StoreError.Code
    /// SQLite's extended result code.
    let sqliteCode: Int32?
    /// Text the message must contain, naming what was wrong.
    let messageMentions: String

    init(
        _ name: String, _ sql: String, _ arguments: [DatabaseValue] = [], code: StoreError.Code, sqliteCode: Int32?,
        mentions: String
    ) {
        self.name = name
        self.sql = sql
        self.arguments = arguments
        self.code = code
        self.sqliteCode = sqliteCode
        self.messageMentions = mentions
    }

    var id: String { name }
    var testDescription: String { name }

    // The seeded store holds nodes 1–3; `nodes` is STRICT (Migrations/0001_create_nodes.sql).
    static let all: [WriteFailureCase] = [
        // STRICT refuses text in a REAL column (SQLITE_CONSTRAINT_DATATYPE).
        WriteFailureCase(
            "text in a REAL column", "INSERT INTO nodes (name, x, y) VALUES ('a', 'left', 0)",
            code: .constraint, sqliteCode: 3091, mentions: "nodes.x"),
        // A rowid alias takes only integers (SQLITE_MISMATCH): the caller passed a value of the wrong type, which
        // deserves .invalidInput rather than the catch-all .sqlite.
        WriteFailureCase(
            "text in the INTEGER PRIMARY KEY", "INSERT INTO nodes (id, name, x, y) VALUES ('seven', 'a', 0, 0)",
            code: .invalidInput, sqliteCode: 20, mentions: "mismatch"),
        // The same, bound as an argument.
        WriteFailureCase(
            "bound text in the INTEGER PRIMARY KEY", "INSERT INTO nodes (id, name, x, y) VALUES (?, 'a', 0, 0)",
            [.text("seven")], code: .invalidInput, sqliteCode: 20, mentions: "mismatch"),
        // A fraction is not an integer key.
        WriteFailureCase(
            "float in the INTEGER PRIMARY KEY", "INSERT INTO nodes (id, name, x, y) VALUES (1.5, 'a', 0, 0)",
            code: .invalidInput, sqliteCode: 20, mentions: "mismatch"),
        // SQLite reads one past Int64.max as a REAL, which is no integer key either.
        WriteFailureCase(
            "integer beyond Int64 in the key",
            "INSERT INTO nodes (id, name, x, y) VALUES (9223372036854775808, 'a', 0, 0)",
            code: .invalidInput, sqliteCode: 20, mentions: "mismatch"),
        // name is NOT NULL without a default (SQLITE_CONSTRAINT_NOTNULL).
        WriteFailureCase(
            "missing NOT NULL column", "INSERT INTO nodes (x, y) VALUES (0, 0)",
            code: .constraint, sqliteCode: 1299, mentions: "nodes.name"),
        // A bound NULL likewise.
        WriteFailureCase(
            "bound NULL in a NOT NULL column", "INSERT INTO nodes (name, x, y) VALUES (?, 0, 0)", [.null],
            code: .constraint, sqliteCode: 1299, mentions: "nodes.name"),
        // width >= 0 (SQLITE_CONSTRAINT_CHECK).
        WriteFailureCase(
            "CHECK violation", "INSERT INTO nodes (name, x, y, width) VALUES ('a', 0, 0, -1)",
            code: .constraint, sqliteCode: 275, mentions: "width"),
        // id 2 exists (SQLITE_CONSTRAINT_PRIMARYKEY).
        WriteFailureCase(
            "duplicate primary key", "INSERT INTO nodes (id, name, x, y) VALUES (2, 'again', 0, 0)",
            code: .constraint, sqliteCode: 1555, mentions: "nodes.id"),
        // A misspelled column.
        WriteFailureCase(
            "unknown column", "INSERT INTO nodes (name, x, y, colour) VALUES ('a', 0, 0, 'red')",
            code: .invalidInput, sqliteCode: 1, mentions: "colour"),
        // A table that does not exist.
        WriteFailureCase(
            "unknown table", "INSERT INTO nope (name) VALUES ('a')",
            code: .invalidInput, sqliteCode: 1, mentions: "nope"),
        // Not SQL.
        WriteFailureCase(
            "SQL syntax error", "INSERT INTO nodes (name x) VALUES ('a', 0)",
            code: .invalidInput, sqliteCode: 1, mentions: "syntax error"),
        // Over SQLite's default SQLITE_MAX_LENGTH (1,000,000,000 bytes); zeroblob asks for it without allocating.
        WriteFailureCase(
            "value over SQLite's length limit",
            "INSERT INTO nodes (name, x, y) VALUES (CAST(zeroblob(1500000000) AS TEXT), 0, 0)",
            code: .invalidInput, sqliteCode: 18, mentions: "too big"),
        // Four arguments for three placeholders (SQLITE_RANGE).
        WriteFailureCase(
            "more arguments than placeholders", "INSERT INTO nodes (name, x, y) VALUES (?, ?, ?)",
            [.text("a"), .real(0), .real(0), .text("extra")], code: .invalidInput, sqliteCode: 25, mentions: "argument"),
        // The store owns the transaction: a COMMIT in the middle would split it.
        WriteFailureCase(
            "COMMIT inside a write", "COMMIT", code: .invalidInput, sqliteCode: nil, mentions: "not allowed"),
        // A script whose second statement fails: the first statement's row goes too.
        WriteFailureCase(
            "a script failing in its second statement",
            "INSERT INTO nodes (name, x, y) VALUES ('first', 0, 0); INSERT INTO nodes (x, y) VALUES (0, 0)",
            code: .constraint, sqliteCode: 1299, mentions: "nodes.name"),
    ]
}

// MARK: - Helpers

/// A setup step that could not be done.
private struct SetupFailed: Error, CustomStringConvertible {
    var description: String
}

/// A configuration that neither validates nor migrates: for preparing and inspecting any file.
private var inspection: SQLiteStoreConfiguration {
    var configuration = SQLiteStoreConfiguration()
    configuration.migrationPolicy = .none
    return configuration
}

/// Creates a store at `path` with `count` nodes, closes it (which checkpoints the WAL into the file) and
/// removes any `-wal` or `-shm` left; returns where `nodes` starts and the page size.
@discardableResult
private func makeStore(_ path: String, nodes count: Int) throws -> (nodesRoot: Int, pageSize: Int) {
    let layout = try { () throws -> (DatabaseValue?, DatabaseValue?) in
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        _ = try store.repository(NodeVO.self).insertAll(
            (0..<count).map { NodeVO(name: "node number \($0)", x: Double($0), y: Double($0)) })
        return try store.read { tx -> (DatabaseValue?, DatabaseValue?) in
            (
                try tx.fetchValue("SELECT rootpage FROM sqlite_master WHERE name = 'nodes'"),
                try tx.fetchValue("PRAGMA page_size")
            )
        }
    }()
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    guard case .integer(let root)? = layout.0, case .integer(let pageSize)? = layout.1, root > 1, pageSize > 0 else {
        throw SetupFailed(description: "no root page or page size: \(layout)")
    }
    return (Int(root), Int(pageSize))
}

/// Puts at `path` what `setup` describes.
private func prepare(_ setup: OpenFailureCase.Setup, at path: String) throws {
    switch setup {
    case .directory:
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
    case .randomBytes:
        // A linear congruential generator: deterministic, and nothing like SQLite's header.
        var state: UInt32 = 0x2545_F491
        let bytes = (0..<65_536).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    case .emptyFile:
        guard FileManager.default.createFile(atPath: path, contents: Data()) else {
            throw SetupFailed(description: "cannot create \(path)")
        }
    case .truncatedStore:
        let layout = try makeStore(path, nodes: 2_000)
        guard let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, size > layout.pageSize * 20
        else { throw SetupFailed(description: "2,000 nodes should fill many pages") }
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.truncate(atOffset: UInt64(size / layout.pageSize / 2 * layout.pageSize))
        try file.close()
    case .readOnlyDirectory:
        try makeStore(path, nodes: 3)
    case .newerSchema:
        try makeStore(path, nodes: 3)
        let store = try SQLiteStore(path: path, configuration: inspection)
        defer { store.close() }
        try store.write { tx in
            try tx.execute(
                "INSERT INTO _store_migrations VALUES ('store', 99, 'future', 'x', '2030-01-01T00:00:00.000Z', 1, 'future')")
            try tx.execute("PRAGMA user_version = 99")
        }
    case .otherApplication:
        let store = try SQLiteStore(path: path, configuration: inspection)
        defer { store.close() }
        try store.write { try $0.execute("PRAGMA application_id = 42; CREATE TABLE theirs (x)") }
    }
}

/// What lies at a path, for "left alone": nothing, a directory's entries, or a file's bytes.
private enum FileState: Equatable, CustomStringConvertible {
    case missing
    case directory([String])
    case file(Data)

    init(of path: String) throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            self = .missing
        } else if isDirectory.boolValue {
            self = .directory(try FileManager.default.contentsOfDirectory(atPath: path).sorted())
        } else {
            self = .file(FileManager.default.contents(atPath: path) ?? Data())
        }
    }

    var description: String {
        switch self {
        case .missing: "nothing"
        case .directory(let entries): "a directory holding \(entries)"
        case .file(let data): "a file of \(data.count) bytes"
        }
    }
}

/// Nodes alpha, beta, gamma (ids 1–3) and user "me".
private func seed(_ store: SQLiteStore) throws {
    _ = try store.repository(NodeVO.self).insertAll([
        NodeVO(name: "alpha", x: 1, y: 1), NodeVO(name: "beta", x: 2, y: 2), NodeVO(name: "gamma", x: 3, y: 3),
    ])
    _ = try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada"))
}

/// Every row of every table (the store's own and SQLite's included), and the schema, keyed by table.
private func snapshot(of store: SQLiteStore) throws -> [String: [Row]] {
    try store.read { tx -> [String: [Row]] in
        let schema = try tx.fetchRows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
        var rows: [String: [Row]] = ["sqlite_master": schema]
        for entry in schema where entry["type"] == .text("table") {
            guard let table = entry.value("name", as: String.self) else { continue }
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            // A WITHOUT ROWID table (`_store_commit_pieces`) has no rowid, and is scanned in key order.
            let withoutRowID = entry.value("sql", as: String.self)?.uppercased().contains("WITHOUT ROWID") == true
            rows[table] = try tx.fetchRows("SELECT * FROM \(quoted)" + (withoutRowID ? "" : " ORDER BY rowid"))
        }
        return rows
    }
}

/// ``snapshot(of:)`` of the store at `path`, opened without migrating.
private func snapshot(_ path: String) throws -> [String: [Row]] {
    let store = try SQLiteStore(path: path, configuration: inspection)
    defer { store.close() }
    return try snapshot(of: store)
}

/// Runs `body` with `path` unwritable (nil: as is), writable again afterwards. Cancels the test when this
/// machine cannot make it unwritable.
private func withUnwritable<T>(_ path: String?, isDirectory: Bool, _ body: () throws -> T) throws -> T {
    guard let path else { return try body() }
    guard let restore = makeUnwritable(path, isDirectory: isDirectory) else {
        try Test.cancel(
            Comment(rawValue: "cannot make \(path) unwritable here: chmod does not stop root, and `chattr +i` failed (no chattr, or a "
                + "file system without the immutable flag)"))
    }
    defer { restore() }
    return try body()
}
