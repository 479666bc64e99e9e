import Foundation
import ObservableStore

/// A record with one property of every kind the row coder maps, in a service's own table.
struct Sample: Record, Equatable {
    static let tableName = "samples"
    typealias Key = Int64

    enum Mood: String, Codable, Equatable { case calm, busy }
    struct Extra: Codable, Equatable {
        var tags: [String]
        var weight: Double
    }

    var id: Int64?
    var flag: Bool
    var small: Int8
    var count: Int
    var big: UInt32
    var ratio: Double
    var single: Float
    var text: String
    var bytes: Data
    var when: Date
    var uuid: UUID
    var mood: Mood
    var extra: Extra
    var list: [Int]
    var optionalText: String?
    var optionalCount: Int?
    var optionalDate: Date?

    mutating func didInsert(rowID: Int64) { id = rowID }

    enum CodingKeys: String, CodingKey {
        case id, flag, small, count, big, ratio, single, text, bytes, when, uuid, mood, extra, list
        case optionalText = "optional_text"
        case optionalCount = "optional_count"
        case optionalDate = "optional_date"
    }

    static func make(_ index: Int = 1) -> Sample {
        Sample(
            id: nil, flag: index % 2 == 0, small: -8, count: index, big: .max, ratio: 0.1 + Double(index),
            single: 1.5, text: "text \(index)", bytes: Data([1, 2, 3, UInt8(index % 256)]),
            when: Date(timeIntervalSince1970: 1_790_000_000.125), uuid: UUID(), mood: .busy,
            extra: Extra(tags: ["a", "b"], weight: 2.5), list: [1, 2, 3], optionalText: nil, optionalCount: index,
            optionalDate: nil)
    }

    static let migrationSet: MigrationSet = {
        // swift-format-ignore
        let sql = """
            CREATE TABLE samples (
              id INTEGER PRIMARY KEY, flag INTEGER NOT NULL, small INTEGER NOT NULL, count INTEGER NOT NULL,
              big INTEGER NOT NULL, ratio REAL NOT NULL, single REAL NOT NULL, text TEXT NOT NULL UNIQUE,
              bytes BLOB NOT NULL, "when" TEXT NOT NULL, uuid TEXT NOT NULL, mood TEXT NOT NULL CHECK (mood IN ('calm', 'busy')),
              extra TEXT NOT NULL, list TEXT NOT NULL, optional_text TEXT, optional_count INTEGER, optional_date TEXT
            );
            """
        return try! MigrationSet(name: "samples", migrations: [Migration(version: 1, name: "create_samples", sql: sql)])
    }()

    static var configuration: SQLiteStoreConfiguration {
        var configuration = SQLiteStoreConfiguration()
        configuration.migrationSets = [migrationSet]
        return configuration
    }
}

extension Change {
    /// "op table key", e.g. "delete nodes 3", for compact assertions.
    var summary: String {
        "\(operation.rawValue) \(table) \(key.map(\.description).joined(separator: ","))"
    }
}
