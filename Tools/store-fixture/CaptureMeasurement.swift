import Foundation
import ObservableStore

/// Times a bulk insert and a run of one-row commits under each change-tracking variant, interleaved,
/// each in a fresh store file, and prints medians and ratios to "tracking off".
enum CaptureMeasurement {
    struct Variant: Sendable {
        var name: String
        var configure: @Sendable (inout SQLiteStoreConfiguration) -> Void
        var setupSQL: String?
        var listens: Bool
    }

    static let variants = [
        Variant(name: "tracking off (no capture, no log)", configure: { $0.tracksChanges = false }, setupSQL: nil, listens: false),
        Variant(name: "capture + log, payload per commit", configure: { _ in }, setupSQL: nil, listens: false),
        Variant(
            name: "capture + log, row per change", configure: { $0.changeLogLayout = .rowPerChange },
            setupSQL: """
                CREATE TABLE IF NOT EXISTS _store_changes (
                  seq INTEGER NOT NULL, idx INTEGER NOT NULL, table_name TEXT NOT NULL, op INTEGER NOT NULL,
                  change BLOB NOT NULL, PRIMARY KEY (seq, idx)) WITHOUT ROWID
                """, listens: false),
        Variant(name: "payload per commit + 1 listener", configure: { _ in }, setupSQL: nil, listens: true),
    ]

    static func run(rows: Int, repeats: Int) throws {
        print("rows per bulk insert: \(rows); one-row commits: \(rows / 50); repeats: \(repeats) (medians)")
        var bulk = Array(repeating: [Double](), count: variants.count)
        var small = Array(repeating: [Double](), count: variants.count)
        for _ in 0..<repeats {
            for (index, variant) in variants.enumerated() {
                bulk[index].append(try measure(variant, commits: 1, rowsPerCommit: rows))
                small[index].append(try measure(variant, commits: rows / 50, rowsPerCommit: 1))
            }
        }
        let bulkBase = median(bulk[0])
        let smallBase = median(small[0])
        for (index, variant) in variants.enumerated() {
            let b = median(bulk[index])
            let s = median(small[index])
            print(
                variant.name.padding(toLength: 38, withPad: " ", startingAt: 0)
                    + String(format: "bulk %8.1f ms  %.2fx   one-row commits %8.1f ms  %.2fx", b * 1000, b / bulkBase, s * 1000, s / smallBase))
        }
    }

    private static func measure(_ variant: Variant, commits: Int, rowsPerCommit: Int) throws -> Double {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("measure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = SQLiteStoreConfiguration()
        variant.configure(&configuration)
        let store = try SQLiteStore(path: directory.appendingPathComponent("m.sqlite").path, configuration: configuration)
        defer { store.close() }
        if let setupSQL = variant.setupSQL { try store.write { try $0.execute(setupSQL) } }
        let token = variant.listens ? store.listen("counter") { _ in } : nil
        let started = ContinuousClock.now
        for commit in 0..<commits {
            try store.write { tx in
                for row in 0..<rowsPerCommit {
                    try tx.insert(NodeVO(name: "node \(commit)-\(row)", x: Double(row), y: Double(commit), color: "#112233"))
                }
            }
        }
        let elapsed = ContinuousClock.now - started
        withExtendedLifetime(token) {}
        let count = try store.repository(NodeVO.self).count()
        guard count == commits * rowsPerCommit else {
            throw StoreError(.internal, "measurement wrote \(count) rows, expected \(commits * rowsPerCommit)")
        }
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
