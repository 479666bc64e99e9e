import ArgumentParser
import ObservableStore

/// `storectl get TABLE KEY`: one record by primary key.
struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show one record by primary key.",
        discussion: "Example:\n  storectl get nodes 42\n  storectl get user_info me --format json")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The table.") var table: String
    @Argument(help: "The record's primary key.") var key: String
    @Flag(name: .long, help: "Apply pending migrations first.") var migrate = false

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: migrate))
        defer { store.close() }
        let printer = global.output.rowPrinter()
        let found = try store.withReadTransaction { tx -> Bool in
            let info = try TableInfo.load(table, in: tx)
            let column = try info.keyColumn()
            var found = false
            try tx.forEachRow(
                "SELECT * FROM \(TableInfo.quote(table)) WHERE \(TableInfo.quote(column.name)) = :key LIMIT 1",
                named: ["key": try info.keyValue(key)]
            ) {
                printer.printObject($0)
                found = true
            }
            return found
        }
        guard found else { throw StoreError.recordNotFound(table: table, key: key) }
        try printer.finish(columnsIfEmpty: [])
    }
}
