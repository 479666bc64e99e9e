// What the store's messages say of a row that does not decode.
extension DecodingError {
    /// The debug description of the error, which names the column.
    package var summary: String {
        switch self {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            context.debugDescription
        @unknown default:
            "\(self)"
        }
    }

    /// The column the row decoder was reading (the first key of the coding path, or the missing key), if known.
    package var column: String? {
        switch self {
        case .keyNotFound(let key, _):
            key.stringValue
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            context.codingPath.first?.stringValue
        @unknown default:
            nil
        }
    }
}
