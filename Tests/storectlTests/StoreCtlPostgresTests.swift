#if PostgreSQL
import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

/// `storectl --db postgres://…`: the real binary against the test server, each test its own database
/// (``PostgresTestDatabase``), and the same commands against a SQLite file where the output must agree.
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes), .enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct StoreCtlPostgresTests {
    /// The same rows for both engines: SQL that SQLite and PostgreSQL both run (explicit ids and times).
    static let seedSQL = [
        """
        INSERT INTO user_info (id, name, hair_color, created_at, updated_at) VALUES
          ('u1', 'Ada', 'red', '2026-11-01T10:00:00.000Z', '2026-11-01T10:00:00.000Z'),
          ('u2', 'Bob', NULL, '2026-11-02T10:00:00.500Z', '2026-11-02T11:00:00.000Z'),
          ('u3', 'Zoë "quoted", comma', '', '2026-11-03T10:00:00.000Z', '2026-11-03T10:00:00.000Z')
        """,
        """
        INSERT INTO nodes (id, name, x, y, color, width, height, created_at, updated_at) VALUES
          (1, 'Start', 0.5, 1, '#ffffff', 120, 60, '2026-11-01T10:00:00.000Z', '2026-11-01T10:00:00.000Z'),
          (2, 'Middle', 2, -3.25, '#000000', 80, 40, '2026-11-01T10:00:01.000Z', '2026-11-01T10:00:01.000Z'),
          (3, 'End', 10.25, 7, '#4A90D9', 0, 0, '2026-11-01T10:00:02.000Z', '2026-11-01T10:00:02.000Z')
        """,
    ]

    /// Commands whose stdout must be the same on both engines.
    static let sameOutput: [[String]] = {
        var commands: [[String]] = []
        for format in ["ndjson", "json", "csv", "table"] {
            commands.append(["list", "user_info", "--format", format])
            commands.append(["list", "nodes", "--format", format])
            commands.append(["get", "user_info", "u3", "--format", format])
            commands.append(["query", "SELECT id, name, x * 2 AS double_x FROM nodes WHERE name <> :skip ORDER BY id", "--param", "skip=End", "--format", format])
        }
        commands.append(["list", "nodes", "--where", "x > :min", "--param", "min=1", "--order", "-x", "--format", "ndjson"])
        commands.append(["list", "nodes", "--order", "x", "--after", "1", "--limit", "1", "--format", "ndjson"])
        commands.append(["list", "user_info", "--where", "hair_color IS NULL", "--format", "ndjson"])
        commands.append(["get", "nodes", "2", "--format", "json"])
        commands.append(["listeners", "--format", "ndjson"])
        return commands
    }()

    @Test func readCommandsPrintTheSameOnBothEngines() throws {
        try withPostgresTestDatabase { database in
            try withTemporaryDirectory { directory in
                let path = try initStore(in: directory)
                try withStore(path) { store in try store.write { tx in for sql in Self.seedSQL { try tx.execute(sql) } } }
                expectSuccess(try cli(["init", "--db", database.url]))
                try database.psql(Self.seedSQL.joined(separator: ";\n"))
                for command in Self.sameOutput {
                    let sqlite = try cli(command + ["--db", path])
                    let postgres = try cli(command + ["--db", database.url])
                    expectSuccess(sqlite)
                    expectSuccess(postgres)
                    #expect(postgres.stdout == sqlite.stdout, "\(command.joined(separator: " "))\nSQLite:\n\(sqlite.stdout)\nPostgreSQL:\n\(postgres.stdout)")
                }
                // tables: the same names and counts; the last change times are each engine's commit time.
                let sqliteTables = try jsonLines(try cli(["tables", "--format", "ndjson", "--db", path]))
                let postgresTables = try jsonLines(try cli(["tables", "--format", "ndjson", "--db", database.url]))
                #expect(sqliteTables.map { "\($0["name"] ?? "") \($0["records"] ?? "")" } == postgresTables.map { "\($0["name"] ?? "") \($0["records"] ?? "")" })
                #expect(postgresTables.allSatisfy { $0["last_change"] is String })
                // info: the same tables, records and last sequence; store, size, journal and schema are the engine's.
                let info = try jsonObject(try cli(["info", "--format", "json", "--db", database.url]).stdout)
                let sqliteInfo = try jsonObject(try cli(["info", "--format", "json", "--db", path]).stdout)
                for key in ["tables", "records", "last_change_seq", "state"] {
                    #expect("\(info[key] ?? "")" == "\(sqliteInfo[key] ?? "")", "\(key): \(info) vs \(sqliteInfo)")
                }
                #expect(info["journal"] as? String == "server" && info["schema"] as? String == "0003")
                #expect((info["store"] as? String)?.hasSuffix("/\(database.name)") == true)
            }
        }
    }

    @Test func writeCommandsLeaveTheSameRecordsOnBothEngines() throws {
        try withPostgresTestDatabase { database in
            try withTemporaryDirectory { directory in
                let path = try initStore(in: directory)
                expectSuccess(try cli(["init", "--db", database.url]))
                let writes: [(arguments: [String], stdin: String?)] = [
                    (["insert", "user_info", "-"], #"{"id":"u1","name":"Ada","created_at":"2026-11-01T10:00:00.000Z","updated_at":"2026-11-01T10:00:00.000Z"}"# + "\n"
                        + #"{"id":"u2","name":"Bob","hair_color":"red","created_at":"2026-11-02T10:00:00.000Z","updated_at":"2026-11-02T10:00:00.000Z"}"#),
                    (["insert", "nodes", "-", "--format", "ndjson"], #"{"id":1,"name":"A","x":1.5,"y":2,"created_at":"2026-11-01T10:00:00.000Z","updated_at":"2026-11-01T10:00:00.000Z"}"#),
                    (["upsert", "user_info", #"{"id":"u2","name":"Bobby","created_at":"2026-11-02T10:00:00.000Z","updated_at":"2026-11-03T10:00:00.000Z"}"#], nil),
                    (["update", "nodes", "1", "--set", "x=10.5", "--set", "name=Start", "--set", "updated_at=2026-11-04T10:00:00.000Z"], nil),
                    (["delete", "user_info", "u1"], nil),
                    (["insert", "nodes", #"{"id":2,"name":"gone","x":7,"y":0}"#, "--dry-run"], nil),
                    (["insert", "nodes", #"{"id":3,"name":"B","x":20,"y":0,"created_at":"2026-11-05T10:00:00.000Z","updated_at":"2026-11-05T10:00:00.000Z"}"#], nil),
                    (["delete", "nodes", "--where", "x > :min", "--param", "min=15", "--yes"], nil),
                ]
                for write in writes {
                    let sqlite = try cli(write.arguments + ["--db", path], stdin: write.stdin)
                    let postgres = try cli(write.arguments + ["--db", database.url], stdin: write.stdin)
                    expectSuccess(sqlite)
                    expectSuccess(postgres)
                    #expect(postgres.stdout == sqlite.stdout, "\(write.arguments)")
                    let message = { (text: String) in text.replacingOccurrences(of: #"\d+ ms"#, with: "N ms", options: .regularExpression) }
                    #expect(message(postgres.stderr) == message(sqlite.stderr), "\(write.arguments)")
                }
                for table in ["user_info", "nodes"] {
                    let sqlite = try cli(["list", table, "--format", "ndjson", "--db", path])
                    let postgres = try cli(["list", table, "--format", "ndjson", "--db", database.url])
                    #expect(postgres.stdout == sqlite.stdout && !postgres.stdout.isEmpty, "\(sqlite.stdout)\n\(postgres.stdout)")
                }
                // A constraint in the second record: exit 4, nothing written (one transaction).
                let duplicate = #"{"id":"u3","name":"C"}"# + "\n" + #"{"id":"u2","name":"again"}"#
                expectFailure(try cli(["insert", "user_info", "-", "--db", database.url], stdin: duplicate), exit: 4, code: "constraint", "input line 2", "nothing was written")
                #expect(try database.psql("SELECT count(*) FROM user_info").trimmingCharacters(in: .whitespacesAndNewlines) == "1")
                expectFailure(try cli(["update", "nodes", "99", "--set", "x=1", "--db", database.url]), exit: 3, code: "not_found")
            }
        }
    }

    @Test func aLockHeldLongerThanTheBusyTimeoutIsBusy() throws {
        try withPostgresTestDatabase { database in
            expectSuccess(try cli(["init", "--db", database.url]))
            try database.psql(Self.seedSQL.joined(separator: ";\n"))
            // psql holds the row's lock for 5 s; storectl waits 300 ms for it.
            let holder = try RunningProcess(
                executable: URL(fileURLWithPath: PostgresTestServer.psqlPath()),
                ["-X", "-q", database.url, "-c", "BEGIN; UPDATE nodes SET x = 0 WHERE id = 1; SELECT pg_sleep(5); COMMIT;"])
            defer { _ = holder.wait(timeout: 30) }
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline,
                try database.psql("SELECT count(*) FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = 'nodes' AND l.mode = 'RowExclusiveLock'")
                    .trimmingCharacters(in: .whitespacesAndNewlines) == "0"
            {
                Thread.sleep(forTimeInterval: 0.05)
            }
            let busy = try cli(["update", "nodes", "1", "--set", "x=7", "--busy-timeout", "300ms", "--db", database.url])
            expectFailure(busy, exit: 5, code: "busy")
            #expect(try database.psql("SELECT count(*) FROM nodes WHERE x = 7").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    }

    @Test func watchPrintsCommitsOfOtherProcessesInOrder() throws {
        try withPostgresTestDatabase { database in
            expectSuccess(try cli(["init", "--db", database.url]))
            let watcher = try RunningProcess(
                "storectl", ["--db", database.url, "watch", "--since", "0", "--count", "3", "--timeout", "120s"],
                environment: ["NO_COLOR": "1"])
            // Another storectl process, then psql (another program, captured by the triggers).
            expectSuccess(try cli(["insert", "nodes", "-", "--db", database.url], stdin: nodeLines(2).joined(separator: "\n")))
            try database.psql("UPDATE nodes SET x = 42 WHERE name = 'n1'")
            let result = CLIResult(watcher.wait(timeout: 90))
            expectSuccess(result)
            let events = try jsonLines(result)
            #expect(events.map { $0["op"] as? String } == ["insert", "insert", "update"], "\(result)")
            #expect(events.map { $0["seq"] as? Int } == [1, 1, 2], "\(result)")
            #expect(events.map { $0["origin"] as? String } == ["storectl", "storectl", nil], "\(result)")
            let changes = try #require(events.last?["changes"] as? JSONObject, "\(result.stdout)")
            #expect(number(changes["x"]) == 42, "\(result.stdout)")
        }
    }

    @Test func migrateStatusAndUpOnPostgreSQL() throws {
        try withPostgresTestDatabase { database in
            expectSuccess(try cli(["init", "--db", database.url]))
            let status = try cli(["migrate", "status", "--format", "ndjson", "--db", database.url])
            expectSuccess(status)
            let rows = try jsonLines(status)
            #expect(rows.map { $0["state"] as? String } == ["applied", "applied", "applied"], "\(status)")
            #expect(rows.first?["checksum"] as? String == "ok")
            let up = try cli(["migrate", "up", "--db", database.url])
            expectSuccess(up)
            #expect(up.stderr.contains("nothing to do"), "\(up)")
            // A schema newer than storectl: status still works; data commands exit 7.
            try database.psql(
                "INSERT INTO _store_migrations VALUES ('store', 9999, 'future', 'x', now(), 0, 'a newer storectl')")
            expectFailure(try cli(["list", "nodes", "--db", database.url]), exit: 7, code: "schema_too_new")
            let newer = try cli(["migrate", "status", "--format", "ndjson", "--db", database.url])
            #expect(newer.status == 0 || newer.status == 7, "\(newer)")
            expectFailure(try cli(["migrate", "plan", "--db", database.url]), exit: 7, code: "schema_too_new", "newer")
        }
    }

    /// `migrate repair` re-records an edited checksum under the migration lock; `migrate plan` rehearses in a
    /// transaction that is rolled back, so a file that fails is named and nothing changes.
    @Test func migrateRepairAndPlanOnPostgreSQL() throws {
        try withPostgresTestDatabase { database in
            expectSuccess(try cli(["init", "--db", database.url]))
            let plan = try cli(["migrate", "plan", "--db", database.url])
            expectSuccess(plan)
            #expect(plan.stdout.isEmpty && plan.stderr.contains("nothing to do"), "\(plan)")

            try database.psql("UPDATE _store_migrations SET checksum = 'deadbeef' WHERE set_name = 'store' AND version = 1")
            expectFailure(try cli(["migrate", "status", "--db", database.url]), exit: 8, code: "migration_conflict", "0001_store.sql")
            expectFailure(try cli(["migrate", "repair", "--accept", "0099", "--db", database.url]), exit: 3, code: "not_found", "no migration 0099")
            let file = try String(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("Migrations/postgres/0001_store.sql"),
                encoding: .utf8)
            let repair = try cli(["migrate", "repair", "--accept", "0001", "--db", database.url])
            expectSuccess(repair)
            #expect(repair.stdout == "0001: deadbeef -> \(Migration.checksum(of: file))\n", "\(repair)")
            expectSuccess(try cli(["migrate", "status", "--exit-code", "--db", database.url]))
            expectSuccess(try cli(["list", "nodes", "--db", database.url]))

            // With the history gone, 0001 is pending, and rehearsing it fails on the tables it would create.
            try database.psql("DELETE FROM _store_migrations")
            expectFailure(
                try cli(["migrate", "plan", "--db", database.url]), exit: 8, code: "migration_conflict", "0001_store failed",
                "already exists")
            #expect(try database.psql("SELECT count(*) FROM _store_migrations").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
            #expect(try database.psql("SELECT to_regclass('nodes') IS NOT NULL").contains("t"))
        }
    }

    @Test func schemaDescribesTheCatalog() throws {
        try withPostgresTestDatabase { database in
            expectSuccess(try cli(["init", "--db", database.url]))
            let columns = try jsonLines(try cli(["schema", "nodes", "--format", "ndjson", "--db", database.url]))
            #expect(columns.map { $0["column"] as? String ?? "" } == ["id", "name", "x", "y", "color", "width", "height", "created_at", "updated_at"])
            #expect(columns.first?["pk"] as? Bool == true && columns.first?["type"] as? String == "bigint")
            #expect(columns.allSatisfy { $0["indexes"] as? String == "nodes_updated_at" })
            let ddl = try cli(["schema", "nodes", "--sql", "--db", database.url])
            expectSuccess(ddl)
            #expect(ddl.stdout.hasPrefix("CREATE TABLE \"nodes\" (\n  \"id\" bigint NOT NULL,"), "\(ddl.stdout)")
            #expect(ddl.stdout.contains("PRIMARY KEY (id)") && ddl.stdout.contains("CREATE INDEX nodes_updated_at"), "\(ddl.stdout)")
            let all = try cli(["schema", "--sql", "--db", database.url])
            #expect(all.stdout.contains("CREATE TABLE \"user_info\""), "\(all.stdout)")
            #expect(!all.stdout.contains("_store_"), "\(all.stdout)")
        }
    }

    @Test func errorsHaveTheirExitCodesAndChangeNothing() throws {
        try withPostgresTestDatabase { database in
            expectSuccess(try cli(["init", "--db", database.url]))
            try database.psql(Self.seedSQL.joined(separator: ";\n"))
            let url = database.url
            expectFailure(try cli(["get", "user_info", "nobody", "--db", url]), exit: 3, code: "not_found", "user_info/nobody")
            expectFailure(try cli(["list", "missing", "--db", url]), exit: 3, code: "not_found", "table missing")
            expectFailure(
                try cli(["query", "DELETE FROM nodes", "--db", url]), exit: 2, code: "usage", "must only read")
            expectFailure(
                try cli(["query", "SELECT delete_me()", "--db", url]), exit: 2, code: "usage", "delete_me")
            expectFailure(
                try cli(["query", "SELECT 1; DELETE FROM nodes", "--db", url]), exit: 2, code: "usage")
            expectFailure(try cli(["list", "nodes", "--where", "x > :min", "--db", url]), exit: 2, code: "usage", "--param min")
            expectFailure(try cli(["query", "SELECT :id", "--db", url]), exit: 2, code: "invalid_input", ":id")
            #expect(try database.psql("SELECT count(*) FROM nodes").trimmingCharacters(in: .whitespacesAndNewlines) == "3")
            // A database that does not exist: not found, naming it.
            let missing = url.replacingOccurrences(of: "/\(database.name)", with: "/\(database.name)_missing")
            expectFailure(try cli(["info", "--db", missing]), exit: 3, code: "not_found", "\(database.name)_missing")
            // A database that is not a storectl store.
            _ = try withPostgresTestDatabase { empty in
                expectFailure(try cli(["tables", "--db", empty.url]), exit: 3, code: "not_a_store", "not a storectl store")
            }
            // A server that is down, a malformed URL, a wrong password (never printed).
            expectFailure(try cli(["info", "--db", "postgres://postgres@127.0.0.1:1/app"]), exit: 11, code: "unavailable")
            expectFailure(try cli(["info", "--db", "postgres://postgres@127.0.0.1:port/app"]), exit: 2, code: "invalid_input", "port")
            let server = try #require(PostgresTestServer.url)
            let wrong = try PostgresTestServer.url(server, database: "postgres")
                .replacingOccurrences(of: "://postgres@", with: "://store_password_test:sekrit-guess@")
            let refused = try cli(["info", "--db", wrong])
            expectFailure(refused, exit: 11, code: "unavailable")
            #expect(!refused.stderr.contains("sekrit-guess"), "\(refused)")
            // JSON errors too.
            let json = try cli(["get", "user_info", "nobody", "--format", "json", "--db", url])
            #expect(parseError(json.stderr)?.exit == 3, "\(json)")
        }
    }

    @Test func sqliteOnlyCommandsRefuseAndNameTheAlternative() throws {
        try withPostgresTestDatabase { database in
            expectFailure(try cli(["backup", "/tmp/never.sqlite", "--db", database.url]), exit: 2, code: "usage", "pg_dump")
            expectFailure(try cli(["backups", "--db", database.url]), exit: 2, code: "usage", "pg_dump")
            expectFailure(try cli(["checkpoint", "--db", database.url]), exit: 2, code: "usage", "the server checkpoints")
            try withTemporaryDirectory { directory in
                expectFailure(try cli(["demo", "--db", database.url], directory: directory), exit: 2, code: "usage", "SQLite file")
                #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "demo made no file")
            }
            #expect(!FileManager.default.fileExists(atPath: "/tmp/never.sqlite"))
            // Nothing was made in the database either.
            #expect(try database.psql("SELECT to_regclass('_store_migrations') IS NULL").contains("t"))
        }
    }

    @Test func checkReportsAMissingOrDisabledCaptureTrigger() throws {
        try withPostgresTestDatabase { database in
            expectSuccess(try cli(["init", "--db", database.url]))
            let healthy = try cli(["check", "--db", database.url])
            expectSuccess(healthy)
            #expect(healthy.stdout == "ok\n", "\(healthy)")
            try database.psql("DROP TRIGGER _store_capture_update ON nodes; ALTER TABLE user_info DISABLE TRIGGER _store_capture_insert")
            let damaged = try cli(["check", "--db", database.url])
            expectFailure(damaged, exit: 9, code: "integrity", "2 problems")
            #expect(damaged.stdout.contains("table nodes is missing trigger _store_capture_update"), "\(damaged)")
            #expect(damaged.stdout.contains("trigger _store_capture_insert on table user_info is disabled"), "\(damaged)")
        }
    }

    /// A service's `boolean` column takes what a SQLite integer column takes (1, 0, true, false; `--set` text too)
    /// and lists as 1 and 0; a value that is no boolean is refused with nothing written.
    @Test func aBooleanColumnTakesOneZeroTrueAndFalse() throws {
        try withPostgresTestDatabase { database in
            expectSuccess(try cli(["init", "--db", database.url]))
            try database.psql("CREATE TABLE flags (id bigint PRIMARY KEY, on_off boolean NOT NULL); SELECT _store_capture('flags')")
            let lines = [#"{"id":1,"on_off":1}"#, #"{"id":2,"on_off":true}"#, #"{"id":3,"on_off":false}"#, #"{"id":4,"on_off":0}"#]
            expectSuccess(try cli(["insert", "flags", "-", "--format", "ndjson", "--db", database.url], stdin: lines.joined(separator: "\n")))
            expectSuccess(try cli(["update", "flags", "3", "--set", "on_off=1", "--db", database.url]))
            let listed = try jsonLines(try cli(["list", "flags", "--format", "ndjson", "--db", database.url]))
            #expect(listed.map { number($0["on_off"]) } == [1, 1, 1, 0], "\(listed)")
            expectFailure(
                try cli(["insert", "flags", #"{"id":9,"on_off":"maybe"}"#, "--db", database.url]), exit: 2, code: "invalid_input", "boolean")
            #expect(try database.psql("SELECT count(*) FROM flags").trimmingCharacters(in: .whitespacesAndNewlines) == "4")
        }
    }

    @Test func initInstallsTheSchemaOnceAndNeedsTheDatabase() throws {
        try withPostgresTestDatabase { database in
            let first = try cli(["init", "--db", database.url])
            expectSuccess(first)
            #expect(first.stderr.contains("schema 0003"), "\(first)")
            expectSuccess(try cli(["init", "--db", database.url]))
            #expect(try database.psql("SELECT count(*) FROM _store_migrations WHERE set_name = 'store'").contains("3"))
            let missing = database.url + "_missing"
            expectFailure(try cli(["init", "--db", missing]), exit: 3, code: "not_found", "\(database.name)_missing")
        }
    }
}
#endif
