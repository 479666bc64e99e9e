import Foundation
import ObservableStoreCore
import Testing

extension ConformanceCases {
    /// Opening a new store applies the bundled migrations and records each one (set, version, name, checksum);
    /// opening it again applies nothing more.
    static func migrationHistoryIsRecorded<E: ConformanceEngine>(_ engine: E) throws {
        let history = try withStore(engine) { store -> [String] in
            let applied = try store.appliedMigrations().filter { $0.set == "store" }
            #expect(!applied.isEmpty)
            #expect(applied.map(\.version) == Array(1...applied.count))
            #expect(applied.allSatisfy { !$0.name.isEmpty && !$0.checksum.isEmpty })
            #expect(try store.schemaVersion() == applied.count)
            return applied.map { "\($0.version) \($0.name) \($0.checksum)" }
        }
        let reopened = try withStore(engine) { store in try store.appliedMigrations().filter { $0.set == "store" } }
        #expect(reopened.map { "\($0.version) \($0.name) \($0.checksum)" } == history)
    }

    /// A store migrated by newer code is refused with one error naming the versions, and left unchanged.
    static func aNewerSchemaIsRefusedAndLeftUnchanged<E: ConformanceEngine>(_ engine: E) throws {
        let known = try withStore(engine) { store -> Int in
            let known = try store.schemaVersion()
            try engine.recordFutureMigration(in: store)
            return known
        }
        let before = try engine.migrationHistoryFromOutside()
        let refused = #expect(throws: StoreError.self) { try engine.open().close() }
        #expect(refused?.code == .schemaTooNew)
        #expect(refused?.message.contains("is newer than this code (knows \(String(format: "%04d", known)))") == true)
        #expect(try engine.migrationHistoryFromOutside() == before)
    }
}
