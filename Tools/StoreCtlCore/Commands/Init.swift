import ArgumentParser
import Foundation
import ObservableStore

/// `storectl init`: the only command that creates a store file.
struct Init: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create a store file and apply the migrations.",
        discussion: "The only command that creates a file. On PostgreSQL the database must exist (createdb); init migrates it.\n\nExample:\n  storectl init --db app.sqlite\n  storectl init --db postgres://app@db.internal:5432/app")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let path = global.path
        if GlobalOptions.isPostgresURL(path) {
            let store = try global.openCommandStore(.any, migrating: true)
            defer { store.close() }
            global.say("\(store.location) is a store (schema \(Migration.format(try store.schemaVersion())))")
            return
        }
        if FileManager.default.fileExists(atPath: path) {
            let store = try global.openStore(.any)
            defer { store.close() }
            global.say("\(path) already exists (schema \(Migration.format(try store.schemaVersion()))); nothing to do")
            return
        }
        var configuration = SQLiteStoreConfiguration()
        configuration.busyTimeout = global.busyTimeoutDuration
        configuration.applicationName = "storectl \(SQLiteStore.libraryVersion)"
        let store = try SQLiteStore(path: path, configuration: configuration)
        defer { store.close() }
        global.say("created \(path) (application_id 0x53544f52, schema \(Migration.format(try store.schemaVersion())), WAL)")
    }
}
