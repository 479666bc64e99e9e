import ArgumentParser
import ObservableStore

/// `storectl listeners`: the durable listeners with their cursors and lag.
struct Listeners: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the durable listeners, their cursors and how far behind they are.",
        discussion: "Example:\n  storectl listeners")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let store = try global.openCommandStore(.current(migrate: false))
        defer { store.close() }
        let rows = try store.durableListeners().map { info -> [DatabaseValue] in
            [.text(info.name), .integer(info.cursor), .integer(info.lag), info.updatedAt.databaseValue]
        }
        try global.output.rows(["name", "cursor", "lag", "updated_at"], rows)
    }
}
