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
        let store = try global.openStore(.current(migrate: migrate))
        defer { store.close() }
        let row = try store.read { tx -> Row? in
            let info = try TableInfo.load(table, in: tx)
            let column = try info.keyColumn()
            return try tx.fetchRows(
                "SELECT * FROM \(TableInfo.quote(table)) WHERE \(TableInfo.quote(column.name)) = ?", [try info.keyValue(key)]
            ).first
        }
        guard let row else { throw StoreError.recordNotFound(table: table, key: key) }
        global.output.object(row.columns, row.values)
    }
}
