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
