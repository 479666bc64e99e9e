import ArgumentParser
import Foundation
import ObservableStore

/// `storectl delete TABLE KEY` or `storectl delete TABLE --where EXPR`.
struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete one record by key, or the records matching --where (asks first).",
        discussion: """
            With --where, a terminal asks you to type the table's name; elsewhere --yes is required.
            Examples:
              storectl delete nodes 42
              storectl delete nodes --where 'updated_at < :t' --param t=2020-01-01 --yes
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var filter: WhereOptions
    @Argument(help: "The table.") var table: String
    @Argument(help: "The record's primary key (or use --where).") var key: String?
    @Flag(name: .long, help: "Do not ask; required with --where when stdin is not a terminal.") var yes = false
    @Flag(name: .long, help: "Count what would be deleted; change nothing.") var dryRun = false
    @Flag(name: .long, help: "Apply pending migrations first.") var migrate = false


    func validate() throws {
        guard (key == nil) != (filter.expression == nil) else {
            throw ValidationError("pass either a KEY or --where EXPR (not both)")
        }
    }

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: migrate))
        defer { store.close() }
        let info = try store.withReadTransaction { try TableInfo.load(table, in: $0) }
        let (condition, values): (String, [String: any DatabaseValueConvertible]) = try store.withReadTransaction { tx in
            if let key {
                return (" WHERE \(TableInfo.quote(try info.keyColumn().name)) = :__key", ["__key": try info.keyValue(key)])
            }
            return (try filter.clause(for: info, in: tx), filter.values)
        }
        let count = try store.withReadTransaction { tx in
            try tx.fetchRows("SELECT count(*) AS n FROM \(TableInfo.quote(table))" + condition, named: values).first?.value("n", as: Int.self) ?? 0
        }
        if key != nil, count == 0 { throw StoreError.recordNotFound(table: table, key: key!) }
        if dryRun {
            global.say("dry run: would delete \(count) record\(count == 1 ? "" : "s") from \(table)")
            return
        }
        if filter.expression != nil, !yes, count > 0 {
            guard isatty(STDIN_FILENO) == 1 else {
                throw StoreError(
                    CLIError.confirmationCode,
                    "refusing to delete \(count) records without --yes (stdin is not a TTY)")
            }
            FileHandle.standardError.write(Data("about to delete \(count) records from \(table). Type '\(table)' to confirm: ".utf8))
            guard readLine() == table else { throw StoreError(CLIError.abortedCode, "not confirmed; nothing was deleted") }
        }
        let deleted = try store.withWriteTransaction(origin: "storectl") { tx in
            let rows = try tx.fetchRows("DELETE FROM \(TableInfo.quote(table))" + condition + " RETURNING 1", named: values)
            return rows.count
        }
        global.say("deleted \(deleted) record\(deleted == 1 ? "" : "s")")
    }
}
