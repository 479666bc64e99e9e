#if PostgreSQL
import Foundation
import ObservableStoreCore
import ObservableStorePostgres
import StoreTestSupport
import TestScheduling
import Testing

/// The in-memory evaluation of a query's filters and order agrees with PostgreSQL on every row it claims to know: each
/// answer is checked against the server, on a table of the modelled types and of types that are not, filled with
/// values of every kind and read back as the change log delivers them (an unsure answer is allowed, a wrong one is
/// not).
@Suite(.timeLimit(.minutes(10)), .threadPerTest, .enabled(if: TestServer.isAvailable, TestServer.skipReason))
struct PostgresQueryEvaluatorTests {
    /// A row of the `mixed` table; the evaluator needs only its type.
    struct Mixed: Record {
        typealias Key = Int64
        static let tableName = "mixed"
        var id: Int64
    }

    /// Each column, its type, and the values a row may hold in it.
    private static let columns: [(name: String, type: String, pool: [DatabaseValue])] = [
        ("i", "bigint", [.null, .integer(-3), .integer(0), .integer(5), .integer(9_007_199_254_740_993)]),
        ("s", "smallint", [.null, .integer(-3), .integer(0), .integer(5)]),
        ("r", "double precision", [.null, .real(-2.5), .real(-0.0), .real(0), .real(5), .real(7.5), .real(.infinity)]),
        ("rn", "double precision", [.real(.nan), .real(1)]),
        ("f", "real", [.null, .real(0.1), .real(5)]),
        ("n", "numeric", [.null, .real(0.1), .real(5)]),
        ("t", "text", Self.texts),
        ("tc", "text COLLATE \"C\"", Self.texts),
        ("tu", "text COLLATE \"und-x-icu\"", Self.texts),
        ("v", "varchar(20)", Self.texts),
        ("b", "bytea", [.null, .blob(Data()), .blob(Data([0])), .blob(Data([0x61])), .blob(Data([0x61, 0]))]),
        ("flag", "boolean", [.null, .integer(0), .integer(1)]),
    ]
    private static let texts: [DatabaseValue] = [
        .null, .text(""), .text("5"), .text("a"), .text("B"), .text("abc"), .text("a b"), .text("e\u{301}"), .text("\u{e9}"),
    ]
    /// Bound values of every kind.
    private static let bounds: [DatabaseValue] =
        [.null, .integer(0), .integer(5), .real(-0.0), .real(5), .real(7.5), .text("a"), .text("abc"), .text("\u{e9}"), .blob(Data([0x61]))]

    /// A store with table `mixed` under capture, `count` rows of random values inserted in one commit; `body` gets the
    /// store and the rows as that commit's row images.
    private func withMixedTable(rows count: Int, _ body: (PostgresStore, [Row]) throws -> Void) throws {
        try TestServer.withStore { store, _ in
            try store.write { tx in
                try tx.execute(
                    "CREATE TABLE mixed (id bigint PRIMARY KEY, "
                        + Self.columns.map { "\($0.name) \($0.type)" }.joined(separator: ", ") + ")")
            }
            try store.installCapture(on: "mixed")
            let start = try store.lastSequence()
            var generator = SeededGenerator(seed: 11)
            try store.write { tx in
                let placeholders = (1...Self.columns.count + 1).map { "$\($0)" }.joined(separator: ", ")
                for id in 1...count {
                    let values = Self.columns.map { $0.pool.randomElement(using: &generator)! }
                    let bound = values.enumerated().map { index, value -> any DatabaseValueConvertible in
                        // A boolean takes text ('1', '0') with a cast; the others bind as they are.
                        if Self.columns[index].type == "boolean", case .integer(let flag) = value { return flag == 1 ? "true" : "false" }
                        return value
                    }
                    let casts = zip(placeholders.split(separator: ",").dropFirst(), Self.columns).map { placeholder, column in
                        column.type == "boolean" ? "\(placeholder)::boolean" : String(placeholder)
                    }
                    try tx.execute("INSERT INTO mixed VALUES ($1, \(casts.joined(separator: ",")))", [Int64(id)] + bound)
                }
            }
            let commits = try store.commits(after: start)
            let rows = commits.flatMap(\.changes).filter { $0.table == "mixed" }.compactMap(\.new)
            #expect(rows.count == count)
            try body(store, rows)
        }
    }

    private func evaluator(_ query: RecordQuery<Mixed>, _ store: PostgresStore) throws -> QueryEvaluator<Mixed> {
        try store.read { tx in
            QueryEvaluator(
                query, comparators: try PostgresStore.columnComparators(of: "mixed", columns: QueryEvaluator.columns(of: query), in: tx))
        }
    }

    /// The ids PostgreSQL selects for `query`, or nil when it refuses the query (a type it cannot compare).
    private func selectedIDs(_ query: RecordQuery<Mixed>, _ store: PostgresStore) -> Set<Int64>? {
        try? Set(store.read { tx in try tx.fetchAll(query) }.map(\.id))
    }

    @Test func everyCertainFilterAnswerIsPostgreSQLsAnswer() throws {
        try withMixedTable(rows: 40) { store, rows in
            let queries = Self.columns.flatMap { column in
                RecordQuery<Mixed>.everyFilter(
                    on: column.name, bounds: Self.bounds, lists: [[.integer(5), .integer(0)], [.text("a"), .text("\u{e9}")]])
            }
            var (certain, unsure) = (0, 0)
            for query in queries {
                let evaluator = try evaluator(query, store)
                let answers = rows.map { row in (id: row.value("id", as: Int64.self), matches: evaluator.matches(row)) }
                unsure += answers.filter { $0.matches == nil }.count
                guard answers.contains(where: { $0.matches != nil }) else { continue }
                let condition = "\(query.conditions[0].sql) \(query.conditions[0].arguments)"
                guard let selected = selectedIDs(query, store) else {
                    Issue.record("answered in memory, refused by PostgreSQL: \(condition)")
                    continue
                }
                for answer in answers {
                    guard let matches = answer.matches else { continue }
                    certain += 1
                    let id = try #require(answer.id)
                    #expect(matches == selected.contains(id), "\(condition) on row \(id)")
                }
            }
            // The usual filters are always answered: an integer on an integer column, a double on a double one, text
            // compared for equality with text.
            for (column, bound) in [("i", DatabaseValue.integer(5)), ("s", .integer(0)), ("r", .real(5)), ("t", .text("a")),
                ("tu", .text("a")), ("v", .text("abc")), ("tc", .text("a"))]
            {
                for comparison in [QueryComparison.equal, .notEqual] {
                    let evaluator = try evaluator(RecordQuery<Mixed>().filter(column, comparison, bound), store)
                    #expect(rows.allSatisfy { evaluator.matches($0) != nil }, "\(column) \(comparison) \(bound)")
                }
            }
            #expect(certain > 5_000, "certain \(certain), unsure \(unsure)")
        }
    }

    @Test func unmodelledTypesAndNaNAreNeverAnsweredInMemory() throws {
        try withMixedTable(rows: 20) { store, rows in
            let unanswerable = [
                RecordQuery<Mixed>().filter("f", .equal, 5.0),  // real: its row images do not read as its fetches
                RecordQuery<Mixed>().filter("n", .equal, 5.0),  // numeric
                RecordQuery<Mixed>().filter("i", .equal, 5.0),  // a double meets a bigint: PostgreSQL casts
                RecordQuery<Mixed>().filter("t", .equal, 5),  // a number meets text
                RecordQuery<Mixed>().filter("tu", .lessThan, "b"),  // a locale's order
                RecordQuery<Mixed>().filter("t", .like, "a%"),
                RecordQuery<Mixed>().filter(sql: "i > ?", arguments: [1]),
                RecordQuery<Mixed>().filter("missing", .equal, 5),
            ]
            for query in unanswerable {
                let evaluator = try evaluator(query, store)
                // A NULL stored value fails every comparison: that is certain whatever the type.
                let column = query.conditions[0].predicate?.column ?? "i"
                for row in rows where row[column]?.isNull != true && evaluator.matches(row) != nil {
                    Issue.record("\(query.conditions[0].sql) \(query.conditions[0].arguments) answered in memory on \(row)")
                }
            }
            let nan = try evaluator(RecordQuery<Mixed>().filter("rn", .greaterThan, 0.0), store)
            for row in rows {
                if case .real(let value)? = row["rn"], value.isNaN {
                    #expect(nan.matches(row) == nil, "NaN answered in memory")
                } else {
                    #expect(nan.matches(row) == true)
                }
            }
        }
    }

    @Test func theOrderOfCertainSortKeysIsPostgreSQLsOrder() throws {
        try withMixedTable(rows: 60) { store, rows in
            var ordered: [String] = []
            for column in Self.columns.map(\.name) {
                for descending in [false, true] {
                    let query = RecordQuery<Mixed>().order(by: column, descending: descending)
                    let evaluator = try evaluator(query, store)
                    guard let inMemory = evaluator.orderedIDs(of: rows) else { continue }
                    ordered.append(column)
                    let server = try store.read { tx in try tx.fetchAll(query) }.map(\.id)
                    #expect(inMemory == server, "ORDER BY \(column) \(descending)")
                }
            }
            // Integers, doubles without NaN, booleans, bytea and C text are ordered in memory; a locale's text is not.
            for column in ["i", "s", "r", "flag", "b", "tc"] { #expect(ordered.contains(column), "\(column) not ordered in memory") }
            for column in ["tu", "rn", "f", "n"] { #expect(!ordered.contains(column), "\(column) ordered in memory") }
        }
    }
}
#endif
