import Foundation
import ObservableStore
import StoreTestSupport
import TestScheduling
import Testing

// Bad input: one table of broken and hostile input, run through the real storectl binary.
//
// Every case checks:
// - the documented exit code (STORECTL.md C.2), no crash and no stack trace;
// - exactly one `storectl: error[CODE]: MESSAGE` line on stderr, naming what was wrong;
// - that nothing changed. A healthy store keeps every row of every table, its schema and its
//   user_version, and `storectl check` still exits 0. A damaged file, or something that is not a store,
//   keeps its bytes.
// Input that must be accepted (a 20 MB value, SQL text used as a value) is tested after the table.

/// One bad-input case: what storectl runs, against what, and how it must fail.
struct BadInputCase: Sendable, Identifiable, CustomTestStringConvertible {
    /// Text the error message must contain: one string, or any one of several.
    struct Fragment: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
        let alternatives: [String]

        init(stringLiteral value: String) { alternatives = [value] }
        private init(alternatives: [String]) { self.alternatives = alternatives }

        static func anyOf(_ alternatives: String...) -> Fragment { Fragment(alternatives: alternatives) }

        func isFound(in message: String) -> Bool { alternatives.contains { message.contains($0) } }

        var description: String { alternatives.map { "\"\($0)\"" }.joined(separator: " or ") }
    }

    /// A file written into the case's working directory before storectl runs, or its stdin.
    enum Input: Sendable {
        case text(String)
        case bytes([UInt8])
        /// `[` × depth, then `]` × depth.
        case nestedArrays(depth: Int)
        /// `{"a":` × depth, never closed: the depth limit must stop the parser long before the end.
        case nestedObjects(depth: Int)
        /// `count` valid NDJSON nodes whose names are `nameBytes` long.
        case bulkNodes(count: Int, nameBytes: Int)
        /// An empty directory.
        case directory

        var data: Data {
            switch self {
            case .text(let text): Data(text.utf8)
            case .bytes(let bytes): Data(bytes)
            case .nestedArrays(let depth):
                Data(repeating: UInt8(ascii: "["), count: depth) + Data(repeating: UInt8(ascii: "]"), count: depth)
            case .nestedObjects(let depth): Data(String(repeating: #"{"a":"#, count: depth).utf8)
            case .bulkNodes(let count, let nameBytes):
                Data(
                    (0..<count).map { index in
                        let name = "bulk \(index) " + String(repeating: "p", count: max(0, nameBytes - 12))
                        return #"{"name":"\#(name)","x":\#(index),"y":0}"# + "\n"
                    }.joined().utf8)
            case .directory: Data()
            }
        }

        func write(to url: URL) throws {
            if case .directory = self {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } else {
                try data.write(to: url)
            }
        }
    }

    /// What the store path holds when storectl runs.
    enum Setup: Sendable {
        /// The seeded store (nodes alpha, beta, gamma with ids 1–3, user "me"), as is.
        case seededStore
        /// The seeded store with a migration 0099 in its history and user_version 99, as a newer storectl leaves it.
        case newerSchema
        /// The seeded store, its file made unwritable (chmod 0444; for root, `chattr +i`).
        case readOnlyFile
        /// The seeded store, its directory made unwritable, so SQLite cannot create `-wal` and `-shm`.
        case readOnlyDirectory
        /// An empty directory instead of a file.
        case directory
        /// A file holding these bytes instead of a store.
        case file([UInt8])
        /// The seeded store plus 2,000 nodes, checkpointed, then cut to half its pages.
        case truncatedStore
        /// The seeded store plus 2,000 nodes, with garbage over the root page of `nodes`.
        case corruptedPage

        /// True when the store is healthy, so its rows must survive and `check` must pass afterwards;
        /// otherwise the bytes at the store path must survive.
        var isHealthyStore: Bool {
            switch self {
            case .seededStore, .newerSchema, .readOnlyFile, .readOnlyDirectory: true
            case .directory, .file, .truncatedStore, .corruptedPage: false
            }
        }
    }

    /// How storectl is started.
    enum Launch: Sendable {
        case direct
        /// Through `sh` with `ulimit -f BLOCKS` and SIGXFSZ ignored, so that a write past the limit fails
        /// with EFBIG instead of killing the process. Only that child has the limit.
        case fileSizeLimit(blocks: Int)
    }

    let name: String
    /// storectl's arguments after `--db STORE`; relative paths are in the case's working directory.
    let arguments: [String]
    let files: [String: Input]
    let stdin: Input?
    let setup: Setup
    let launch: Launch
    /// The documented exit code.
    let exit: Int32
    /// The error code in `storectl: error[CODE]: …`.
    let code: String
    /// What the message must contain, so that it names what was wrong.
    let fragments: [Fragment]

    init(
        _ name: String, _ arguments: [String], files: [String: Input] = [:], stdin: Input? = nil,
        setup: Setup = .seededStore, launch: Launch = .direct, exit: Int32, code: String, _ fragments: Fragment...
    ) {
        self.name = name
        self.arguments = arguments
        self.files = files
        self.stdin = stdin
        self.setup = setup
        self.launch = launch
        self.exit = exit
        self.code = code
        self.fragments = fragments
    }

    var id: String { name }
    var testDescription: String { name }
}

/// The UTF-8 bytes of `text`, for building inputs byte by byte.
private func utf8(_ text: String) -> [UInt8] { Array(text.utf8) }

/// 64 KiB of deterministic noise (a linear congruential generator): not a database, never the same as one.
private let noise: [UInt8] = {
    var state: UInt32 = 0x2545_F491
    return (0..<65_536).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
    }
}()

extension BadInputCase {
    /// Every case, for `@Test(arguments:)`.
    static let all: [BadInputCase] =
        jsonCases + recordFileCases + typeCases + constraintCases + sizeCases + encodingCases + injectionCases + fileCases

    static let jsonCases: [BadInputCase] = [
        // A paste or an upload cut short: the error says where the input ran out.
        BadInputCase(
            "JSON object cut short", ["insert", "nodes", #"{"name":"cut","x":1"#],
            exit: 2, code: "invalid_input", "argument line 1", "end of input"),
        // Text after a complete value is not ignored: it may be a second record that would be lost.
        BadInputCase(
            "JSON object followed by garbage", ["insert", "nodes", #"{"name":"a","x":1,"y":2} garbage"#],
            exit: 2, code: "invalid_input", "argument line 1", "after the JSON value"),
        // 100,000 nested arrays overflow a recursive parser's stack: refused at the depth limit, no crash.
        BadInputCase(
            "JSON arrays nested 100,000 deep", ["insert", "nodes", "deep.json"],
            files: ["deep.json": .nestedArrays(depth: 100_000)],
            exit: 2, code: "invalid_input", "deep.json line 1", "nested too deeply"),
        // The same through objects, on stdin, never closed.
        BadInputCase(
            "JSON objects nested 100,000 deep on stdin", ["insert", "nodes", "-"],
            stdin: .nestedObjects(depth: 100_000),
            exit: 2, code: "invalid_input", "stdin line 1", "nested too deeply"),
        // A raw NUL inside a string is a control character that JSON requires to be escaped.
        BadInputCase(
            "raw NUL byte inside a JSON string", ["insert", "nodes", "nul.ndjson"],
            files: ["nul.ndjson": .bytes(utf8(#"{"name":"a"#) + [0x00] + utf8(#"b","x":1,"y":2}"#) + [0x0A])],
            exit: 2, code: "invalid_input", "nul.ndjson line 1", "control character"),
        // A NUL after the value (a C string's terminator copied along) is not white space.
        BadInputCase(
            "NUL byte after a JSON object on stdin", ["insert", "nodes", "-"],
            stdin: .bytes(utf8(#"{"name":"a","x":1,"y":2}"#) + [0x00, 0x0A]),
            exit: 2, code: "invalid_input", "stdin line 1"),
        // A lone high surrogate is no Unicode scalar: refused, not replaced with U+FFFD.
        BadInputCase(
            #"lone high surrogate \ud800"#, ["insert", "nodes", #"{"name":"\ud800","x":1,"y":2}"#],
            exit: 2, code: "invalid_input", "argument line 1", "escape"),
        // A lone low surrogate, likewise.
        BadInputCase(
            #"lone low surrogate \udc00"#, ["insert", "nodes", #"{"name":"\udc00","x":1,"y":2}"#],
            exit: 2, code: "invalid_input", "argument line 1", "escape"),
        // A high surrogate followed by an escape that is not a low surrogate.
        BadInputCase(
            #"high surrogate followed by \u0041"#, ["insert", "nodes", #"{"name":"\ud800\u0041","x":1,"y":2}"#],
            exit: 2, code: "invalid_input", "argument line 1", "surrogate"),
        // An array element that is not an object has no columns to insert.
        BadInputCase(
            "JSON array element that is not an object", ["insert", "nodes", #"[{"name":"a","x":1,"y":2},42]"#],
            exit: 2, code: "invalid_input", "expected a JSON object"),
        // A repeated key would let one of two values win silently.
        BadInputCase(
            "JSON object with a repeated key", ["insert", "nodes", #"{"name":"a","name":"b","x":1,"y":2}"#],
            exit: 2, code: "invalid_input", "'name'", "twice"),
    ]

    static let recordFileCases: [BadInputCase] = [
        // One bad line among good ones: nothing is written, and the error names the line.
        BadInputCase(
            "NDJSON with a bad line 3 of 4", ["insert", "nodes", "mid.ndjson"],
            files: [
                "mid.ndjson": .text(
                    #"{"name":"g1","x":1,"y":2}"# + "\n" + #"{"name":"g2","x":1,"y":2}"# + "\n"
                        + #"{"name":"bad","x":1,,"y":2}"# + "\n" + #"{"name":"g4","x":1,"y":2}"# + "\n")
            ],
            exit: 2, code: "invalid_input", "mid.ndjson line 3", "nothing was written"),
        // An opening quote that never closes would swallow every following row into one field.
        BadInputCase(
            "CSV with an unterminated quote", ["insert", "nodes", "quote.csv"],
            files: ["quote.csv": .text("name,x,y\n\"unbalanced,1,2\nok,3,4\n")],
            exit: 2, code: "invalid_input", "quote.csv line 2", "unterminated"),
        // A quote in the middle of an unquoted field is malformed RFC 4180.
        BadInputCase(
            "CSV with a stray quote inside a field", ["insert", "nodes", "stray.csv"],
            files: ["stray.csv": .text("name,x,y\nab\"c,1,2\n")],
            exit: 2, code: "invalid_input", "stray.csv line 2", "'\"'"),
        // A row longer than the header: which column would the extra field go to?
        BadInputCase(
            "CSV row with more fields than the header", ["insert", "nodes", "many.csv"],
            files: ["many.csv": .text("name,x,y\nok,1,2\ntoo many,1,2,3\n")],
            exit: 2, code: "invalid_input", "many.csv line 3", "found 4"),
        // A row shorter than the header.
        BadInputCase(
            "CSV row with fewer fields than the header", ["insert", "nodes", "few.csv"],
            files: ["few.csv": .text("name,x,y\nok,1,2\ntoo few,1\n")],
            exit: 2, code: "invalid_input", "few.csv line 3", "found 2"),
        // A header naming a column twice: one of the two values would win silently (JSON refuses the same).
        BadInputCase(
            "CSV header naming a column twice", ["insert", "nodes", "twice.csv"],
            files: ["twice.csv": .text("name,x,y,x\na,1,2,3\n")],
            exit: 2, code: "invalid_input", "twice.csv line 1", "'x'"),
        // A header naming a column the table does not have.
        BadInputCase(
            "CSV header naming an unknown column", ["insert", "nodes", "colour.csv"],
            files: ["colour.csv": .text("name,x,y,colour\na,1,2,red\n")],
            exit: 2, code: "invalid_input", "colour.csv line 1", "colour"),
        // An input path that is a directory cannot be read as records.
        BadInputCase(
            "input path that is a directory", ["insert", "nodes", "inputs"], files: ["inputs": .directory],
            exit: 2, code: "usage", "inputs", "not a readable file"),
    ]

    static let typeCases: [BadInputCase] = [
        // Text for the INTEGER key.
        BadInputCase(
            "text in the INTEGER key column", ["insert", "nodes", #"{"id":"seven","name":"a","x":1,"y":2}"#],
            exit: 2, code: "invalid_input", "argument line 1", "id is INTEGER"),
        // Text for a REAL column, through CSV's conversion by column type.
        BadInputCase(
            "text in a REAL column of a CSV row", ["insert", "nodes", "text.csv"],
            files: ["text.csv": .text("name,x,y\na,left,2\n")],
            exit: 2, code: "invalid_input", "text.csv line 2", "x is REAL"),
        // A fraction for an integer must not be truncated to 1.
        BadInputCase(
            "float in the INTEGER key column", ["insert", "nodes", #"{"id":1.5,"name":"a","x":1,"y":2}"#],
            exit: 2, code: "invalid_input", "id is INTEGER", "1.5"),
        // One past Int64.max must not wrap or become a float.
        BadInputCase(
            "integer beyond Int64", ["insert", "nodes", #"{"id":9223372036854775808,"name":"a","x":1,"y":2}"#],
            exit: 2, code: "invalid_input", "9223372036854775808"),
        // 1e999 is infinity as a double: not a storable number.
        BadInputCase(
            "number beyond Double", ["insert", "nodes", #"{"name":"a","x":1e999,"y":2}"#],
            exit: 2, code: "invalid_input", "1e999"),
        // true is 1 for an INTEGER column, but nothing for a TEXT one.
        BadInputCase(
            "boolean in a TEXT column", ["insert", "nodes", #"{"name":true,"x":1,"y":2}"#],
            exit: 2, code: "invalid_input", "name is TEXT"),
        // A misspelled column is an error, not silently dropped.
        BadInputCase(
            "unknown column", ["insert", "nodes", #"{"name":"a","x":1,"y":2,"colour":"red"}"#],
            exit: 2, code: "invalid_input", "colour"),
        // --set of a column that does not exist.
        BadInputCase(
            "--set of an unknown column", ["update", "nodes", "1", "--set", "colour=red"],
            exit: 2, code: "usage", "colour"),
        // A table that does not exist is not created.
        BadInputCase(
            "unknown table in insert", ["insert", "nope", #"{"name":"a"}"#],
            exit: 3, code: "not_found", "table nope not found"),
        // Nor listed.
        BadInputCase("unknown table in list", ["list", "nope"], exit: 3, code: "not_found", "table nope not found"),
    ]

    static let constraintCases: [BadInputCase] = [
        // name is NOT NULL without a default.
        BadInputCase(
            "missing NOT NULL column", ["insert", "nodes", #"{"x":1,"y":2}"#],
            exit: 4, code: "constraint", "NOT NULL", "nodes.name"),
        // An explicit null is no better.
        BadInputCase(
            "null in a NOT NULL column", ["insert", "nodes", #"{"name":null,"x":1,"y":2}"#],
            exit: 4, code: "constraint", "nodes.name"),
        // id 2 exists (beta).
        BadInputCase(
            "duplicate primary key", ["insert", "nodes", #"{"id":2,"name":"again","x":1,"y":2}"#],
            exit: 4, code: "constraint", "UNIQUE", "nodes.id"),
        // All or nothing: records 1 and 2 are fine, record 3 repeats id 2, and none of the three is written.
        BadInputCase(
            "batch of 3 whose 3rd record is a duplicate", ["insert", "nodes", "batch.ndjson"],
            files: [
                "batch.ndjson": .text(
                    #"{"id":10,"name":"ten","x":1,"y":2}"# + "\n" + #"{"id":11,"name":"eleven","x":1,"y":2}"# + "\n"
                        + #"{"id":2,"name":"beta again","x":1,"y":2}"# + "\n")
            ],
            exit: 4, code: "constraint", "input line 3", "nothing was written"),
        // width >= 0.
        BadInputCase(
            "CHECK violation in insert", ["insert", "nodes", #"{"name":"a","x":1,"y":2,"width":-1}"#],
            exit: 4, code: "constraint", "CHECK"),
        // The same through update.
        BadInputCase(
            "CHECK violation in update", ["update", "nodes", "1", "--set", "width=-1"],
            exit: 4, code: "constraint", "CHECK"),
    ]

    static let sizeCases: [BadInputCase] = [
        // Over SQLite's default SQLITE_MAX_LENGTH (1,000,000,000 bytes): zeroblob asks for it without allocating.
        BadInputCase(
            "value over SQLite's length limit", ["query", "SELECT zeroblob(1500000000) AS big"],
            exit: 2, code: "invalid_input", "too big"),
    ]

    static let encodingCases: [BadInputCase] = [
        // 0xFF 0xFE never occur in UTF-8. Replacing them with U+FFFD would change the user's data without a word.
        BadInputCase(
            "invalid UTF-8 on line 2 of an NDJSON file", ["insert", "nodes", "bad-utf8.ndjson"],
            files: [
                "bad-utf8.ndjson": .bytes(
                    utf8(#"{"name":"ok","x":1,"y":2}"#) + [0x0A] + utf8(#"{"name":"bad "#) + [0xFF, 0xFE]
                        + utf8(#" byte","x":1,"y":2}"#) + [0x0A])
            ],
            exit: 2, code: "invalid_input", "bad-utf8.ndjson line 2", "UTF-8"),
        // 0xC3 must be followed by a continuation byte; '(' is not one.
        BadInputCase(
            "invalid UTF-8 on line 3 of a CSV file", ["insert", "nodes", "bad-utf8.csv"],
            files: ["bad-utf8.csv": .bytes(utf8("name,x,y\nok,1,2\nbad ") + [0xC3, 0x28] + utf8(" byte,1,2\n"))],
            exit: 2, code: "invalid_input", "bad-utf8.csv line 3", "UTF-8"),
        // An encoded surrogate (CESU-8, ED A0 80) is not valid UTF-8 either.
        BadInputCase(
            "encoded surrogate on stdin", ["insert", "nodes", "-"],
            stdin: .bytes(utf8(#"{"name":"cesu "#) + [0xED, 0xA0, 0x80] + utf8(#"","x":1,"y":2}"#) + [0x0A]),
            exit: 2, code: "invalid_input", "stdin line 1", "UTF-8"),
        // An overlong encoding of '/' (C0 AF), the classic way around path filters.
        BadInputCase(
            "overlong encoding in a JSON file", ["insert", "nodes", "overlong.json"],
            files: ["overlong.json": .bytes(utf8(#"{"name":"overlong "#) + [0xC0, 0xAF] + utf8(#"","x":1,"y":2}"#))],
            exit: 2, code: "invalid_input", "overlong.json line 1", "UTF-8"),
    ]

    static let injectionCases: [BadInputCase] = [
        // A second statement after the expression.
        BadInputCase(
            "--where with a second statement", ["list", "nodes", "--where", "1; DROP TABLE nodes"],
            exit: 2, code: "usage", "--where"),
        // It closes the parenthesis storectl put around it: not one expression, although the result parses.
        BadInputCase(
            "--where closing its own parenthesis", ["list", "nodes", "--where", "x > 0) OR (1"],
            exit: 2, code: "usage", "--where"),
        // A line comment hides the closing parenthesis and everything storectl appends after it (RETURNING, ORDER
        // BY, LIMIT): a delete that says it deleted 0 records while it deleted them all.
        BadInputCase(
            "--where ending in a line comment", ["delete", "nodes", "--where", "0) OR 1=1 --", "--yes"],
            exit: 2, code: "usage", "--where"),
        // An unterminated block comment runs to the end of the SQL: the same effect.
        BadInputCase(
            "--where ending in an open block comment", ["delete", "nodes", "--where", "0) OR 1=1 /*", "--yes"],
            exit: 2, code: "usage", "--where"),
        // --order names a column; it is never spliced in as SQL.
        BadInputCase(
            "--order with SQL", ["list", "nodes", "--order", "x; DROP TABLE nodes"],
            exit: 2, code: "usage", "--order"),
        // The column part of --set names a column; it is never spliced in as SQL.
        BadInputCase(
            "--set with SQL in the column name", ["update", "nodes", "1", "--set", "name; DROP TABLE nodes; --=x"],
            exit: 2, code: "usage", "no column"),
        // The value part is converted by the column's type: SQL is not a number.
        BadInputCase(
            "--set with SQL in a REAL value", ["update", "nodes", "1", "--set", "x=1; DROP TABLE nodes"],
            exit: 2, code: "invalid_input", "x is REAL"),
        // An INTEGER key is parsed as an integer, not spliced in.
        BadInputCase(
            "KEY of SQL in get", ["get", "nodes", "1 OR 1=1"],
            exit: 2, code: "invalid_input", "1 OR 1=1", "integer"),
        // Likewise when deleting, where a splice would delete everything.
        BadInputCase(
            "KEY of SQL in delete", ["delete", "nodes", "1 OR 1=1"],
            exit: 2, code: "invalid_input", "1 OR 1=1"),
        // A TEXT key is bound: the classic quote trick finds no record.
        BadInputCase(
            "TEXT KEY of SQL in get", ["get", "user_info", "' OR '1'='1"],
            exit: 3, code: "not_found", "user_info/' OR '1'='1"),
        // A table name is looked up, never spliced in.
        BadInputCase(
            "table name with a second statement", ["list", "nodes; DROP TABLE nodes"],
            exit: 3, code: "not_found", "table nodes; DROP TABLE nodes not found"),
        // A table name that tries to close storectl's identifier quotes.
        BadInputCase(
            "table name closing its quotes", ["insert", #"nodes"; DROP TABLE nodes; --"#, #"{"name":"a","x":1,"y":2}"#],
            exit: 3, code: "not_found", "not found"),
        // The store's own tables are not user tables: their bookkeeping cannot be edited from the shell.
        BadInputCase(
            "update of an internal table", ["update", "_store_meta", "bookkeeping", "--set", "value=99"],
            exit: 3, code: "not_found", "_store_meta"),
        // Nor is SQLite's schema table.
        BadInputCase(
            "list of sqlite_master", ["list", "sqlite_master"], exit: 3, code: "not_found", "sqlite_master"),
    ]

    static let fileCases: [BadInputCase] = [
        // A directory is not a store file; nothing is created inside it.
        BadInputCase(
            "store path that is a directory", ["insert", "nodes", #"{"name":"a","x":1,"y":2}"#], setup: .directory,
            exit: 3, code: "cannot_open", "is a directory"),
        // Random bytes are not a database, and are left alone.
        BadInputCase(
            "store file of random bytes", ["insert", "nodes", #"{"name":"a","x":1,"y":2}"#], setup: .file(noise),
            exit: 3, code: "not_a_store", .anyOf("not a database", "not a storectl store")),
        // An empty file is not a store either, and must stay empty: only `init` creates a database.
        BadInputCase(
            "empty store file", ["insert", "nodes", #"{"name":"a","x":1,"y":2}"#], setup: .file([]),
            exit: 3, code: "not_a_store", "not a storectl store"),
        // Half the pages are gone: reading is refused as corrupt, and the file is not "repaired".
        BadInputCase(
            "truncated store, list", ["list", "nodes"], setup: .truncatedStore,
            exit: 9, code: "corrupt", "malformed"),
        // `check` reports it with its own exit code.
        BadInputCase(
            "truncated store, check", ["check"], setup: .truncatedStore, exit: 9, code: "integrity", "malformed"),
        // A page of garbage: `check` finds it (STORECTL.md C.3).
        BadInputCase(
            "store with a corrupted page, check", ["check"], setup: .corruptedPage,
            exit: 9, code: "integrity", "problem"),
        // A write into the damaged table fails and writes nothing.
        BadInputCase(
            "store with a corrupted page, insert", ["insert", "nodes", #"{"name":"a","x":1,"y":2}"#],
            setup: .corruptedPage, exit: 9, code: "corrupt", "malformed", "nothing was written"),
        // Reads of a read-only file work (see aReadOnlyStoreFileCanStillBeRead); a write is an I/O error (exit 1).
        BadInputCase(
            "read-only store file, insert", ["insert", "nodes", #"{"name":"a","x":1,"y":2}"#], setup: .readOnlyFile,
            exit: 1, code: "read_only", .anyOf("readonly", "read-only"), "nothing was written"),
        // A delete after its count was read.
        BadInputCase(
            "read-only store file, delete", ["delete", "nodes", "1"], setup: .readOnlyFile,
            exit: 1, code: "read_only", .anyOf("readonly", "read-only")),
        // Without a writable directory SQLite cannot create `-wal` and `-shm`: the same failure whoever runs it
        // (for an ordinary user SQLite says SQLITE_READONLY, for root with `chattr +i` SQLITE_CANTOPEN).
        BadInputCase(
            "store in a read-only directory, insert", ["insert", "nodes", #"{"name":"a","x":1,"y":2}"#],
            setup: .readOnlyDirectory,
            exit: 1, code: "read_only", .anyOf("readonly", "read-only", "not writable")),
        // Migration 0099 is unknown to this storectl: data commands refuse the store.
        BadInputCase(
            "store newer than storectl, list", ["list", "nodes"], setup: .newerSchema,
            exit: 7, code: "schema_too_new", "0099"),
        BadInputCase(
            "store newer than storectl, insert", ["insert", "nodes", #"{"name":"a","x":1,"y":2}"#], setup: .newerSchema,
            exit: 7, code: "schema_too_new", "0099"),
        // A full disk, as a file-size limit: 2048 blocks are 1 MB where sh counts 512-byte blocks (dash) and 2 MB
        // where it counts KiB, and 5,000 records of 1 KB need more than 5 MB of WAL. The error is the library's
        // disk_full ("the disk or a size limit is full"), an I/O error (exit 1), and the transaction is rolled back.
        BadInputCase(
            "full disk (file-size limit) during a 5,000-record insert", ["insert", "nodes", "bulk.ndjson"],
            files: ["bulk.ndjson": .bulkNodes(count: 5_000, nameBytes: 1_000)], launch: .fileSizeLimit(blocks: 2_048),
            exit: 1, code: "disk_full", "nothing was written"),
    ]
}

// MARK: - The table test

@Suite(.timeLimit(.minutes(10)), .threadPerTest, .tags(.processes)) struct StoreCtlBadInputTableTests {
    @Test(arguments: BadInputCase.all)
    func badInputFailsCleanlyAndChangesNothing(_ badInput: BadInputCase) throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try badInput.setup.prepare(path, in: directory)
            for (name, input) in badInput.files {
                try input.write(to: directory.appendingPathComponent(name))
            }
            let before = try Evidence(of: path, healthy: badInput.setup.isHealthyStore)

            let result = try withAccess(restrictedBy: badInput.setup, path: path, directory: directory) {
                try badInput.run(path: path, in: directory)
            }

            // The documented exit code, no crash, and exactly one error line of the documented form.
            let error = expectFailure(result, exit: badInput.exit, code: badInput.code)
            #expect(result.stderrLines.count == 1, "exactly one error line on stderr: \(result)")
            #expect(
                result.stderrLines.first?.hasPrefix("storectl: error[\(badInput.code)]: ") == true,
                "the error line's form: \(result)")
            for fragment in badInput.fragments {
                #expect(
                    error.map { fragment.isFound(in: $0.message) } == true,
                    "the message should contain \(fragment): \(error?.message ?? "(no error line)")")
            }

            // Nothing changed: every row of a healthy store, the bytes of anything else.
            let after = try Evidence(of: path, healthy: badInput.setup.isHealthyStore)
            #expect(after == before, "the store changed: before \(before), after \(after)")
            if badInput.setup.isHealthyStore {
                let check = try cli(["--db", path, "check"])
                #expect(check.status == 0, "the store no longer passes check: \(check)")
            }
        }
    }

    /// A one-record write whose COMMIT hits a file-size limit: the WAL, kept long by another connection, already
    /// reaches past the limit, so the commit's few pages fail to append (SQLite leaves `sqlite3_system_errno` at 0
    /// there; it was reported as `internal`). The 5,000-record case of the table fails before COMMIT instead.
    @Test(arguments: [
        ["insert", "nodes", #"{"name":"one more","x":1,"y":2}"#],
        ["update", "nodes", "1", "--set", "name=renamed"],
    ])
    func aFullDiskAtTheCommitOfAOneRecordWriteIsDiskFull(_ arguments: [String]) throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try makeSeededStore(path, in: directory)
            // This connection stays open, so nobody checkpoints and resets the WAL: about 450 KB of it, far below
            // the store's 1,000-page checkpoint, and past 128 blocks (64 KB for dash, 128 KB for bash).
            let holder = try SQLiteStore(path: path)
            defer { holder.close() }
            try holder.write { tx in
                try tx.execute("CREATE TABLE padding (bytes BLOB)")
                try tx.execute(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) INSERT INTO padding SELECT randomblob(1000) FROM n")
            }
            let walSize = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
            #expect(walSize > 256 * 1024, "the WAL should reach past the limit: \(walSize) bytes")
            let before = try Evidence(of: path, healthy: true)

            let command = ([try storectlURL().path, "--db", path] + arguments).map(quotedForShell).joined(separator: " ")
            let result = try shell("ulimit -f 128 && trap '' XFSZ && exec \(command)", directory: directory)

            expectFailure(result, exit: 1, code: "disk_full", "a file size limit")
            #expect(result.stderrLines.count == 1, "exactly one error line on stderr: \(result)")
            #expect(try Evidence(of: path, healthy: true) == before, "the failed write changed the store")
            // Without the limit the same write succeeds.
            expectSuccess(try cli(["--db", path] + arguments, directory: directory))
            expectSuccess(try cli(["--db", path, "check"]))
        }
    }

    @Test func theCasesHaveUniqueNames() {
        let names = BadInputCase.all.map(\.name)
        #expect(Set(names).count == names.count, "duplicate case names: \(names)")
    }

    // MARK: - Hostile input that must be accepted

    @Test func aTwentyMegabyteTextValueIsStoredAndReadBackWhole() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            // 35 UTF-8 bytes per repeat (ASCII, 2-byte and 4-byte characters): 21,000,000 bytes in all, far below
            // SQLite's 1 GB limit, so it must be taken as it is.
            let huge = String(repeating: "abcdefghijklmnopqrstuvwxyz-éü😀", count: 600_000)
            #expect(huge.utf8.count >= 20 * 1024 * 1024)
            try Data((#"{"id":7,"name":"\#(huge)","x":1,"y":2}"# + "\n").utf8)
                .write(to: directory.appendingPathComponent("huge.ndjson"))
            let insert = try cli(["--db", path, "insert", "nodes", "huge.ndjson"], directory: directory)
            expectSuccess(insert)
            #expect(insert.stderr.contains("inserted 1 record"), "\(insert)")

            let get = try cli(["--db", path, "--format", "json", "get", "nodes", "7"])
            expectSuccess(get)
            let printed = try jsonObject(get.stdout)["name"] as? String
            let printedWhole = printed == huge  // not in #expect: a failure would print 21 MB twice
            #expect(printedWhole, "get printed \(printed?.utf8.count ?? -1) bytes of \(huge.utf8.count)")
            let stored = try allNodes(path).first?.name
            let storedWhole = stored == huge
            #expect(storedWhole, "the store holds \(stored?.utf8.count ?? -1) bytes of \(huge.utf8.count)")
        }
    }

    @Test func sqlInASetValueIsStoredAsText() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try makeSeededStore(path, in: directory)
            // The value is bound as a parameter, so the quote ends nothing and the DROP is just text.
            let literal = "x'; DROP TABLE nodes; --"
            expectSuccess(try cli(["--db", path, "update", "nodes", "1", "--set", "name=\(literal)"]))
            #expect(try allNodes(path).map(\.name) == [literal, "beta", "gamma"])
            expectSuccess(try cli(["--db", path, "check"]))
        }
    }

    @Test func aQuoteInAParamIsDataNotSQL() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try makeSeededStore(path, in: directory)
            let query = ["--db", path, "list", "nodes", "--where", "name = :n"]
            // Bound as text: no node is called that, so nothing matches (spliced in, it would match every node).
            let injected = try cli(query + ["--param", "n=alpha' OR '1'='1"])
            expectSuccess(injected)
            #expect(injected.lines.isEmpty, "\(injected)")
            // The same query with an honest value finds its node, so the empty result above means something.
            let honest = try cli(query + ["--param", "n=alpha"])
            expectSuccess(honest)
            #expect(try jsonLines(honest).map { $0["name"] as? String } == ["alpha"])
        }
    }

    @Test func anEscapedNULInJSONIsStoredAsData() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            // "\u0000" is valid JSON for a NUL character: it must survive, not end the string.
            expectSuccess(try cli(["--db", path, "insert", "nodes", #"{"id":9,"name":"a\u0000b","x":1,"y":2}"#]))
            let get = try cli(["--db", path, "--format", "json", "get", "nodes", "9"])
            expectSuccess(get)
            #expect(try jsonObject(get.stdout)["name"] as? String == "a\u{0}b", "\(get)")
            #expect(try allNodes(path).map(\.name) == ["a\u{0}b"])
        }
    }

    @Test func ndjsonWithWindowsLineEndingsIsAccepted() throws {
        try withTemporaryDirectory { directory in
            let path = try initStore(in: directory)
            // CRLF ends a line as LF does (Windows editors, HTTP bodies). In a Swift String "\r\n" is one Character,
            // so splitting a String at "\n" finds no line break at all.
            try Data((#"{"name":"one","x":1,"y":2}"# + "\r\n" + #"{"name":"two","x":3,"y":4}"# + "\r\n").utf8)
                .write(to: directory.appendingPathComponent("windows.ndjson"))
            expectSuccess(try cli(["--db", path, "insert", "nodes", "windows.ndjson"], directory: directory))
            #expect(try allNodes(path).map(\.name) == ["one", "two"])
        }
    }

    @Test func aReadOnlyStoreFileCanStillBeRead() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try makeSeededStore(path, in: directory)
            let result = try withAccess(restrictedBy: .readOnlyFile, path: path, directory: directory) {
                try cli(["--db", path, "list", "nodes"])
            }
            expectSuccess(result)
            #expect(try jsonLines(result).map { $0["name"] as? String } == ["alpha", "beta", "gamma"])
        }
    }

    @Test func invalidUTF8WrittenByAnotherToolIsPrintedAsValidJSON() throws {
        try withTemporaryDirectory { directory in
            let path = storePath(in: directory)
            try makeSeededStore(path, in: directory)
            // Another tool (the sqlite3 shell, say) stored the bytes 'A' 0xFF 'B' as TEXT in node 4.
            try withStore(path) { store in
                try store.write { try $0.execute("INSERT INTO nodes (id, name, x, y) VALUES (4, CAST(x'41ff42' AS TEXT), 0, 0)") }
            }
            // Through a file, because CLIResult decodes stdout leniently and would hide invalid bytes.
            let storectl = try storectlURL().path
            let result = try shell(
                "\(quotedForShell(storectl)) --db \(quotedForShell(path)) --format json get nodes 4 > out.json", directory: directory)
            expectSuccess(result)
            let output = try Data(contentsOf: directory.appendingPathComponent("out.json"))
            let text = try #require(String(data: output, encoding: .utf8), "storectl printed invalid UTF-8")
            // Shown with U+FFFD for the bad byte (decided: output is always valid JSON)...
            #expect(try jsonObject(text)["name"] as? String == "A\u{FFFD}B", "\(text)")
            // ...while the stored bytes are left as they are.
            let stored = try withStore(path) { store in
                try store.read { try $0.fetchValue("SELECT hex(name) FROM nodes WHERE id = 4") }
            }
            #expect(stored == .text("41FF42"))
        }
    }
}

// MARK: - Running a case

extension BadInputCase {
    /// Runs storectl on `path` with this case's arguments and stdin, in `directory`.
    func run(path: String, in directory: URL) throws -> CLIResult {
        let arguments = ["--db", path] + self.arguments
        switch launch {
        case .direct:
            return try runChild(storectlURL(), arguments, stdin: stdin?.data, directory: directory)
        case .fileSizeLimit(let blocks):
            let storectl = try storectlURL().path
            let command = ([storectl] + arguments).map(quotedForShell).joined(separator: " ")
            // `exec`: the status and stderr are storectl's own. An ignored signal stays ignored across exec.
            return try shell("ulimit -f \(blocks) && trap '' XFSZ && exec \(command)", directory: directory)
        }
    }
}

/// A setup step that could not be done.
private struct SetupFailed: Error, CustomStringConvertible {
    var description: String
}

extension BadInputCase.Setup {
    /// Puts at `path` what this setup describes.
    func prepare(_ path: String, in directory: URL) throws {
        switch self {
        case .seededStore, .readOnlyFile, .readOnlyDirectory:
            try makeSeededStore(path, in: directory)
        case .newerSchema:
            try makeSeededStore(path, in: directory)
            try withStore(path) { store in
                try store.write { tx in
                    try tx.execute(
                        "INSERT INTO _store_migrations VALUES ('store', 99, 'future', 'x', '2030-01-01T00:00:00.000Z', 1, 'storectl 9')")
                    try tx.execute("PRAGMA user_version = 99")
                }
            }
        case .directory:
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        case .file(let bytes):
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        case .truncatedStore:
            let layout = try makeLargerStore(path, in: directory)
            let pages = layout.fileSize / layout.pageSize
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try file.truncate(atOffset: UInt64(pages / 2 * layout.pageSize))
            try file.close()
        case .corruptedPage:
            let layout = try makeLargerStore(path, in: directory)
            // Garbage over the root page of `nodes` (an interior b-tree page by now; page type 7 does not exist).
            let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
            try file.seek(toOffset: UInt64((layout.nodesRoot - 1) * layout.pageSize))
            try file.write(contentsOf: Data((0..<layout.pageSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }))
            try file.close()
        }
    }
}

/// `storectl init` at `path` (which must be `storePath(in: directory)`), then nodes alpha, beta, gamma
/// (ids 1–3) and user "me": rows whose survival "unchanged" can check.
private func makeSeededStore(_ path: String, in directory: URL) throws {
    let created = try initStore(in: directory)
    guard created == path else { throw SetupFailed(description: "initStore made \(created), not \(path)") }
    try seedNodes(path, [NodeVO(name: "alpha", x: 1, y: 1), NodeVO(name: "beta", x: 2, y: 2), NodeVO(name: "gamma", x: 3, y: 3)])
    try withStore(path) { store in _ = try store.repository(UserInfo.self).insert(UserInfo(id: "me", name: "Ada")) }
}

/// The seeded store plus 2,000 nodes, checkpointed into the file with no `-wal` or `-shm` left;
/// returns where `nodes` starts and how big the file and its pages are.
private func makeLargerStore(_ path: String, in directory: URL) throws -> (nodesRoot: Int, pageSize: Int, fileSize: Int) {
    try makeSeededStore(path, in: directory)
    try seedNodes(path, (0..<2_000).map { NodeVO(name: "node number \($0)", x: Double($0), y: Double($0)) })
    let layout = try withStore(path) { store -> (DatabaseValue?, DatabaseValue?) in
        try store.read { tx -> (DatabaseValue?, DatabaseValue?) in
            (
                try tx.fetchValue("SELECT rootpage FROM sqlite_master WHERE name = 'nodes'"),
                try tx.fetchValue("PRAGMA page_size")
            )
        }
    }
    guard case .integer(let root)? = layout.0, case .integer(let pageSize)? = layout.1, root > 1, pageSize > 0 else {
        throw SetupFailed(description: "no root page or page size: \(layout)")
    }
    // Closing the last connection checkpointed the WAL into the file; leftovers would hide the damage.
    for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    guard let fileSize = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int,
        fileSize > Int(pageSize) * 20
    else {
        throw SetupFailed(description: "2,000 nodes should fill many pages")
    }
    return (Int(root), Int(pageSize), fileSize)
}

// MARK: - "Unchanged"

/// What "unchanged" compares: the rows of a healthy store, or what lies at the store path.
private enum Evidence: Equatable, CustomStringConvertible {
    case missing
    case directory(entries: [String])
    case bytes(Data)
    case store(StoreSnapshot)

    init(of path: String, healthy: Bool) throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            self = .missing
        } else if isDirectory.boolValue {
            self = .directory(entries: try FileManager.default.contentsOfDirectory(atPath: path).sorted())
        } else if healthy {
            self = .store(try StoreSnapshot(path))
        } else {
            self = .bytes(FileManager.default.contents(atPath: path) ?? Data())
        }
    }

    var description: String {
        switch self {
        case .missing: "nothing at the store path"
        case .directory(let entries): "a directory holding \(entries)"
        case .bytes(let data): "a file of \(data.count) bytes"
        case .store(let snapshot): snapshot.description
        }
    }
}

/// Every row of every table (the store's own and SQLite's included), the schema and `user_version`.
private struct StoreSnapshot: Equatable, CustomStringConvertible {
    var schema: [Row]
    var rows: [String: [Row]]
    var userVersion: DatabaseValue?

    init(_ path: String) throws {
        let taken = try withStore(path) { store -> ([Row], [String: [Row]], DatabaseValue?) in
            try store.read { tx -> ([Row], [String: [Row]], DatabaseValue?) in
                let schema = try tx.fetchRows("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
                var rows: [String: [Row]] = [:]
                for entry in schema where entry["type"] == .text("table") {
                    guard let table = entry.value("name", as: String.self) else { continue }
                    let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    // A WITHOUT ROWID table (`_store_commit_pieces`) has no rowid, and is scanned in key order.
                    let withoutRowID = entry.value("sql", as: String.self)?.uppercased().contains("WITHOUT ROWID") == true
                    rows[table] = try tx.fetchRows("SELECT * FROM \(quoted)" + (withoutRowID ? "" : " ORDER BY rowid"))
                }
                return (schema, rows, try tx.fetchValue("PRAGMA user_version"))
            }
        }
        schema = taken.0
        rows = taken.1
        userVersion = taken.2
    }

    var description: String {
        let counts = rows.keys.sorted().map { "\($0): \(rows[$0]?.count ?? 0)" }.joined(separator: ", ")
        return "a store with \(schema.count) schema objects, user_version \(userVersion.map { "\($0)" } ?? "nil"), rows \(counts)"
    }
}

// MARK: - Read-only files and directories

/// Runs `body` with the store file (`.readOnlyFile`) or its directory (`.readOnlyDirectory`) unwritable,
/// and writable again afterwards; other setups run `body` as is. Cancels the test case when this
/// machine cannot make them unwritable.
private func withAccess<T>(
    restrictedBy setup: BadInputCase.Setup, path: String, directory: URL, _ body: () throws -> T
) throws -> T {
    let target: String
    let isDirectory: Bool
    switch setup {
    case .readOnlyFile:
        target = path
        isDirectory = false
    case .readOnlyDirectory:
        target = directory.path
        isDirectory = true
    default: return try body()
    }
    guard let restore = makeUnwritable(target, isDirectory: isDirectory) else {
        try Test.cancel(
            Comment(rawValue: "cannot make \(target) unwritable here: chmod does not stop root, and `chattr +i` failed (no chattr, or a "
                + "file system without the immutable flag)"))
    }
    defer { restore() }
    return try body()
}
