import Foundation
import ObservableStoreCore
import StoreTestSupport
import TestScheduling
import Testing

@testable import StoreSQLite

/// `Connection.recordingReads`: what SQLite's authorizer reports of the statements prepared meanwhile, on a
/// real file.
@Suite(.timeLimit(.minutes(10)), .threadPerTest) struct AuthorizerTests {
    private func withConnection<T>(_ body: (Connection) throws -> T) throws -> T {
        try withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("db.sqlite").path
            let connection = try Connection(path: path, mode: .readWrite(create: true), busyTimeoutMilliseconds: 1000)
            defer { connection.close() }
            try connection.execute(
                """
                CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT, x REAL);
                CREATE TABLE b (k TEXT PRIMARY KEY, v INTEGER);
                INSERT INTO a (name, x) VALUES ('one', 1);
                """)
            return try body(connection)
        }
    }

    private func step(_ statement: Statement) throws {
        defer { statement.reset() }
        while try statement.step() {}
    }

    private func read(_ table: String, _ column: String) -> ReadAccess {
        ReadAccess(database: "main", table: table, column: column)
    }

    @Test func reportsTheColumnsAStatementReadsAndTheWholeTableForACount() throws {
        try withConnection { db in
            let (_, reads) = try db.recordingReads {
                try step(db.cachedStatement("SELECT a.name, b.v FROM a JOIN b ON b.k = a.name WHERE a.x > ?"))
                try step(db.cachedStatement("SELECT count(*) FROM b"))
            }
            #expect(reads.contains(read("a", "name")) && reads.contains(read("a", "x")))
            #expect(reads.contains(read("b", "k")) && reads.contains(read("b", "v")))
            #expect(reads.contains(ReadAccess(database: nil, table: "b", column: "")))
            #expect(!reads.contains { $0.table == "a" && $0.column == "id" })
        }
    }

    @Test func aCachedStatementIsPreparedAgainSoItsReadsAreReported() throws {
        try withConnection { db in
            let sql = "SELECT name FROM a WHERE id = ?"
            let cached = try db.cachedStatement(sql)
            try cached.bind([.integer(1)])
            try step(cached)
            #expect(try db.cachedStatement(sql) === cached)  // cached while nothing records
            let (_, reads) = try db.recordingReads {
                let again = try db.cachedStatement(sql)
                try again.bind([.integer(1)])
                try step(again)
                return again
            }
            #expect(reads == [read("a", "name"), read("a", "id")])
            // The fresh statement replaced the cached one, and is reused afterwards.
            let after = try db.cachedStatement(sql)
            #expect(after !== cached)
            #expect(try db.cachedStatement(sql) === after)
            // So is a statement found by name.
            let name = StatementName(AuthorizerTests.self, "fetch b")
            _ = try db.cachedStatement(name) { "SELECT v FROM b" }
            let (_, namedReads) = try db.recordingReads { try step(db.cachedStatement(name) { "SELECT v FROM b" }) }
            #expect(namedReads == [read("b", "v")])
        }
    }

    @Test func nothingIsRecordedOutsideAndCallsNest() throws {
        try withConnection { db in
            let (inner, outer) = try db.recordingReads {
                try step(db.cachedStatement("SELECT name FROM a"))
                return try db.recordingReads { try step(db.cachedStatement("SELECT v FROM b")) }.reads
            }
            #expect(inner == [read("b", "v")])
            #expect(outer == [read("a", "name"), read("b", "v")])
            #expect(!db.isRecordingReads)
            try step(db.cachedStatement("SELECT x FROM a"))  // the authorizer stays installed, and records nothing
            let (_, later) = try db.recordingReads {}
            #expect(later.isEmpty)
        }
    }

    @Test func aFailingBodyStopsRecordingAndItsErrorComesThrough() throws {
        try withConnection { db in
            #expect(throws: SQLiteError.self) {
                try db.recordingReads { try step(db.cachedStatement("SELECT nothing FROM a")) }
            }
            #expect(!db.isRecordingReads)
            // The connection still works, cached statements included.
            let statement = try db.cachedStatement("SELECT count(*) FROM a")
            #expect(try statement.step() && statement.int64(at: 0) == 1)
            statement.reset()
        }
    }
}
