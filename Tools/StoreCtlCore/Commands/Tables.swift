import ArgumentParser
import ObservableStore

/// `storectl tables`: the user tables with their record counts and last change.
struct Tables: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the tables with their record counts and last change time.",
        discussion: "Example:\n  storectl tables --db app.sqlite")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: false))
        defer { store.close() }
        let rows = try store.withReadTransaction { tx in
            try TableInfo.userTables(in: tx).map { name -> [DatabaseValue] in
                let count = try tx.fetchValue("SELECT count(*) FROM \(TableInfo.quote(name))", []) ?? .integer(0)
                let last = try tx.fetchValue(
                    "SELECT max(committed_at) FROM _store_commits WHERE ',' || tables || ',' LIKE ?", ["%,\(name),%"]) ?? .null
                return [.text(name), count, last]
            }
        }
        try global.output.rows(["name", "records", "last_change"], rows)
    }
}
