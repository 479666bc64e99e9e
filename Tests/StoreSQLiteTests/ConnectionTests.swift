import Foundation
import ObservableStoreCore
import StoreTestSupport
import TestScheduling
import Testing

@testable import StoreSQLite

@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct ConnectionTests {
    private func withConnection<T>(_ body: (Connection, String) throws -> T) throws -> T {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("db.sqlite").path
            let connection = try Connection(path: path, mode: .readWrite(create: true), busyTimeoutMilliseconds: 1000)
            defer { connection.close() }
            return try body(connection, path)
        }
    }

    @Test func executeReleasesLargeValuesAndKeepsSmallOnes() throws {
        // A large bound value must be freed by the statement that used it, not by its next use; small ones
        // stay bound until the next bind replaces them (clearing them cost a call per run).
        try withConnection { db, _ in
            try db.execute("CREATE TABLE t (a, b)")
            let insert = try db.cachedStatement("INSERT INTO t (a, b) VALUES (?, ?)")
            try insert.execute([.text("small"), .blob(Data([1, 2]))])
            #expect(insert.expandedSQL == "INSERT INTO t (a, b) VALUES ('small', x'0102')")
            try insert.execute([.blob(Data(repeating: 7, count: 1 << 20)), .text("kept?")])
            #expect(insert.expandedSQL == "INSERT INTO t (a, b) VALUES (NULL, NULL)")
            // The limit itself is small; one byte more is large, as text or as a blob.
            let limit = Statement.largeValueBytes
            try insert.execute([.text(String(repeating: "x", count: limit)), .null])
            #expect(insert.expandedSQL?.hasPrefix("INSERT INTO t (a, b) VALUES ('xxx") == true)
            try insert.execute([.text(String(repeating: "x", count: limit + 1)), .null])
            #expect(insert.expandedSQL == "INSERT INTO t (a, b) VALUES (NULL, NULL)")
            try insert.execute([.null, .blob(Data(count: limit + 1))])
            #expect(insert.expandedSQL == "INSERT INTO t (a, b) VALUES (NULL, NULL)")
            // A failed run releases a large value too.
            try db.execute("CREATE TRIGGER refuse BEFORE INSERT ON t WHEN NEW.b = 'no' BEGIN SELECT RAISE(ABORT, 'refused'); END")
            #expect(throws: SQLiteError.self) { try insert.execute([.blob(Data(count: limit + 1)), .text("no")]) }
            #expect(insert.expandedSQL == "INSERT INTO t (a, b) VALUES (NULL, NULL)")
            let count = try db.cachedStatement("SELECT count(*) FROM t")
            #expect(try count.step())
            #expect(count.int64(at: 0) == 5)
        }
    }

    /// Text bound with ``Statement/bind(_:)`` is copied into the statement's own memory and read there by
    /// SQLite: it must outlive the strings and the bind call, survive the memory growing, and stay put while
    /// the statement runs.
    @Test func boundTextIsTheStatementsOwnCopy() throws {
        try withConnection { db, _ in
            let echo = try db.prepare("SELECT ?1, ?2, ?3, ?4 FROM (SELECT 1 UNION ALL SELECT 2)")
            // Strings made at run time (not literals), released once bound.
            func texts(_ lengths: [Int]) -> [String] { lengths.map { String(repeating: "é", count: $0 / 2) } }
            func rows() throws -> [[String]] {
                echo.reset()
                var rows: [[String]] = []
                while try echo.step() { rows.append((0..<4).map { echo.text(at: $0) }) }
                return rows
            }
            for lengths in [[0, 2, 30, 8], [400, 2, 0, 1000], [2, 4, 6, 8], [Statement.largeValueBytes + 2, 10, 0, 20]] {
                let expected = texts(lengths)
                echo.reset()
                try echo.bind(texts(lengths).map { .text($0) })
                #expect(try rows() == [expected, expected])
                #expect(try rows() == [expected, expected])  // reset and run again: still bound
            }
            // Past boundTextBytes in one round, SQLite copies the rest: 5 × 16,000 bytes are all stored.
            let five = try db.prepare("SELECT ?1 || ?2 || ?3 || ?4 || ?5")
            let parts = (0..<5).map { String(repeating: String($0), count: 16_000) }
            try five.bind(parts.map { .text($0) })
            #expect(try five.step())
            #expect(five.text(at: 0) == parts.joined())
            five.reset()
            // Binding while the statement runs fails, and the row it has yet to read keeps the old text.
            echo.reset()
            try echo.bind(texts([4, 4, 4, 4]).map { .text($0) })
            #expect(try echo.step())
            #expect(throws: SQLiteError.self) { try echo.bind(["abcd", "efgh", "ijkl", "mnop"].map { .text($0) }) }
            #expect(try echo.step())
            #expect(echo.text(at: 0) == "éé")
            echo.reset()
        }
    }

    /// A bind that fails part of the way leaves no parameter pointing into the statement's text memory:
    /// those not bound again may point into memory the round freed (a buffer the last round outgrew).
    @Test func failedBindLeavesNoTextPointingIntoFreedMemory() throws {
        try withConnection { db, _ in
            let echo = try db.prepare("SELECT ?1, ?2, ?3")
            // The second text does not fit after the first: the first stays in a buffer retired until the next round.
            try echo.bind([.null, .text(String(repeating: "s", count: 300)), .text(String(repeating: "l", count: 10))])
            #expect(echo.expandedSQL == "SELECT NULL, '\(String(repeating: "s", count: 300))', 'llllllllll'")
            // Over SQLite's default length limit (10^9 bytes): SQLITE_TOOBIG at the first parameter, after the
            // round freed the retired buffer the second still points into. (The zeroed buffer is not touched.)
            let tooBig = DatabaseValue.blob(Data(count: 1_000_000_001))
            #expect(throws: SQLiteError.self) { try echo.bind([tooBig, .text("a"), .text("b")]) }
            #expect(echo.expandedSQL == "SELECT NULL, NULL, NULL")
        }
    }

    /// What the writer relies on to skip reading the schema version at the start of a transaction: the file's
    /// data version stays put while nothing commits, and moves with this connection's commits (DDL included)
    /// and, once this connection starts a transaction, with another connection's.
    @Test func fileDataVersionMovesWithEveryCommitOwnOrOther() throws {
        try withConnection { db, path in
            try db.execute("PRAGMA journal_mode = WAL")
            try db.execute("CREATE TABLE t (a)")
            let other = try Connection(path: path, mode: .readWrite(create: false), busyTimeoutMilliseconds: 1000)
            defer { other.close() }
            try db.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES (1); COMMIT")
            let afterOwn = db.fileDataVersion
            try db.execute("BEGIN IMMEDIATE")
            #expect(db.fileDataVersion == afterOwn)  // nothing committed since: starting a transaction moves nothing
            try db.execute("COMMIT")  // (ending one does, even when empty)
            try other.execute("INSERT INTO t VALUES (2)")
            try db.execute("BEGIN IMMEDIATE")
            let afterOther = db.fileDataVersion
            #expect(afterOther != afterOwn)
            try db.execute("CREATE TABLE u (b)")
            try db.execute("COMMIT")
            #expect(db.fileDataVersion != afterOther)
        }
    }

    /// The blob SQLite reads in place: stored intact, empty is an empty blob (not NULL), unbound afterwards
    /// on success and on failure (the small text before it stays bound), and a wrong parameter count is
    /// refused before anything runs.
    @Test func executeThenBlobStoresTheBytesAndUnbindsThem() throws {
        try withConnection { db, _ in
            try db.execute("CREATE TABLE t (a TEXT, b BLOB, UNIQUE (a))")
            let insert = try db.cachedStatement("INSERT INTO t (a, b) VALUES (?, ?)")
            let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try insert.execute([.text("big")], thenBlob: bytes)
            #expect(insert.expandedSQL == "INSERT INTO t (a, b) VALUES ('big', NULL)")
            try insert.execute([.text("empty")], thenBlob: [])
            let duplicate = #expect(throws: SQLiteError.self) { try insert.execute([.text("big")], thenBlob: [1, 2, 3]) }
            #expect(duplicate?.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(insert.expandedSQL == "INSERT INTO t (a, b) VALUES ('big', NULL)")
            let wrongCount = #expect(throws: SQLiteError.self) { try insert.execute([], thenBlob: [1]) }
            #expect(wrongCount?.extendedCode == ResultCode.SQLITE_RANGE)
            let select = try db.prepare("SELECT a, b, typeof(b) FROM t ORDER BY rowid")
            var rows: [[DatabaseValue]] = []
            while try select.step() { rows.append(select.row()) }
            #expect(rows == [[.text("big"), .blob(Data(bytes)), .text("blob")], [.text("empty"), .blob(Data()), .text("blob")]])
        }
    }

    @Test func everyStorageClassRoundTrips() throws {
        try withConnection { db, _ in
            try db.execute("CREATE TABLE t (v)")
            let values: [DatabaseValue] = [
                .null, .integer(.min), .integer(.max), .real(-0.5), .real(.greatestFiniteMagnitude), .text(""),
                .text("héllo 🌍 \u{0}inside"), .blob(Data()), .blob(Data([0, 1, 2, 255])),
            ]
            let insert = try db.cachedStatement("INSERT INTO t (v) VALUES (?)")
            for value in values { try insert.execute([value]) }
            let select = try db.prepare("SELECT v FROM t ORDER BY rowid")
            var read: [DatabaseValue] = []
            while try select.step() { read.append(select.value(at: 0)) }
            #expect(read == values)
        }
    }

    @Test func emptyTextAndBlobAreNotNull() throws {
        try withConnection { db, _ in
            let statement = try db.prepare("SELECT typeof(?), typeof(?)")
            try statement.bind([.text(""), .blob(Data())])
            #expect(try statement.step())
            #expect(statement.text(at: 0) == "text")
            #expect(statement.text(at: 1) == "blob")
        }
    }

    @Test func errorsCarryExtendedCodeMessageAndSQLButNotArguments() throws {
        try withConnection { db, _ in
            try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
            let insert = try db.cachedStatement("INSERT INTO t (name) VALUES (?)")
            try insert.execute([.text("secret-value")])
            let error = #expect(throws: SQLiteError.self) { try insert.execute([.text("secret-value")]) }
            #expect(error?.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(error?.primaryCode == ResultCode.SQLITE_CONSTRAINT)
            #expect(error?.message.contains("UNIQUE constraint failed: t.name") == true)
            #expect(error?.sql == "INSERT INTO t (name) VALUES (?)")
            #expect(error?.description.contains("secret-value") == false)
        }
    }

    @Test func prepareReportsSyntaxErrorsWithTheSQL() throws {
        try withConnection { db, _ in
            let error = #expect(throws: SQLiteError.self) { try db.prepare("SELEC 1") }
            #expect(error?.primaryCode == ResultCode.SQLITE_ERROR)
            #expect(error?.sql == "SELEC 1")
            #expect(error?.message.contains("syntax error") == true)
        }
    }

    @Test func prepareRefusesASecondStatement() throws {
        try withConnection { db, _ in
            #expect(throws: SQLiteError.self) { try db.prepare("SELECT 1; DROP TABLE x") }
            _ = try db.prepare("SELECT 1; -- trailing comment\n  ")
        }
    }

    @Test func bindRejectsTheWrongNumberOfArguments() throws {
        try withConnection { db, _ in
            let statement = try db.prepare("SELECT ?, ?")
            let error = #expect(throws: SQLiteError.self) { try statement.bind([.integer(1)]) }
            #expect(error?.primaryCode == ResultCode.SQLITE_RANGE)
        }
    }

    @Test func cachedStatementsAreReusedAndReset() throws {
        try withConnection { db, _ in
            let first = try db.cachedStatement("SELECT ?")
            try first.bind([.integer(7)])
            #expect(try first.step())
            let second = try db.cachedStatement("SELECT ?")
            #expect(first === second)
            // Reset, not cleared: the statement starts over with its last binding (callers bind every
            // parameter again).
            #expect(try second.step())
            #expect(second.int64(at: 0) == 7)
        }
    }

    @Test func statementCacheIsBounded() throws {
        var cache = StatementCache(capacity: 3)
        try withConnection { db, _ in
            for index in 0..<10 {
                cache["SELECT \(index)"] = try db.prepare("SELECT \(index)")
                #expect(cache.count <= 3)
            }
            cache.removeAll()
        }
    }

    /// Lookups go through a short list of recent statements first: it must never return a statement that
    /// was replaced or dropped, and must tell texts of the same length apart.
    @Test func statementCacheNeverReturnsAReplacedStatement() throws {
        var cache = StatementCache(capacity: 64)
        try withConnection { db, _ in
            for index in 0..<20 { cache["SELECT \(index + 10)"] = try db.prepare("SELECT \(index + 10)") }
            for index in 0..<20 {  // every text is 9 bytes long; more texts than the recent list holds
                #expect(cache["SELECT \(index + 10)"]?.sql == "SELECT \(index + 10)")
            }
            let replacement = try db.prepare("SELECT 10")
            cache["SELECT 10"] = replacement
            #expect(cache["SELECT 10"] === replacement)
            cache["SELECT 11"] = nil
            #expect(cache["SELECT 11"] == nil)
            cache.removeAll()
            #expect(cache["SELECT 12"] == nil && cache.count == 0)
        }
    }

    /// A statement found by name is built once (its SQL is not even asked for again), is told apart by type
    /// and purpose, and leaves the cache as statements found by text do.
    @Test func namedStatementsAreBuiltOnceAndLeaveWithTheCache() throws {
        try withConnection { db, _ in
            var builds = 0
            let name = StatementName(Int.self, "one")
            let first = try db.cachedStatement(name) {
                builds += 1
                return "SELECT 1"
            }
            let again = try db.cachedStatement(name) {
                builds += 1
                return "SELECT 2"
            }
            #expect(first === again && builds == 1)
            let otherPurpose = try db.cachedStatement(StatementName(Int.self, "three")) { "SELECT 3" }
            let otherType = try db.cachedStatement(StatementName(String.self, "one")) { "SELECT 4" }
            #expect(otherPurpose !== first && otherType !== first && otherType !== otherPurpose)
            #expect(try otherPurpose.step() && otherPurpose.int64(at: 0) == 3)
            #expect(try otherType.step() && otherType.int64(at: 0) == 4)
        }
        var cache = StatementCache(capacity: 2)
        try withConnection { db, _ in
            let name = StatementName(Int.self, "one")
            cache[name] = try db.prepare("SELECT 1")
            #expect(cache[name]?.sql == "SELECT 1" && cache.count == 1)
            for index in 0..<3 { cache["SELECT \(index + 10)"] = try db.prepare("SELECT \(index + 10)") }
            #expect(cache[name] == nil)  // the texts outgrew the capacity: everything went, named ones too
            cache[name] = try db.prepare("SELECT 5")
            let replacement = try db.prepare("SELECT 6")
            cache[name] = replacement
            #expect(cache[name] === replacement && cache.count == 2)
            cache[name] = nil
            #expect(cache[name] == nil && cache.count == 1)
            cache[name] = replacement
            cache.removeAll()
            #expect(cache[name] == nil && cache.count == 0)
        }
    }

    @Test func scriptErrorsPointAtTheFailingStatement() throws {
        try withConnection { db, _ in
            let script = "CREATE TABLE a (x);\nINSERT INTO a VALUES (1);\nINSERT INTO missing VALUES (2);\n"
            let error = #expect(throws: SQLiteError.self) { try db.execute(script) }
            let offset = try #require(error?.offset)
            let line = script.utf8.prefix(offset).filter { $0 == UInt8(ascii: "\n") }.count + 1
            #expect(line == 3)
            #expect(error?.message.contains("no such table: missing") == true)
        }
    }

    @Test func transactionsAndSavepoints() throws {
        try withConnection { db, _ in
            try db.execute("CREATE TABLE t (v)")
            #expect(!db.isInTransaction)
            try db.execute("BEGIN IMMEDIATE; INSERT INTO t VALUES (1); SAVEPOINT s; INSERT INTO t VALUES (2)")
            #expect(db.isInTransaction)
            try db.execute("ROLLBACK TO s; RELEASE s; COMMIT")
            let count = try db.prepare("SELECT count(*), max(v) FROM t")
            #expect(try count.step())
            #expect(count.int64(at: 0) == 1)
            #expect(count.int64(at: 1) == 1)
        }
    }

    @Test func readOnlyConnectionsRefuseWrites() throws {
        try withConnection { db, path in
            try db.execute("CREATE TABLE t (v)")
            let reader = try Connection(path: path, mode: .readOnly, busyTimeoutMilliseconds: 100)
            defer { reader.close() }
            #expect(reader.isReadOnly)
            let error = #expect(throws: SQLiteError.self) { try reader.execute("INSERT INTO t VALUES (1)") }
            #expect(error?.primaryCode == ResultCode.SQLITE_READONLY)
        }
    }

    @Test func openingWithoutCreateFailsForAMissingFile() throws {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("missing.sqlite").path
            let error = #expect(throws: SQLiteError.self) {
                try Connection(path: path, mode: .readWrite(create: false), busyTimeoutMilliseconds: 100)
            }
            #expect(error?.primaryCode == ResultCode.SQLITE_CANTOPEN)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func compileOptionsAreReported() {
        #expect(Connection.compileOptionUsed("ENABLE_PREUPDATE_HOOK"))
        #expect(!Connection.compileOptionUsed("SURELY_NOT_A_REAL_OPTION"))
        #expect(Connection.libraryVersion.hasPrefix("3."))
    }

    @Test func backupCopiesTheDatabase() throws {
        try withConnection { db, path in
            try db.execute("CREATE TABLE t (v); INSERT INTO t VALUES ('kept')")
            let copy = try Connection(path: path + ".copy", mode: .readWrite(create: true), busyTimeoutMilliseconds: 100)
            defer { copy.close() }
            try db.backup(to: copy)
            let select = try copy.prepare("SELECT v FROM t")
            #expect(try select.step())
            #expect(select.text(at: 0) == "kept")
        }
    }

    @Test func columnMetadata() throws {
        try withConnection { db, _ in
            try db.execute("CREATE TABLE t (a INTEGER, b TEXT)")
            let select = try db.prepare("SELECT a, b, a AS a FROM t")
            #expect(select.columnNames == ["a", "b", "a"])
            #expect(select.columnIndex(named: "a") == 0)
            #expect(select.columnIndex(named: "b") == 1)
            #expect(select.columnIndex(named: "c") == nil)
            #expect(select.declaredType(at: 1) == "TEXT")
            #expect(select.isReadOnly)
            #expect(try !db.prepare("DELETE FROM t").isReadOnly)
        }
    }
}
