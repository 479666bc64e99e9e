import ArgumentParser
import ObservableStore

/// `storectl update TABLE KEY --set COL=VAL …`.
struct Update: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Change columns of one record.",
        discussion: "Values are read by column type; 'null' is NULL, true/false are 1/0 for integers.\n\nExample:\n  storectl update nodes 42 --set x=10.5 --set 'name=Start node'")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The table.") var table: String
    @Argument(help: "The record's primary key.") var key: String
    @Option(name: .customLong("set"), help: "COL=VALUE (repeatable).") var assignments: [String] = []
    @Flag(name: .long, help: "Apply pending migrations first.") var migrate = false

    func validate() throws {
        guard !assignments.isEmpty else { throw ValidationError("nothing to update: pass --set COL=VALUE") }
        for assignment in assignments where Update.split(assignment) == nil {
            throw ValidationError("--set '\(assignment)': expected COL=VALUE")
        }
    }

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: migrate))
        defer { store.close() }
        let changed = try store.withWriteTransaction(origin: "storectl") { tx -> Int in
            let info = try TableInfo.load(table, in: tx)
            let (columns, values) = try Update.parse(assignments, for: info)
            let keyColumn = try info.keyColumn()
            let sql = "UPDATE \(TableInfo.quote(table)) SET "
                + columns.map { "\(TableInfo.quote($0)) = \(tx.placeholder(for: info.column(named: $0) ?? keyColumn))" }.joined(separator: ", ")
                + " WHERE \(TableInfo.quote(keyColumn.name)) = \(tx.placeholder(for: keyColumn))"
            return try tx.execute(sql, values + [try info.keyValue(key)])
        }
        guard changed > 0 else { throw StoreError.recordNotFound(table: table, key: key) }
        global.say("updated \(changed) record\(changed == 1 ? "" : "s")")
    }

    /// `COL=VALUE` assignments as columns of `info` and values of their types.
    static func parse(_ assignments: [String], for info: TableInfo) throws -> (columns: [String], values: [DatabaseValue]) {
        var columns: [String] = []
        var values: [DatabaseValue] = []
        for assignment in assignments {
            guard let (name, text) = split(assignment) else { throw CLIError.usage("--set '\(assignment)': expected COL=VALUE") }
            guard let column = info.column(named: name) else { throw CLIError.usage("--set: no column \(name) in \(info.name)") }
            guard !columns.contains(name) else { throw CLIError.usage("--set: column \(name) is set twice") }
            columns.append(name)
            values.append(try ValueText.parse(text, for: column, table: info.name))
        }
        return (columns, values)
    }

    /// `COL=VALUE` as its column and value text; nil without `=` or without a column name.
    static func split(_ assignment: String) -> (column: String, value: String)? {
        let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty else { return nil }
        return (String(parts[0]), String(parts[1]))
    }
}
