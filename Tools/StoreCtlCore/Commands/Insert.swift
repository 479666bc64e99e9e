import ArgumentParser
import Foundation
import ObservableStore

/// Options shared by `insert` and `upsert`.
struct ImportOptions: ParsableArguments {
    @Argument(help: "The table.") var table: String
    @Argument(help: "Records: a JSON object or array, a file (JSON, NDJSON, or CSV by extension), or - for stdin.")
    var input: String
    @Option(name: .long, help: "The input format when it cannot be guessed: json, ndjson or csv.") var inputFormat: String?
    @Option(name: .long, help: "Commit every N records instead of all at once (a failure then keeps the earlier batches).")
    var batchSize: Int?
    @Flag(name: .long, help: "Do the work in a transaction and roll it back: real counts and errors, no change.") var dryRun = false
    @Flag(name: .long, help: "Apply pending migrations first.") var migrate = false

    func validate() throws {
        if let batchSize, batchSize < 1 { throw ValidationError("--batch-size must be at least 1") }
        if let inputFormat, RecordInput.Format(rawValue: inputFormat) == nil {
            throw ValidationError("--input-format must be json, ndjson or csv")
        }
    }
}

/// `storectl insert TABLE INPUT`: all-or-nothing import.
struct Insert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Insert records from JSON, NDJSON or CSV; all or nothing by default.",
        discussion: """
            Examples:
              storectl insert nodes '{"name":"A","x":1,"y":2}'
              storectl insert nodes - < nodes.ndjson
              storectl insert nodes big.csv --batch-size 1000
              storectl insert nodes fix.ndjson --upsert --dry-run
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: ImportOptions
    @Flag(name: .long, help: "Update records whose primary key exists instead of failing.") var upsert = false

    func run() throws {
        try Importer(global: global, options: options, upsert: upsert).run()
    }
}

/// `storectl upsert TABLE INPUT`: insert, or update on primary-key conflict.
struct Upsert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Insert records, updating those whose primary key exists.",
        discussion: "Example:\n  storectl upsert user_info '{\"id\":\"me\",\"name\":\"Ada\"}'")

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: ImportOptions

    func run() throws {
        try Importer(global: global, options: options, upsert: true).run()
    }
}

/// Runs an import through the library (so every commit is logged and reaches every listener).
struct Importer {
    let global: GlobalOptions
    let options: ImportOptions
    let upsert: Bool

    private struct DryRun: Error {}

    func run() throws {
        let store = try global.openStore(.current(migrate: options.migrate))
        defer { store.close() }
        let table = try store.read { try TableInfo.load(options.table, in: $0) }
        let input = try RecordInput.read(options.input, format: options.inputFormat.flatMap(RecordInput.Format.init), table: table)
        let started = ContinuousClock.now
        let batchSize = options.batchSize ?? max(input.records.count, 1)
        var committed = 0
        var inserted = 0
        var updated = 0
        var transactions = 0
        let progress = Progress(total: input.records.count)
        for batchStart in stride(from: 0, to: input.records.count, by: batchSize) {
            let batch = input.records[batchStart..<min(batchStart + batchSize, input.records.count)]
            var counts = (inserted: 0, updated: 0)
            do {
                try store.write(origin: "storectl") { tx in
                    for record in batch {
                        if try write(record, table: table, tx: tx) { counts.inserted += 1 } else { counts.updated += 1 }
                        progress.advance()
                    }
                    if options.dryRun { throw DryRun() }
                }
                committed += batch.count
                transactions += 1
            } catch is DryRun {
                // Rolled back on purpose: the counts are what would have happened.
            } catch let error as StoreError {
                let outcome =
                    committed > 0
                    ? "; \(committed) records were committed before the failure (batches of \(batchSize))"
                    : "; nothing was written"
                throw StoreError(error.code, error.message + outcome, sqliteCode: error.sqliteCode)
            }
            inserted += counts.inserted
            updated += counts.updated
        }
        progress.finish()
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        if options.dryRun {
            global.say(
                upsert
                    ? "dry run: would insert \(inserted) and update \(updated) records in \(table.name) (rolled back)"
                    : "dry run: would insert \(inserted) records into \(table.name) (rolled back)")
        } else if upsert {
            global.say("inserted \(inserted) and updated \(updated) records in \(table.name) (\(transactions) transaction\(transactions == 1 ? "" : "s"), \(milliseconds) ms)")
        } else {
            global.say("inserted \(inserted) record\(inserted == 1 ? "" : "s") into \(table.name) (\(transactions) transaction\(transactions == 1 ? "" : "s"), \(milliseconds) ms)")
        }
    }

    /// Writes one record; returns true for an insert, false for an update (upsert of an existing key).
    private func write(_ record: RecordInput.Record, table: TableInfo, tx: Transaction) throws -> Bool {
        let columns = record.columns.map(TableInfo.quote).joined(separator: ", ")
        let marks = Array(repeating: "?", count: record.columns.count).joined(separator: ", ")
        var existed = false
        var sql = "INSERT INTO \(TableInfo.quote(table.name)) (\(columns)) VALUES (\(marks))"
        if record.columns.isEmpty { sql = "INSERT INTO \(TableInfo.quote(table.name)) DEFAULT VALUES" }
        if upsert {
            let key = table.primaryKey
            guard !key.isEmpty else { throw CLIError.usage("\(table.name) has no primary key to upsert on") }
            if key.allSatisfy({ record.columns.contains($0.name) }) {
                let condition = key.map { "\(TableInfo.quote($0.name)) = ?" }.joined(separator: " AND ")
                let keyValues = key.map { record.values[record.columns.firstIndex(of: $0.name)!] }
                existed = try tx.fetchValue("SELECT 1 FROM \(TableInfo.quote(table.name)) WHERE \(condition)", keyValues) != nil
            }
            let updates = record.columns.filter { name in !key.contains { $0.name == name } }
                .map { "\(TableInfo.quote($0)) = excluded.\(TableInfo.quote($0))" }
            sql += " ON CONFLICT(\(key.map { TableInfo.quote($0.name) }.joined(separator: ", "))) "
                + (updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", "))
        }
        do {
            try tx.execute(sql, record.values)
        } catch let error as StoreError {
            let keyText = table.primaryKey.first.flatMap { key in
                record.columns.firstIndex(of: key.name).map { " \(key.name) \(JSONText.value(record.values[$0]))" }
            } ?? ""
            throw StoreError(error.code, "\(error.message) (input line \(record.line)\(keyText))", sqliteCode: error.sqliteCode)
        }
        return !existed
    }
}

/// Progress on stderr for long imports: only on a terminal, only after one second.
final class Progress {
    private let total: Int
    private var done = 0
    private let started = ContinuousClock.now
    private var shown = false
    private let enabled = isatty(STDERR_FILENO) == 1

    init(total: Int) { self.total = total }

    func advance() {
        done += 1
        guard enabled, done % 500 == 0, ContinuousClock.now - started > .seconds(1) else { return }
        shown = true
        FileHandle.standardError.write(Data("\r\(done)/\(total) records".utf8))
    }

    func finish() {
        if shown { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
