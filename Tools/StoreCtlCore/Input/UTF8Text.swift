/// UTF-8 bytes as a `String`, refusing invalid UTF-8 rather than repairing it (storing U+FFFD would change
/// the data). ASCII, the common case, skips the general validation.
enum UTF8Text {
    /// The text of `bytes`, or nil when they are not valid UTF-8.
    static func string(_ bytes: ArraySlice<UInt8>) -> String? {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.allSatisfy { $0 < 0x80 } ? String(decoding: buffer, as: UTF8.self) : String(validating: buffer, as: UTF8.self)
        }
    }
}
