import Foundation
import ObservableStoreCore

// The core's row decoders read a fetched row straight from the statement, and its row encoder binds a
// record's values straight into the statement's parameters.
extension Statement: ColumnSource, ParameterSink {
    package func date(at index: Int32) -> Date? {
        // Parsed from SQLite's bytes directly: no String is made for the hundreds of thousands of dates a fetch reads.
        if let text = withTextValue(at: index, { Timestamp.parse(bytes: $0) }) { return text }
        return Date.fromDatabaseValue(value(at: index))
    }
}
