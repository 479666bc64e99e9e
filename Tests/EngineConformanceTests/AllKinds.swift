import Foundation
import ObservableStoreCore

/// A record with one column of every value kind, for the round-trip case (table `all_kinds`, made by
/// ``ConformanceEngine/createAllKindsTable``).
struct AllKinds: Record, Equatable {
    static let tableName = "all_kinds"
    typealias Key = Int64

    var id: Int64?
    var intValue: Int64
    var realValue: Double
    var textValue: String
    var blobValue: Data
    var optionalText: String?
    var dateValue: Date
    var flag: Bool

    mutating func didInsert(rowID: Int64) { id = rowID }

    enum CodingKeys: String, CodingKey {
        case id
        case intValue = "int_value"
        case realValue = "real_value"
        case textValue = "text_value"
        case blobValue = "blob_value"
        case optionalText = "optional_text"
        case dateValue = "date_value"
        case flag
    }
}
