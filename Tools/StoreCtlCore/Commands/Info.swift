import ArgumentParser
import Foundation
import ObservableStore

/// `storectl info`: an overview of the store; works on older and newer schemas.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the store's file, WAL, schema state, tables, records and last change.",
        discussion: "Works on stores of any schema version. Read-only: the WAL's frames are read from its index, not checkpointed.\n\nExample:\n  storectl info --db app.sqlite")

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let store = try global.openCommandStore(.any)
        defer { store.close() }
        let status = try store.migrationStatus()
        let applied = status.entries.filter { $0.set == MigrationSet.storeSetName && ($0.state == .applied || $0.state == .unknown || $0.state == .changed) }
        let current = applied.map(\.version).max() ?? 0
        let state =
            !status.unknown.isEmpty ? "newer than storectl"
            : !status.conflicts.isEmpty ? "history conflict" : status.pending.isEmpty ? "up to date" : "\(status.pending.count) pending"
        let (tables, records) = try store.withReadTransaction { tx -> (Int, Int64) in
            let names = try TableInfo.userTables(in: tx)
            var total: Int64 = 0
            for name in names {
                total += try tx.fetchValue("SELECT count(*) FROM \(TableInfo.quote(name))", []).flatMap(Int64.fromDatabaseValue) ?? 0
            }
            return (names.count, total)
        }
        // Stores older than the change log have no sequence yet.
        let lastSequence = (try? store.lastSequence()) ?? 0
        let storage = try store.storage()
        try global.output.object(
            [
                "store", "size_bytes", "journal", "wal_bytes", "wal_frames", "wal_checkpointed_frames", "schema", "known_schema",
                "state", "tables", "records", "last_change_seq",
            ],
            [
                .text(store.location), .integer(storage.sizeBytes), .text(storage.journal), .integer(storage.walBytes),
                .integer(storage.walFrames), .integer(storage.walCheckpointedFrames), .text(Migration.format(current)),
                .text(Migration.format(store.knownSchemaVersion)), .text(state), .integer(Int64(tables)), .integer(records),
                .integer(lastSequence),
            ])
    }
}
